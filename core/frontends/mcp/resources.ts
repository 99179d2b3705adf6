/**
 * MCP resources: the event log, the snapshot list and the game server's log, read through the
 * daemon's own tools (`events`, `snapshots`, `logs`), so they say exactly what those tools say. A client that subscribes
 * gets `notifications/resources/updated` when a new event is recorded (and, for snapshots, when
 * the mod reports a new one); the front-end receives events only while someone watches.
 * On a daemon of several targets each target has its own, a path segment on the URI:
 * `mcbridge://events/lab`; the bare URI is the target a call without one goes to.
 */
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import type { EventFrame } from '../../api/frames.js';
import { TARGET_NAME } from '../../api/targets.js';
import { recordText, type LogPageView } from '../log-text.js';
import type { Manifest } from '../../host/plugin-api.js';
import { RPC, RpcError, stringParam } from './jsonrpc.js';
import type { McpSession } from './protocol.js';
import type { DaemonUpstream } from './upstream.js';
import { manifestTargets } from './targets.js';

interface ResourceSpec {
  resource: Resource;
  /** The daemon tool that reads it; the resource is listed while that tool is available. */
  tool: string;
  /** Whether an event pushed by the daemon changes it. */
  changedBy(frame: EventFrame): boolean;
  /** The tool's params (besides `target`), and the text a read gives; default: none, and its answer as JSON. */
  params?: Record<string, unknown>;
  render?: (value: unknown) => string;
}

export const EVENTS_URI = 'mcbridge://events';
export const SNAPSHOTS_URI = 'mcbridge://snapshots';
export const LOGS_URI = 'mcbridge://logs';
/** A read of the logs resource holds at most this many records and bytes of them: a resource is read whole. */
export const LOGS_RESOURCE_RECORDS = 200;
export const LOGS_RESOURCE_BYTES = 64 * 1024;

const RESOURCES: ResourceSpec[] = [
  {
    resource: {
      uri: EVENTS_URI,
      name: 'events',
      title: 'Game event log',
      description:
        'The newest buffered game events (chat, command output, marks, connection changes), as mc_events returns them with no arguments. Subscribe to hear of each new event; page with mc_events and `since`.',
      mimeType: 'application/json',
    },
    tool: 'events',
    changedBy: () => true,
  },
  {
    resource: {
      uri: SNAPSHOTS_URI,
      name: 'snapshots',
      title: 'Entity snapshots',
      description: 'The tick-order entity snapshots on the connected server, as mc_snapshots lists them. Subscribe to hear when the mod reports a new one.',
      mimeType: 'application/json',
    },
    tool: 'snapshots',
    changedBy: (frame) => (frame.data as { type?: unknown } | null)?.type === 'snapshot',
  },
  {
    resource: {
      uri: LOGS_URI,
      name: 'logs',
      title: 'Game server log',
      description: `The newest records of the game server's log (at most ${LOGS_RESOURCE_RECORDS}, ${LOGS_RESOURCE_BYTES / 1024} KiB), one line each with its stack trace, as text. Log records are no events: read it again for news, or page with mc_logs and \`since\`.`,
      mimeType: 'text/plain',
    },
    tool: 'logs',
    changedBy: () => false,
    params: { limit: LOGS_RESOURCE_RECORDS, max_bytes: LOGS_RESOURCE_BYTES },
    render: (value) => logsText(value as LogPageView),
  },
];

/** The page as lines; a page that could not hold every record says so first. */
function logsText(page: LogPageView): string {
  if (page.records.length === 0) return '(no log records yet)\n';
  const lines = page.records.map(recordText);
  if (page.truncated) lines.unshift(`(older records before seq ${page.records[0]!.seq}: mc_logs with since)`);
  return lines.join('\n') + '\n';
}

/** The resources to list: the bare ones on a daemon of one target, one per target serving the tool on a daemon of several. */
function available(manifest: Manifest): Resource[] {
  const tools = new Map(manifest.tools.filter((t) => t.available).map((t) => [t.name, (t as { targets?: string[] }).targets]));
  const specs = RESOURCES.filter((r) => tools.has(r.tool));
  if (!manifestTargets(manifest)) return specs.map((r) => r.resource);
  return specs.flatMap((spec) => (tools.get(spec.tool) ?? []).map((target) => targetResource(spec, target)));
}

function targetResource(spec: ResourceSpec, target: string): Resource {
  const { uri, name, title, description, ...rest } = spec.resource;
  return { ...rest, uri: `${uri}/${target}`, name: `${name}/${target}`, title: `${title} (${target})`, description: `${description} Target ${target}.` };
}

/** The URI templates of a daemon of several targets: the path segment names the target. */
function templates(manifest: Manifest): Array<{ uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string }> {
  if (!manifestTargets(manifest)) return [];
  return RESOURCES.map(({ resource: { uri, name, title, description, mimeType } }) => ({
    uriTemplate: `${uri}/{target}`,
    name: `${name}-per-target`,
    ...(title !== undefined ? { title: `${title}, per target` } : {}),
    description: `${description} The last path segment names the target (mc_targets lists them).`,
    ...(mimeType !== undefined ? { mimeType } : {}),
  }));
}

/** A resource URI taken apart: which resource, and which target (none: the one a call without `target` goes to). */
interface ResourceAddress {
  spec: ResourceSpec;
  target: string | undefined;
}

/** Resource handlers for the sessions of one front-end, and who watches what. */
export class ResourceHub {
  private readonly watchers = new Map<McpSession, Set<string>>();
  /** Per session, the URIs with an update not yet sent (one notification per burst of events). */
  private readonly pending = new Map<McpSession, Set<string>>();

  constructor(private readonly upstream: DaemonUpstream) {
    upstream.on('game-event', (frame: EventFrame) => this.changed((spec) => spec.changedBy(frame), eventTarget(frame)));
    // Events this front-end missed may include anything.
    upstream.on('game-gap', (gap: { target?: string }) => this.changed(() => true, gap.target));
  }

  /** Register the resource methods on one session's server. */
  serve(server: McpSession): void {
    server.setRequestHandler('resources/list', async () => ({ resources: available(await this.upstream.surfaceNow()) }));
    server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: templates(await this.upstream.surfaceNow()) }));
    server.setRequestHandler('resources/read', (params) => this.read(stringParam(params, 'uri', 'resources/read')));
    server.setRequestHandler('resources/subscribe', async (params) => {
      const uri = stringParam(params, 'uri', 'resources/subscribe');
      this.find(uri);
      const uris = this.watchers.get(server) ?? new Set<string>();
      uris.add(uri);
      this.watchers.set(server, uris);
      await this.upstream.followEvents(true);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', async (params) => {
      this.watchers.get(server)?.delete(stringParam(params, 'uri', 'resources/unsubscribe'));
      await this.sessionEnded(server, false);
      return {};
    });
  }

  /** A session closed (or dropped its last subscription): stop receiving events when nobody watches. */
  async sessionEnded(server: McpSession, closed = true): Promise<void> {
    if (closed || this.watchers.get(server)?.size === 0) this.watchers.delete(server);
    if (this.watchers.size === 0) await this.upstream.followEvents(false);
  }

  /** `mcbridge://events` or `mcbridge://events/<target>` (and the same for snapshots); the daemon says whether the target exists. */
  private find(uri: string): ResourceAddress {
    for (const spec of RESOURCES) {
      const base = spec.resource.uri;
      if (uri === base) return { spec, target: undefined };
      const target = uri.startsWith(`${base}/`) ? uri.slice(base.length + 1) : null;
      if (target !== null && TARGET_NAME.test(target)) return { spec, target };
    }
    throw new RpcError(
      RPC.resourceNotFound,
      `unknown resource '${uri}'; resources/list names the ones this server has (${RESOURCES.map((r) => r.resource.uri).join(', ')}, and on a daemon of several targets <uri>/<target>)`,
      { uri },
    );
  }

  private async read(uri: string): Promise<ReadResourceResult> {
    const { spec, target } = this.find(uri);
    const value = await this.upstream.call(spec.tool, { ...spec.params, ...(target === undefined ? {} : { target }) });
    const text = spec.render ? spec.render(value) : JSON.stringify(value);
    return { contents: [{ uri, mimeType: spec.resource.mimeType ?? 'application/json', text }] };
  }

  /**
   * Whether an event of `target` (from the frame; undefined for a gap, which may hide any)
   * concerns a resource address: its own target's, or for a bare URI the target calls go to
   * without one (on a daemon of one target, every event).
   */
  private concerns(address: ResourceAddress, target: string | undefined): boolean {
    if (target === undefined) return true;
    if (address.target !== undefined) return address.target === target;
    if (!manifestTargets(this.upstream.manifest)) return true;
    const implicit = this.upstream.target ?? (this.upstream.manifest as { defaultTarget?: string | null }).defaultTarget;
    return implicit === target;
  }

  private changed(affects: (spec: ResourceSpec) => boolean, target?: string): void {
    for (const [server, watched] of this.watchers) {
      const due = [...watched].filter((uri) => {
        const address = this.find(uri);
        return affects(address.spec) && this.concerns(address, target);
      });
      if (due.length === 0) continue;
      let pending = this.pending.get(server);
      if (!pending) {
        pending = new Set();
        this.pending.set(server, pending);
        setImmediate(() => this.flush(server));
      }
      for (const uri of due) pending.add(uri);
    }
  }

  private flush(server: McpSession): void {
    const uris = this.pending.get(server);
    this.pending.delete(server);
    if (!uris || !this.watchers.has(server)) return;
    for (const uri of uris) void server.sendResourceUpdated({ uri }).catch(() => {});
  }
}

/** The target an event frame names (every recorded event does; an older daemon's none). */
function eventTarget(frame: EventFrame): string | undefined {
  const target = (frame.data as { target?: unknown } | null)?.target;
  return typeof target === 'string' ? target : undefined;
}

/**
 * MCP resources: the event log and the snapshot list, read through the daemon's own tools
 * (`events`, `snapshots`), so they say exactly what those tools say. A client that subscribes
 * gets `notifications/resources/updated` when a new event is recorded (and, for snapshots, when
 * the mod reports a new one); the front-end receives events only while someone watches.
 */
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import type { EventFrame } from '../../api/frames.js';
import type { Manifest } from '../../host/plugin-api.js';
import { RPC, RpcError, stringParam } from './jsonrpc.js';
import type { McpSession } from './protocol.js';
import type { DaemonUpstream } from './upstream.js';

interface ResourceSpec {
  resource: Resource;
  /** The daemon tool that reads it; the resource is listed while that tool is available. */
  tool: string;
  /** Whether an event pushed by the daemon changes it. */
  changedBy(frame: EventFrame): boolean;
}

export const EVENTS_URI = 'mcbridge://events';
export const SNAPSHOTS_URI = 'mcbridge://snapshots';

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
];

function available(manifest: Manifest): ResourceSpec[] {
  const tools = new Set(manifest.tools.filter((t) => t.available).map((t) => t.name));
  return RESOURCES.filter((r) => tools.has(r.tool));
}

/** Resource handlers for the sessions of one front-end, and who watches what. */
export class ResourceHub {
  private readonly watchers = new Map<McpSession, Set<string>>();
  /** Per session, the URIs with an update not yet sent (one notification per burst of events). */
  private readonly pending = new Map<McpSession, Set<string>>();

  constructor(private readonly upstream: DaemonUpstream) {
    upstream.on('game-event', (frame: EventFrame) => this.changed((spec) => spec.changedBy(frame)));
    // Events this front-end missed may include anything.
    upstream.on('game-gap', () => this.changed(() => true));
  }

  /** Register the resource methods on one session's server. */
  serve(server: McpSession): void {
    server.setRequestHandler('resources/list', async () => ({ resources: available(await this.upstream.surfaceNow()).map((r) => r.resource) }));
    server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
    server.setRequestHandler('resources/read', (params) => this.read(stringParam(params, 'uri', 'resources/read')));
    server.setRequestHandler('resources/subscribe', async (params) => {
      const uri = this.find(stringParam(params, 'uri', 'resources/subscribe')).resource.uri;
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

  private find(uri: string): ResourceSpec {
    const spec = RESOURCES.find((r) => r.resource.uri === uri);
    if (!spec) {
      throw new RpcError(RPC.resourceNotFound, `unknown resource '${uri}'; resources/list names the ones this server has (${RESOURCES.map((r) => r.resource.uri).join(', ')})`, { uri });
    }
    return spec;
  }

  private async read(uri: string): Promise<ReadResourceResult> {
    const spec = this.find(uri);
    const value = await this.upstream.call(spec.tool, {});
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }] };
  }

  private changed(affects: (spec: ResourceSpec) => boolean): void {
    const uris = RESOURCES.filter(affects).map((r) => r.resource.uri);
    for (const [server, watched] of this.watchers) {
      const due = uris.filter((uri) => watched.has(uri));
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

/**
 * The MCP front-end: one daemon connection shared by any number of MCP sessions, each an
 * `McpSession` (protocol.ts) whose `tools/list` and `tools/call` read the daemon's manifest.
 * Our tools arrive as JSON Schema and change at run time.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { McbridgeError } from '../../host/errors.js';
import type { Logger } from '../../util/log.js';
import type { Manifest, ManifestTool } from '../../host/plugin-api.js';
import { VERSION } from '../../util/version.js';
import { objectParam, RPC, RpcError, stringParam } from './jsonrpc.js';
import { McpSession, type RequestExtra } from './protocol.js';
import { GUIDE_PROMPT, guidePrompt, guideResult, INSTRUCTIONS } from './prompts.js';
import { errorResult, mcpArguments, projectTools, registryToolName, successResult, toolListKey } from './projection.js';
import { ResourceHub } from './resources.js';
import { checkTargetArgument, manifestTargets, TARGETS_ENTRY, TARGETS_METHOD } from './targets.js';
import { DaemonUpstream, type UpstreamOptions } from './upstream.js';

export const MCP_SERVER_NAME = 'mcbridge';

/** Answered locally, with the daemon's absence as the news, when no daemon answers. */
const LOCAL_WHEN_UNREACHABLE = new Set(['status', 'capabilities']);

export type McpFrontendOptions = UpstreamOptions;

export class McpFrontend {
  readonly upstream: DaemonUpstream;
  private readonly resources: ResourceHub;
  private readonly log: Logger;
  /** Initialized sessions, with the key of the tool list each was last given (null: none yet). */
  private readonly sessions = new Map<McpSession, { listed: string | null }>();
  /** The key of the list last announced; null before the first surface. */
  private listKey: string | null = null;
  /** The projection of the manifest it was made from: a list request only serialises it. */
  private projected: { manifest: Manifest; tools: Tool[]; key: string } | null = null;
  private sessionCounter = 0;

  constructor(options: McpFrontendOptions) {
    this.log = options.log;
    this.upstream = new DaemonUpstream(options);
    this.resources = new ResourceHub(this.upstream);
    this.upstream.on('surface', () => this.surfaceChanged());
  }

  start(): void {
    this.upstream.start();
  }

  /** The tools a client sees now. */
  tools(): Tool[] {
    return this.projection().tools;
  }

  /** Projected once per manifest (500 tools took tens of ms to project and compare per list). */
  private projection(): { tools: Tool[]; key: string } {
    const manifest = this.upstream.manifest;
    if (this.projected?.manifest !== manifest) {
      const tools = projectTools(manifest, this.upstream.target);
      this.projected = { manifest, tools, key: toolListKey(tools) };
    }
    return this.projected;
  }

  /** A server for one MCP session; connect it to that session's transport. */
  createServer(): McpSession {
    const session = ++this.sessionCounter;
    const server = new McpSession(
      { name: MCP_SERVER_NAME, title: 'mcbridge: Minecraft Agent Toolkit', version: VERSION },
      {
        capabilities: { tools: { listChanged: true }, prompts: {}, resources: { subscribe: true } },
        instructions: INSTRUCTIONS,
        debouncedNotificationMethods: ['notifications/tools/list_changed'],
      },
    );
    const state = { listed: null as string | null };
    server.setRequestHandler('tools/list', async () => {
      // The first answer is the one most clients keep: wait (bounded) for the daemon's surface.
      await this.upstream.settled();
      const { tools, key } = this.projection();
      state.listed = key;
      return { tools };
    });
    server.setRequestHandler('tools/call', (params, extra) => this.callTool(session, stringParam(params, 'name', 'tools/call'), objectParam(params, 'arguments', 'tools/call'), extra));
    server.setRequestHandler('prompts/list', async () => ({ prompts: [guidePrompt] }));
    server.setRequestHandler('prompts/get', async (params) => {
      const name = stringParam(params, 'name', 'prompts/get');
      if (name !== GUIDE_PROMPT) {
        throw new RpcError(RPC.invalidParams, `unknown prompt '${name}'; this server has '${GUIDE_PROMPT}'`);
      }
      await this.upstream.settled();
      return guideResult(this.upstream.manifest);
    });
    this.resources.serve(server);
    server.oninitialized = () => this.sessions.set(server, state);
    server.onclose = () => {
      this.sessions.delete(server);
      void this.resources.sessionEnded(server);
    };
    return server;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((s) => s.close().catch(() => {})));
    this.sessions.clear();
    await this.upstream.close();
  }

  private find(name: string): ManifestTool | undefined {
    return this.upstream.manifest.tools.find((t) => t.name === name);
  }

  /** `mc_targets`, on a daemon of several targets (targets.ts). */
  private targetsEntry(name: string): ManifestTool | undefined {
    return name === TARGETS_METHOD && manifestTargets(this.upstream.manifest) ? (TARGETS_ENTRY as ManifestTool) : undefined;
  }

  private surfaceChanged(): void {
    const { key } = this.projection();
    if (key === this.listKey) return;
    const first = this.listKey === null;
    this.listKey = key;
    // The daemon's first surface replaces nothing a client was told about unless a session listed.
    if (!first || [...this.sessions.values()].some((s) => s.listed !== null))
      this.log.info({ tools: this.tools().map((t) => t.name), sessions: this.sessions.size }, 'the tool surface changed; notifying MCP clients');
    // Only sessions that were given another list need to hear about it.
    for (const [server, state] of this.sessions) {
      if (state.listed !== null && state.listed !== key) void server.sendToolListChanged().catch(() => {});
    }
  }

  private async callTool(session: number, mcpName: string, args: Record<string, unknown>, extra: RequestExtra): Promise<CallToolResult> {
    const started = Date.now();
    const name = registryToolName(mcpName);
    let outcome = 'ok';
    try {
      // The daemon's surface, or the default one while none has arrived (loaded then).
      await this.upstream.surfaceNow();
      // A plugin tool is known only once the daemon's manifest is in.
      if (name !== null && !this.find(name) && this.upstream.surfaceOrigin === 'default') await this.upstream.settled();
      const entry = name === null ? undefined : (this.find(name) ?? this.targetsEntry(name));
      if (!entry || name === null) {
        throw new McbridgeError('unknown_method', `unknown tool '${mcpName}'. Call tools/list for the tools this server offers now (all named mc_<tool>).`, { method: mcpName });
      }
      checkTargetArgument(this.upstream.manifest, args);
      if (extra.signal.aborted) throw new McbridgeError('cancelled', `the call to '${name}' was cancelled`);
      try {
        const progress = progressForwarder(extra);
        const result = await this.upstream
          .call(name, mcpArguments(entry, args), {
            signal: extra.signal,
            onProgress: progress?.forward,
            session: extra.sessionId?.slice(0, 8) ?? String(session),
          })
          .finally(() => progress?.sent());
        return successResult(result, entry);
      } catch (err) {
        if (LOCAL_WHEN_UNREACHABLE.has(name) && err instanceof McbridgeError && err.details?.reason === 'daemon_unreachable') {
          const { localCapabilities, localStatus } = await import('../../daemon/default-surface.js');
          const local = name === 'status' ? localStatus : localCapabilities;
          const address = this.upstream.daemonAddress;
          // In the tool's own shape (its output schema), with the daemon's absence as the news.
          return successResult(local(this.upstream.defaultVantage, address, this.upstream.lastError), entry);
        }
        throw err;
      }
    } catch (err) {
      const result = errorResult(err);
      outcome = err instanceof McbridgeError ? err.code : 'internal';
      return result;
    } finally {
      this.log.info({ session, tool: mcpName, ms: Date.now() - started, outcome }, 'mcp tool call');
    }
  }
}

/**
 * Daemon progress frames as MCP progress notifications, only when the client asked (and only
 * increasing). `sent` settles once every one is written: the result waits for it, or the last
 * progress (often the one that says how it ended) would arrive after the result, and be dropped.
 */
function progressForwarder(extra: RequestExtra) {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let last = -Infinity;
  let pending: Promise<unknown> = Promise.resolve();
  return {
    forward: (frame: { progress: number; total?: number; message?: string }) => {
      if (!(frame.progress > last)) return;
      last = frame.progress;
      const params: { progressToken: string | number; progress: number; total?: number; message?: string } = { progressToken: token, progress: frame.progress };
      if (frame.total !== undefined) params.total = frame.total;
      if (frame.message !== undefined) params.message = frame.message;
      pending = pending.then(() => extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {}));
    },
    // The SDK's client handles a notification a microtask late but a response at once: read in
    // one chunk, a last progress would find its handler gone. A few ms between them mostly keeps
    // them apart (docs/decisions.md, "The last progress before a result").
    sent: () => (last === -Infinity ? pending : pending.then(() => new Promise((r) => setTimeout(r, 5)))),
  };
}

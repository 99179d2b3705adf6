import type { z } from 'zod';
import type { Logger } from '../util/log.js';
import type { Cursor, EventPage, EventStats, RecordedEvent, WaitForOptions } from './events/event-log.js';
import type { EventFollower, FollowOptions } from './events/follow.js';
import type { Vantage } from './link/discovery.js';
import type { LinkState, LinkStatus, ModReply, RequestOptions } from './link/mod-link.js';
import type { VerbRule } from './link/verbs.js';
import type { LaunchConfig } from './launch-schema.js';

export type { VerbRule, VerbSpec } from './link/verbs.js';

/** The host API version plugins declare; bumped only on breaking changes to this file. */
export const HOST_API_VERSION = 1;

export interface ToolAnnotations {
  /** Does not change the game or the daemon. Read-only mode keeps only these. */
  readOnly?: boolean;
  /** May destroy or overwrite something (kill entities, overwrite a snapshot). */
  destructive?: boolean;
  /** Calling it twice with the same arguments has no further effect. */
  idempotent?: boolean;
  /** Reaches outside the game (network, other hosts). */
  openWorld?: boolean;
}

export type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;

/**
 * Where a tool applies. A tool outside its scope is hidden like one whose CAPS are missing.
 * Each field takes one value or a list; an omitted field matches everything.
 */
export interface ToolScope {
  vantage?: Vantage | Vantage[];
  /** The `instance` the mod's hello names (e.g. "server", "client"). */
  instance?: string | string[];
  /** Minecraft versions from the mod's hello; "1.21" matches "1.21.4". */
  minecraft?: string | string[];
  /**
   * The link's transport: `legacy` for tools that need the world's disk (fork, restore), which the
   * control protocol never treats as local; `control` for the protocol's own (leases, request_status).
   */
  transport?: 'legacy' | 'control' | Array<'legacy' | 'control'>;
}

/** What a tool sees of the event log. */
export interface EventsView {
  readonly streamId: string;
  readonly lastSeq: number;
  query(q: { since?: Cursor; limit?: number; filter?: (e: RecordedEvent) => boolean }): EventPage;
  /** Resolves with the first matching event after `since` (default: now); honours the tool's signal. */
  waitFor(match: (event: RecordedEvent) => boolean, options?: Omit<WaitForOptions, 'signal'>): Promise<RecordedEvent>;
  stats(): EventStats;
  /**
   * Record an event of the daemon's own (a server crashed, a handle settled) beside the mod's:
   * `type` names it, `fields` are its payload; it gets `origin: 'mcbridge'`, a seq and an id like
   * every event, and reaches subscribers, webhooks and `events_since`.
   */
  emit(type: string, fields?: Record<string, unknown>): RecordedEvent;
  /**
   * Every event recorded after `since` (default: now), as it arrives: `for await (const item of
   * ctx.events.follow())`. Yields `{ kind: 'gap' }` instead of skipping silently when events it had
   * not yet yielded left the ring. Ends on `break`, on `options.signal`, and with the context
   * (a tool's call, a service's plugin stopping).
   */
  follow(options?: FollowOptions): EventFollower;
  /**
   * Visit the buffered events after `since`, oldest first, without copying them into a page (a
   * read bounded by the ring); `visit` returning `false` stops it. The page it returns holds no
   * events but says what the ring lost (`evicted`) and where to go on from (`next`).
   */
  scan(since: Cursor, visit: (event: RecordedEvent) => boolean | void): EventPage;
}

/** What `status` reports; the daemon adds sections (e.g. `config`, `api`), services theirs as `plugin:service`. */
export interface HostStatus {
  version: string;
  /** The target (game server) this host serves; `default` on a daemon with one. */
  target: string;
  connected: boolean;
  state: LinkState;
  /** How the mod is reached: its legacy loopback socket, or control protocol 1 over TLS. */
  transport: LinkStatus['transport'];
  vantage: Vantage;
  instance: string | null;
  mod: LinkStatus['mod'];
  discovery: LinkStatus['discovery'];
  capabilities: string[] | null;
  capsSource: CapsSource;
  hello: LinkStatus['hello'];
  lastError: string | null;
  link: Pick<LinkStatus, 'connectedAt' | 'inFlight' | 'queued' | 'oldestQueuedMs' | 'owed' | 'stats'>;
  /** A control target's session: address, trust, credential source, permissions, run, limits, event counts. */
  control?: Record<string, unknown>;
  events: EventStats;
  tools: { total: number; available: number; revision: number };
  plugins: Array<Omit<PluginInfo, 'tools' | 'description'>>;
  uptimeSeconds: number;
  /** Tool calls running now (status itself among them), the oldest first. */
  calls: { inProgress: number; oldest: Array<{ tool: string; runningMs: number }> };
  [section: string]: unknown;
}

/** A target's config keys beyond its link, as plugins read them (paths absolute). */
export interface TargetOptionsView {
  /** A server the daemon runs (docs/servers.md). */
  readonly launch?: LaunchConfig;
  /** The server's log file, for servers the daemon does not run (docs/logs.md). */
  readonly logFile?: string;
}

/** Read-only facts about the host, for status-like tools. */
export interface HostView {
  /** The target (game server) this plugin instance serves: each target sets its plugins up on its own. */
  readonly target: string;
  /** How this target's mod is reached; fixed for the host's life. */
  readonly transport: LinkStatus['transport'];
  /** Whether the mod link is up now: the one fact of `status()` a tool often needs, without building the rest. */
  readonly connected: boolean;
  /** The daemon's state folder, for a plugin's files that outlive a restart (a folder of its own inside it); null: memory only. */
  readonly stateDir: string | null;
  /** This target's config keys beyond its link, validated by the daemon (`launch`, `logFile`). */
  readonly targetOptions: TargetOptionsView;
  /**
   * Objects this target's plugins share, by a name the providing plugin documents (e.g. the
   * kit's `serverConsole`): one map per target, like a Fastify decorator scoped to it.
   */
  readonly shared: Map<string, unknown>;
  /** Try the mod link now rather than after its backoff pause (a server was just started). */
  retryLink(): void;
  status(): HostStatus;
  surface(): Surface;
  manifest(): Manifest;
  plugins(): PluginInfo[];
}

/** What a tool's `run(args, ctx)` gets; `C` is its plugin's options type (see `defineTool.withOptions`). */
export interface ToolContext<C = unknown> {
  /** One verb line to the mod; resolves with its reply, rejects with a typed error. */
  request(line: string, options?: Omit<RequestOptions, 'signal'>): Promise<ModReply>;
  /**
   * Another tool, under the same CAPS and policy rules. It is cancelled with this call unless
   * `options.signal` gives it a signal of its own (e.g. for clean-up after a cancel).
   */
  call(tool: string, args?: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
  events: EventsView;
  /** Advertised capabilities; null when unknown (legacy mod) or not yet known. */
  caps: ReadonlySet<string> | null;
  vantage: Vantage;
  /** Aborted when the caller cancels. */
  signal: AbortSignal;
  progress(done: number, total?: number, message?: string): void;
  log: Logger;
  /** This plugin's validated options. */
  config: C;
  /** The config file's folder (the working directory without one): resolve a plugin's own relative paths against it. */
  readonly configDir: string;
  host: HostView;
  /** The event cursor when this call began: `events.query({ since: ctx.startCursor })` is what happened since. */
  readonly startCursor: Cursor;
  /**
   * The first event that matches, looking from just after the previous match of this call, or
   * from when the call began: an event that came back with the command just sent is not missed.
   * Default timeout 30 s (`Infinity`: none); ends early (rejects) when the call is cancelled.
   */
  waitFor(match: (event: RecordedEvent) => boolean, options?: { timeoutMs?: number; since?: number | Cursor }): Promise<RecordedEvent>;
  /** Milliseconds of wall time; ends early (rejects) when the call is cancelled. */
  sleep(ms: number): Promise<void>;
  /**
   * Run `cleanup` when the call ends: success, failure or cancel, newest first. It gets a context
   * of its own that is not cancelled with the call (10 s in all), so it can undo what the call
   * started (`defer((ctx) => ctx.call('command', { command: 'tick unfreeze' }))`). A failing
   * clean-up fails the call, with its message. The handle runs it early (`now()`: e.g. unfreeze
   * on the success path and report) or disarms it (`cancel()`); either way it runs at most once.
   */
  defer(cleanup: (ctx: this) => unknown): DeferredCleanup;
}

/** What `ctx.defer` returns: run the clean-up now, or never. */
export interface DeferredCleanup {
  /**
   * Run it now, off the queue, with a context not cancelled with the call (10 s bound); rejects
   * with its failure, which then does not fail the call. Later calls get the same outcome.
   */
  now(): Promise<void>;
  /** Take it off the queue unrun; does nothing once it ran. */
  cancel(): void;
}

export interface ToolSpec<I extends AnyObjectSchema = AnyObjectSchema, O extends z.ZodType | undefined = z.ZodType | undefined, C = unknown> {
  /** ^[a-z][a-z0-9_]{0,47}$; MCP shows it as mc_<name>. */
  name: string;
  /** Written for a model: when to use it, what it costs, what to use instead. */
  description: string;
  input: I;
  output?: O;
  /** CAPS tokens that must all be advertised (alias spellings accepted). */
  requires?: string[];
  annotations?: ToolAnnotations;
  /**
   * Other tools this one calls through `ctx.call`. While any of them is hidden (policy, CAPS,
   * scope), this tool is hidden too, with the reason.
   */
  uses?: string[];
  /** Only for some vantages, instances or game versions. */
  only?: ToolScope;
  /**
   * Older parameter names still accepted, e.g. `{ uuid: 'player' }`: the predecessor's clients
   * keep working while the schema shows one name. Giving both spellings is invalid.
   */
  paramAliases?: Record<string, string>;
  /**
   * Argument values an MCP client gets when it leaves the key out; the local API and `ctx.call`
   * keep the schema's own. For a tool whose predecessor answered MCP clients differently from
   * scripts (its `mc_entities` summarised, its local `entities` did not: docs/compatibility.md).
   */
  mcpDefaults?: Record<string, unknown>;
  /**
   * The tool answers with the mod's reply exactly as `ctx.request` resolved it, untouched. The
   * local API then sends the mod's own JSON text instead of encoding the object again, and the
   * host does not check it against `output` (which still describes it to MCP clients): the
   * cheapest call there is. A tool that builds or changes its result must not set this.
   */
  passthrough?: boolean;
  /**
   * How a read-only call that names several targets (`target: '*'` or a list) is answered on a
   * daemon of several game servers: `each` (default) runs it on every one and answers per
   * target; `first` answers with the first target that succeeds and cancels the others (a wait
   * for an event on any of them). The tool itself only ever sees its own target.
   */
  acrossTargets?: 'each' | 'first';
  run(args: z.infer<I>, ctx: ToolContext<C>): Promise<O extends z.ZodType ? z.infer<O> : unknown>;
}

/** A call about to run on this target, as a `beforeCall` hook sees it. */
export interface BeforeCall {
  tool: string;
  /** The mod capabilities the tool needs: empty for tools that answer without the game. */
  requires: readonly string[];
  /** A progress message on the call (MCP progress, the CLI's spinner). */
  progress(message: string): void;
}
export type BeforeCallHook = (call: BeforeCall) => void | Promise<void>;

export interface ServiceContext<C = unknown> {
  log: Logger;
  config: C;
  /** The config file's folder (the working directory without one): resolve a plugin's own relative paths against it. */
  readonly configDir: string;
  events: EventsView;
  host: HostView;
  call(tool: string, args?: Record<string, unknown>): Promise<unknown>;
  /**
   * Runs `hook` before every call on this target, ahead of the CAPS gate, until the plugin stops
   * (or the returned function is called). A hook that throws fails the call with its error.
   */
  beforeCall(hook: BeforeCallHook): () => void;
  /** Aborted when the host stops. */
  signal: AbortSignal;
}

/** How a service stops: returned by its `start`, or its `stop` method. */
export type ServiceStop = () => void | Promise<void>;

export interface Service<C = unknown> {
  name: string;
  /**
   * Start it. It may return its own stop, which keeps what it started in one place (no state
   * kept between `start` and `stop`); the host calls that, then `stop` if both are given.
   */
  start(ctx: ServiceContext<C>): void | ServiceStop | Promise<void | ServiceStop>;
  stop?(): void | Promise<void>;
  /** Shown in `status` under the plugin's name. */
  status?(): Record<string, unknown>;
}

export type PluginContext<C = unknown> = ServiceContext<C>;

/** `C` is inferred from `options` by `definePlugin`: its tools, services and setup see it as `ctx.config`. */
export interface Plugin<C = unknown> {
  name: string;
  version: string;
  apiVersion: number;
  description?: string;
  /**
   * How a model should use this plugin's tools, a sentence or two for the MCP `mc_guide` prompt,
   * shown while one of its tools is available. Name a tool in backticks by its registry name
   * (`` `command_output` ``); each front-end spells it its own way (MCP: `mc_command_output`).
   */
  guide?: string;
  requires?: {
    /** CAPS every tool of this plugin needs, added to each tool's own. */
    caps?: string[];
    /** The mcbridge versions it works with, as a semver range (e.g. ">=0.1.0", "^1.2.0"). */
    mcbridge?: string;
  };
  /** Validates this plugin's slice of the config. */
  options?: z.ZodType<C>;
  // biome-ignore lint/suspicious/noExplicitAny: tools keep their own input types; the registry needs only the common shape
  tools?: ToolSpec<any, any, C>[];
  services?: Service<C>[];
  setup?(ctx: PluginContext<C>): void | Promise<void>;
  dispose?(): void | Promise<void>;
  /**
   * The mod verbs this plugin's tools send and the reply types that answer them, e.g.
   * `{ STATE: { replies: ['state'] } }`; a function of the argument where that decides the
   * reply (`CONTEXT` vs `CONTEXT <id>`). Replies carry no ids: the link matches them by type.
   */
  verbs?: Record<string, VerbRule>;
}

export type PluginSource = 'built-in' | 'config' | 'npm';

export interface PluginInfo {
  name: string;
  version: string;
  source: PluginSource;
  /** Where it came from: the package directory (npm) or the config file (config). */
  from?: string;
  description?: string;
  tools: string[];
  state: 'loaded' | 'failed';
  error?: string;
}

/** What hides a tool: missing CAPS, read-only mode, the allow/deny lists, its scope, or a hidden tool it calls. */
export type HiddenBy = 'caps' | 'read-only' | 'policy' | 'scope' | 'dependency';

export interface ToolAvailability {
  name: string;
  available: boolean;
  missing?: string[];
  reason?: string;
  hiddenBy?: HiddenBy;
  /** Upstream mod issue a missing capability came from (player, context). */
  dependency?: string;
}

export interface Surface {
  vantage: Vantage;
  instance: string | null;
  capsSource: CapsSource;
  modCapabilities: string[] | null;
  supported: string[];
  unsupported: ToolAvailability[];
  note?: string;
}

/** Where the caps used for filtering came from. */
export type CapsSource = 'mod' | 'last-known' | 'default' | 'unknown';

export interface ManifestTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: ToolAnnotations;
  requires: string[];
  plugin: string;
  uses?: string[];
  only?: ToolScope;
  available: boolean;
  missing?: string[];
  reason?: string;
  hiddenBy?: HiddenBy;
  /** The upstream mod issue the tool's capability came from (player, context), supported or not. */
  dependency?: ToolDependency;
  /** What the MCP front-end fills in for arguments a client leaves out (ToolSpec.mcpDefaults). */
  mcpDefaults?: Record<string, unknown>;
}

export interface ToolDependency {
  /** e.g. `mc-agent-interface-mod#1` */
  issue: string;
  label: string;
  url: string;
}

export interface Manifest {
  revision: number;
  vantage: Vantage;
  capsSource: CapsSource;
  connected: boolean;
  tools: ManifestTool[];
  /** The guides of the plugins with a tool available now, in load order. */
  guides?: PluginGuide[];
}

/** A plugin's `guide`, as the manifest carries it to the front-ends. */
export interface PluginGuide {
  plugin: string;
  text: string;
}

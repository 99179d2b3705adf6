import { EventEmitter, setMaxListeners } from 'node:events';
import path from 'node:path';
import { describeThrown, McbridgeError, toMcbridgeError } from './errors.js';
import { EventLog } from './events/event-log.js';
import { eventsView } from './events/events-view.js';
import { CallHooks } from './call-hooks.js';
import { CallScope } from './call-scope.js';
import { CallContext, type CallContextOptions, type CallHost } from './call-context.js';
import { Cancellation, settleOnCancel } from './cancel.js';
import { DEFAULT_CAPS, normalizeCaps } from './link/caps.js';
import type { Vantage } from './link/discovery.js';
import { ModLink, type ModLinkOptions } from './link/mod-link.js';
import { ControlLink, type ControlLinkOptions } from './link/control/control-link.js';
import type { Link } from './link/link.js';
import { silentLogger, type Logger } from '../util/log.js';
import { validatePlugin } from './define.js';
import type { ToolPolicy } from './registry/policy.js';
import { ToolRegistry, type CapsView, type RegisteredTool } from './registry/registry.js';
import { applyParamAliases, describeZodError, parseParams } from './params.js';
import type { HostStatus, TargetOptionsView, HostView, Manifest, Plugin, PluginContext, PluginInfo, PluginSource, Service, ServiceStop, Surface, ToolContext } from './plugin-api.js';
import { VERSION } from '../util/version.js';
import { UsableTools } from './usable-tools.js';

export interface PluginEntry {
  plugin: Plugin;
  source?: PluginSource;
  options?: unknown;
  /** Where it came from (package directory, config file), shown by `mcbridge plugins`. */
  from?: string;
  /** The config file's folder: the plugin's relative paths mean paths from there (default: the working directory). */
  configDir?: string;
}

type Wired = 'vantage' | 'log' | 'onEvent' | 'verbs';
/** The mod link: the legacy loopback socket (the default), or control protocol 1 over TLS. */
export type LinkSettings = (Omit<ModLinkOptions, Wired> & { transport?: 'legacy' }) | (Omit<ControlLinkOptions, Wired> & { transport: 'control' });

export interface HostOptions {
  /** The target (game server) this host serves, stamped on its events; a daemon's single one is `default`. */
  target?: string;
  vantage?: Vantage;
  link?: LinkSettings;
  /** Event ring capacity. */
  buffer?: number;
  /** Event ring bound in bytes of JSON (default 64 MiB). */
  bufferBytes?: number;
  log?: Logger;
  policy?: ToolPolicy;
  plugins?: PluginEntry[];
  /** How long a plugin's setup (and each service start) may take; default 10 s. */
  setupTimeoutMs?: number;
  /** How long a cancelled tool may take to stop before its call is answered `cancelled` anyway; default 10 s. */
  cancelGraceMs?: number;
  /** The config file's folder, which plugins resolve their paths against (`ctx.configDir`); default: the working directory. */
  configDir?: string;
  /**
   * How a tool's or a plugin's `ctx.call` reaches a tool: a daemon with several targets routes
   * a call whose args name another target there. Default: this host.
   */
  route?: (name: string, args: unknown, options: CallOptions) => Promise<unknown>;
  /** The daemon's state folder (ledgers, plugins' files); null or absent: memory only. */
  stateDir?: string | null;
  /** The target's config keys beyond its link (`launch`, `logFile`), validated by the daemon. */
  targetOptions?: TargetOptionsView;
}

export const DEFAULT_SETUP_TIMEOUT_MS = 10_000;

/** How a call is made: its cancel (an AbortSignal, or the API's cheaper Cancellation), progress, and lenient params. */
export type CallOptions = CallContextOptions;

interface PluginRecord {
  plugin: Plugin;
  source: PluginSource;
  from?: string;
  configDir?: string;
  config: unknown;
  tools: string[];
  state: 'loaded' | 'failed';
  error?: string;
  stopController: AbortController;
  /** Started services and the stop each `start` returned, if any. */
  started: Array<{ service: Service; stop: ServiceStop | null }>;
}

export { describeZodError };

/**
 * The host: it owns the mod link, the event log and the tool registry, loads plugins,
 * and runs tool calls with a context. Front-ends talk to it and to nothing else.
 */
export class Host extends EventEmitter {
  readonly target: string;
  readonly vantage: Vantage;
  readonly configDir: string;
  private readonly setupTimeoutMs: number;
  private readonly cancelGraceMs: number;
  readonly log: Logger;
  readonly events: EventLog;
  readonly link: Link;
  readonly registry: ToolRegistry;
  private readonly usable: UsableTools;
  /** What each call's context reaches of the host (call-context.ts). */
  private readonly callHost: CallHost;
  private readonly records = new Map<string, PluginRecord>();
  private readonly statusSections = new Map<string, () => unknown>();
  private readonly startedAt = Date.now();
  /** Tool calls running now (a long `wait`, a fork), for status: what is the daemon busy with. */
  private readonly running = new Set<{ tool: string; startedAt: number }>();
  private started = false;
  private lastSurfaceKey = '';
  private readonly stateDir: string | null;
  private readonly targetOptions: TargetOptionsView;
  /** What this target's plugins share (HostView.shared). */
  private readonly shared = new Map<string, unknown>();
  private readonly callHooks = new CallHooks();

  /** Where `ctx.call` goes (see `HostOptions.route`). */
  private readonly route: (name: string, args: unknown, options: CallOptions) => Promise<unknown>;

  constructor(options: HostOptions = {}) {
    super();
    this.route = options.route ?? ((name, args, opts) => this.call(name, args, opts));
    this.target = options.target ?? 'default';
    this.vantage = options.vantage ?? 'server';
    this.configDir = path.resolve(options.configDir ?? process.cwd());
    this.stateDir = options.stateDir ?? null;
    this.targetOptions = Object.freeze({ ...options.targetOptions });
    this.log = options.log ?? silentLogger();
    this.setupTimeoutMs = options.setupTimeoutMs ?? DEFAULT_SETUP_TIMEOUT_MS;
    this.cancelGraceMs = options.cancelGraceMs ?? DEFAULT_SETUP_TIMEOUT_MS;
    this.events = new EventLog({ capacity: options.buffer, maxBytes: options.bufferBytes, target: this.target });
    this.registry = new ToolRegistry(options.policy);
    const wiring = {
      vantage: this.vantage,
      verbs: (verb: string, arg: string) => this.registry.verbs.lookup(verb, arg),
      log: this.log.child({ part: 'link' }),
      onEvent: (event: Record<string, unknown>, line?: string) => this.events.record(event, line),
    };
    const settings = options.link;
    this.link = settings?.transport === 'control' ? new ControlLink({ ...settings, ...wiring }) : new ModLink({ ...settings, ...wiring });
    // CAPS and connection changes change what is available: a new surface revision.
    this.callHost = {
      link: this.link,
      registry: this.registry,
      vantage: this.vantage,
      log: this.log,
      configDir: this.configDir,
      call: (name, args, opts) => this.route(name, args, opts),
      eventsView: (signal, scope) => eventsView(this.events, signal, scope),
      view: () => this.view(),
    };
    this.usable = new UsableTools(this.registry, this.link, () => this.capsView());
    this.link.on('caps', () => this.surfaceMayHaveChanged());
    this.link.on('state', () => this.surfaceMayHaveChanged());
    this.registry.on('change', () => this.emit('surface', this.manifest()));
    for (const entry of options.plugins ?? []) this.use(entry.plugin, entry);
  }

  /**
   * Load a plugin: validate it and its options, then register its tools. On a started host its
   * setup runs at once; the promise settles when it is done (a failing setup is reported, not thrown).
   */
  use(candidate: Plugin, entry: Omit<PluginEntry, 'plugin'> = {}): Promise<void> {
    const source = entry.source ?? 'config';
    const plugin = validatePlugin(candidate, source);
    if (this.records.has(plugin.name)) {
      throw new McbridgeError('invalid_params', `plugin '${plugin.name}' is loaded twice; list it once`);
    }
    let config: unknown = entry.options;
    if (plugin.options) {
      const parsed = plugin.options.safeParse(entry.options ?? {});
      if (!parsed.success) {
        throw new McbridgeError('invalid_params', `options of plugin '${plugin.name}' are invalid: ${describeZodError(parsed.error, 'options')}`);
      }
      config = parsed.data;
    }
    const tools = this.registry.registerPlugin(plugin).map((t) => t.name);
    const stopController = new AbortController();
    // One stop signal serves every wait a plugin's services start; many at once is normal.
    setMaxListeners(0, stopController.signal);
    const record: PluginRecord = { plugin, source, config, tools, state: 'loaded', stopController, started: [] };
    if (entry.from !== undefined) record.from = entry.from;
    if (entry.configDir !== undefined) record.configDir = entry.configDir;
    this.records.set(plugin.name, record);
    return this.started ? this.setupPlugin(record) : Promise.resolve();
  }

  /** Unload a plugin: stop its services, dispose it and remove its tools. False if it was not loaded. */
  async remove(name: string): Promise<boolean> {
    const record = this.records.get(name);
    if (!record) return false;
    this.records.delete(name);
    this.registry.unregisterPlugin(name);
    if (record.state === 'loaded' && this.started) await this.stopPlugin(record);
    return true;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // A snapshot: a plugin `use`d while an earlier setup is awaited is set up by `use` itself.
    for (const record of [...this.records.values()]) await this.setupPlugin(record);
    this.link.start();
  }

  async stop(): Promise<void> {
    await this.link.stop();
    // Only a started host set its plugins up; dispose each of them once.
    if (!this.started) return;
    this.started = false;
    for (const record of [...this.records.values()].reverse()) {
      if (record.state === 'loaded') await this.stopPlugin(record);
    }
  }

  /** Stop the services a plugin started (newest first), then dispose it. */
  private async stopPlugin(record: PluginRecord): Promise<void> {
    record.stopController.abort();
    for (const { service, stop } of record.started.splice(0).reverse()) {
      try {
        await stop?.();
        await service.stop?.();
      } catch (err) {
        this.log.warn({ plugin: record.plugin.name, service: service.name, err: (err as Error).message }, 'service failed to stop');
      }
    }
    try {
      await record.plugin.dispose?.();
    } catch (err) {
      this.log.warn({ plugin: record.plugin.name, err: (err as Error).message }, 'plugin dispose failed');
    }
  }

  /** A plugin whose setup or service start throws is reported and left out; the rest keep serving. */
  private async setupPlugin(record: PluginRecord): Promise<void> {
    const { plugin } = record;
    const ctx = this.pluginContext(record);
    try {
      await this.bounded(record, 'setup', () => plugin.setup?.(ctx));
      for (const service of plugin.services ?? []) {
        const stop = await this.bounded(record, `service '${service.name}' start`, () => service.start(ctx));
        record.started.push({ service, stop: typeof stop === 'function' ? (stop as ServiceStop) : null });
      }
    } catch (err) {
      record.state = 'failed';
      // Whatever this plugin already started stops with it.
      await this.stopPlugin(record);
      // `throw undefined` / `Promise.reject()` must not crash start() for every other plugin.
      record.error = describeThrown(err);
      this.registry.unregisterPlugin(plugin.name);
      record.tools = [];
      this.log.error({ plugin: plugin.name, err: record.error }, `plugin '${plugin.name}' failed to start and was left out`);
    }
  }

  /**
   * A plugin's setup or service start that never settles must not keep the daemon off the game:
   * past the bound the plugin's stop signal fires and it is left out, named in the log and status.
   */
  private bounded(record: PluginRecord, what: string, step: () => unknown): Promise<unknown> {
    const ms = this.setupTimeoutMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        record.stopController.abort();
        reject(new Error(`${what} did not finish within ${ms / 1000} s; the plugin was left out (check what its ${what} waits for)`));
      }, ms);
      Promise.resolve()
        .then(step)
        .then(
          (value) => {
            clearTimeout(timer);
            resolve(value);
          },
          (err: unknown) => {
            clearTimeout(timer);
            reject(err);
          },
        );
    });
  }

  private pluginContext(record: PluginRecord): PluginContext {
    return {
      log: this.log.child({ plugin: record.plugin.name }),
      config: record.config,
      configDir: record.configDir ?? this.configDir,
      events: eventsView(this.events, record.stopController.signal),
      host: this.view(),
      call: (tool, args) => this.route(tool, args ?? {}, { signal: record.stopController.signal }),
      beforeCall: (hook) => this.callHooks.add(hook, record.stopController.signal),
      signal: record.stopController.signal,
    };
  }

  addStatusSection(name: string, section: () => unknown): void {
    this.statusSections.set(name, section);
  }

  // ---- the surface ---------------------------------------------------------------

  /** The caps used for filtering: live, last known, or the documented default. */
  capsView(): CapsView {
    const status = this.link.capsInfo();
    const { instance, minecraft } = status;
    const link = { transport: this.link.transport, permissions: this.link.permissions };
    if (status.connected) {
      return { caps: this.link.caps, source: this.link.caps ? 'mod' : 'unknown', vantage: this.vantage, instance, minecraft, ...link };
    }
    if (status.capsSource !== null || this.link.caps !== null) {
      return { caps: this.link.caps, source: 'last-known', vantage: this.vantage, instance, minecraft, ...link };
    }
    return { caps: normalizeCaps([...DEFAULT_CAPS[this.vantage]]), source: 'default', vantage: this.vantage, instance, minecraft, ...link };
  }

  surface(): Surface {
    const view = this.capsView();
    const supported: string[] = [];
    const unsupported: Surface['unsupported'] = [];
    for (const tool of this.registry.list()) {
      const a = this.registry.availability(tool, view);
      if (a.available) supported.push(tool.name);
      else unsupported.push({ name: a.name, available: false, missing: a.missing, reason: a.reason, ...(a.dependency ? { dependency: a.dependency } : {}) });
    }
    const surface: Surface = {
      vantage: this.vantage,
      instance: view.instance,
      capsSource: view.source,
      modCapabilities: view.caps ? [...view.caps].sort() : null,
      supported,
      unsupported,
    };
    if (view.caps === null) surface.note = 'the mod did not advertise capabilities; the bridge is not filtering its surface';
    return surface;
  }

  manifest(): Manifest {
    const view = this.capsView();
    const tools = this.registry.manifestTools(view);
    const shown = new Set(tools.filter((t) => t.available).map((t) => t.plugin));
    const guides = [...this.records.values()].flatMap(({ plugin }) => (plugin.guide && shown.has(plugin.name) ? [{ plugin: plugin.name, text: plugin.guide }] : []));
    return {
      revision: this.registry.revision,
      vantage: this.vantage,
      capsSource: view.source,
      connected: this.link.connected,
      tools,
      guides,
    };
  }

  private surfaceMayHaveChanged(): void {
    const m = this.manifest();
    const key = JSON.stringify([m.connected, m.capsSource, m.tools.map((t) => [t.name, t.available])]);
    if (key === this.lastSurfaceKey) return;
    this.lastSurfaceKey = key;
    this.registry.bump();
  }

  plugins(): PluginInfo[] {
    return [...this.records.values()].map((r) => {
      const info: PluginInfo = { name: r.plugin.name, version: r.plugin.version, source: r.source, tools: r.tools, state: r.state };
      if (r.from) info.from = r.from;
      if (r.plugin.description) info.description = r.plugin.description;
      if (r.error) info.error = r.error;
      return info;
    });
  }

  status(): HostStatus {
    const link = this.link.status();
    const manifest = this.manifest();
    const out: HostStatus = {
      version: VERSION,
      target: this.target,
      connected: link.connected,
      state: link.state,
      transport: link.transport,
      vantage: this.vantage,
      instance: link.instance,
      mod: link.mod,
      discovery: link.discovery,
      capabilities: link.capabilities,
      capsSource: manifest.capsSource,
      hello: link.hello,
      lastError: link.lastError,
      link: {
        connectedAt: link.connectedAt,
        inFlight: link.inFlight,
        queued: link.queued,
        oldestQueuedMs: link.oldestQueuedMs,
        owed: link.owed,
        stats: link.stats,
        ...(link.writes ? { writes: link.writes } : {}),
      },
      ...(link.control ? { control: link.control } : {}),
      events: this.events.stats(),
      tools: { total: manifest.tools.length, available: manifest.tools.filter((t) => t.available).length, revision: manifest.revision },
      plugins: this.plugins().map((p) => ({
        name: p.name,
        version: p.version,
        source: p.source,
        state: p.state,
        ...(p.from ? { from: p.from } : {}),
        ...(p.error ? { error: p.error } : {}),
      })),
      uptimeSeconds: Math.round(((Date.now() - this.startedAt) / 1000) * 1000) / 1000,
      calls: this.callsInProgress(),
    };
    for (const [name, section] of this.statusSections) out[name] = section();
    for (const record of this.records.values()) {
      for (const service of record.plugin.services ?? []) {
        if (service.status) out[`${record.plugin.name}:${service.name}`] = service.status();
      }
    }
    return out;
  }

  /** The calls running now, oldest first (at most 20 listed), each with how long it has run. */
  private callsInProgress(): HostStatus['calls'] {
    const now = Date.now();
    const running = [...this.running].sort((a, b) => a.startedAt - b.startedAt);
    return { inProgress: running.length, oldest: running.slice(0, 20).map((c) => ({ tool: c.tool, runningMs: now - c.startedAt })) };
  }

  view(): HostView {
    const link = this.link;
    return {
      target: this.target,
      transport: link.transport,
      stateDir: this.stateDir,
      targetOptions: this.targetOptions,
      shared: this.shared,
      get connected() {
        return link.connected;
      },
      retryLink: () => link.retryNow(),
      status: () => this.status(),
      surface: () => this.surface(),
      manifest: () => this.manifest(),
      plugins: () => this.plugins(),
    };
  }

  // ---- calls ---------------------------------------------------------------------

  /** Run a tool by name: gate by policy and CAPS, validate params, run with a context. */
  async call(name: string, args: unknown, options: CallOptions = {}): Promise<unknown> {
    const tool = this.registry.get(name);
    if (!tool) {
      throw new McbridgeError('unknown_method', `unknown method '${name}'. Call "tools" (or run \`mcbridge tools\`) for the methods this daemon serves.`, { method: name });
    }
    if (this.callHooks.size > 0) {
      await this.callHooks.run({ tool: name, requires: tool.requires, progress: (message) => options.onProgress?.({ progress: 0, message }) });
    }
    const refusal = this.usable.has(tool) ? null : this.registry.refusal(tool, this.capsView());
    if (refusal) throw refusal;
    const parsed = parseParams(tool, applyParamAliases(name, args ?? {}, tool.spec.paramAliases), options.lenientParams === true);
    const signal = options.signal ?? new Cancellation();
    if (signal.aborted) throw new McbridgeError('cancelled', `the call to '${name}' was cancelled`);
    const running = { tool: name, startedAt: Date.now() };
    this.running.add(running);
    try {
      const scope = new CallScope(this.events, name, this.log);
      let result: unknown;
      try {
        result = await settleOnCancel(tool.spec.run(parsed.data, this.toolContext(tool, signal, options, scope)), signal, this.cancelGraceMs, name, this.log);
      } catch (err) {
        if (scope.open) await scope.close((own) => this.toolContext(tool, own, options, scope), signal, true, err);
        throw err;
      }
      // Most calls defer nothing: no clean-up step, no extra await.
      if (scope.open) await scope.close((own) => this.toolContext(tool, own, options, scope), signal, false);
      // A passthrough tool's result is the mod's reply as delivered; its text goes out as it came.
      return tool.spec.passthrough === true ? result : this.checkOutput(tool, result);
    } catch (err) {
      if (signal.aborted && !(err instanceof McbridgeError && err.code === 'cancelled')) {
        throw new McbridgeError('cancelled', `the call to '${name}' was cancelled`);
      }
      const error = toMcbridgeError(err);
      if (error.code === 'internal') this.log.error({ tool: name, err }, `tool '${name}' failed unexpectedly`);
      throw error;
    } finally {
      this.running.delete(running);
    }
  }

  private checkOutput(tool: RegisteredTool, result: unknown): unknown {
    if (!tool.spec.output) return result;
    const parsed = tool.spec.output.safeParse(result);
    if (parsed.success) return parsed.data;
    throw new McbridgeError('internal', `tool '${tool.name}' returned a result that does not match its output schema: ${describeZodError(parsed.error, 'result')}`);
  }

  /** A call's context; its clean-ups get another one, with the same scope and a signal of their own. */
  private toolContext(tool: RegisteredTool, cancel: AbortSignal | Cancellation, options: CallOptions, scope: CallScope): ToolContext {
    return new CallContext(this.callHost, tool, cancel, options, scope, this.records.get(tool.plugin)?.config);
  }
}

/**
 * `mcbridge/testing`: test a plugin or a config against the simulated mod, over real loopback
 * sockets, from any test runner. It starts a simulated mod with the world and CAPS you script,
 * a daemon with your plugins (and the built-ins), and gives you calls, the manifest and events.
 *
 *   const t = await startTestHost({ plugins: [myPlugin], sim: { players: [{ name: 'Alex' }] } });
 *   expect(await t.call('my_tool', { x: 1 })).toMatchObject({ ok: true });
 *   await t.close();
 */
import path from 'node:path';
import { ApiClient, type ClientCallOptions } from '../api/client.js';
import { inlineConfig, loadConfig, type LoadedConfig } from '../daemon/config/load.js';
import type { CompositeSpec, McbridgeConfig, PluginConfigEntry } from '../authoring/config.js';
import { startDaemon, type Daemon } from '../daemon/daemon.js';
import { McbridgeError, toMcbridgeError } from '../host/errors.js';
import type { RecordedEvent } from '../host/events/event-log.js';
import type { Host } from '../host/host.js';
import { normalizeCaps } from '../host/link/caps.js';
import { silentLogger, type Logger } from '../util/log.js';
import type { Manifest, PluginInfo } from '../host/plugin-api.js';
import { startSim, type SimOptions, type SimulatedMod } from '../sim/index.js';
import { waitUntil } from './until.js';

export { startSim, SimulatedMod, SERVER_CAPABILITIES, CLIENT_CAPABILITIES, defaultWorld, STEVE_UUID } from '../sim/index.js';
export type { SimOptions, EntitySpec, PlayerSpec, SimEntity, WorldSpec, GameMode } from '../sim/index.js';
export type { RecordedEvent } from '../host/events/event-log.js';
/** Poll until `check()` is true; plain promises, so any test runner works. */
export { waitUntil } from './until.js';

export interface TestHostOptions {
  /** Plugins to load, in any form a config accepts: objects, package names, `[plugin, options]`. */
  plugins?: PluginConfigEntry[];
  /** Composite tools, as in a config. */
  // biome-ignore lint/suspicious/noExplicitAny: each composite keeps its own input and output types, as in a config
  composites?: CompositeSpec<any, any>[];
  /** A whole config: an object, or the path of a config file (loaded like `--config`). */
  config?: McbridgeConfig | string;
  /** Package names resolve from here (default: the config file's directory, else the working directory). */
  cwd?: string;
  /** Load the built-in plugins too (default true). */
  builtins?: boolean;
  /** The simulated mod: vantage, capabilities, players, entities, world... */
  sim?: SimOptions;
  /** Tool policy; these win over the config's. */
  readOnly?: boolean;
  allow?: string[];
  deny?: string[];
  /** Reload when the config file changes (default false in tests; call `reload()`). */
  watch?: boolean;
  /** Wait for the daemon to connect to the sim before resolving (default true). */
  waitConnected?: boolean;
  log?: Logger;
}

export interface TestHost {
  readonly sim: SimulatedMod;
  readonly daemon: Daemon;
  readonly host: Host;
  /** A local-API client on the daemon's port: what every front-end talks to. */
  readonly client: ApiClient;
  readonly port: number;
  /** Call a tool through the local API; rejects with a McbridgeError (`code`, `message`) on refusal. */
  // biome-ignore lint/suspicious/noExplicitAny: a test reads the result's fields directly unless it names a type
  call<T = any>(tool: string, args?: Record<string, unknown>, options?: ClientCallOptions): Promise<T>;
  /** The refusal a call ends in; fails when the call succeeds. */
  callError(tool: string, args?: Record<string, unknown>, options?: ClientCallOptions): Promise<McbridgeError>;
  /** The manifest: every tool, available or not, and why. */
  tools(): Promise<Manifest>;
  /** Names of the tools available now. */
  available(): Promise<string[]>;
  /** Hidden tools and the reason for each. */
  hidden(): Promise<Record<string, string>>;
  plugins(): PluginInfo[];
  /** The first event (after `since`, default: now) that matches; rejects after `timeoutMs` (default 5 s). */
  waitForEvent(match: (event: RecordedEvent) => boolean, options?: { timeoutMs?: number; since?: number }): Promise<RecordedEvent>;
  /** Seq of the newest recorded event: pass it as `since` to wait only for what comes after. */
  lastSeq(): number;
  /** Change what the sim advertises and reconnect, resolving once the daemon sees the new CAPS. */
  setCapabilities(capabilities: readonly string[]): Promise<void>;
  /** Reload the config file (a config given by path). */
  reload(): ReturnType<NonNullable<Daemon['config']>['reload']>;
  close(): Promise<void>;
}

async function configFor(options: TestHostOptions): Promise<LoadedConfig | null> {
  let loaded: LoadedConfig | null = null;
  if (typeof options.config === 'string') {
    loaded = await loadConfig({ file: options.config, cwd: options.cwd });
  } else if (options.config) {
    loaded = inlineConfig(options.config, options.cwd);
  }
  if (!options.plugins && !options.composites) return loaded;
  const base = loaded ?? inlineConfig({}, options.cwd);
  const config: McbridgeConfig = {
    ...base.config,
    plugins: [...(base.config.plugins ?? []), ...(options.plugins ?? [])],
    composites: [...(base.config.composites ?? []), ...(options.composites ?? [])],
  };
  return { ...base, config };
}

/** A simulated mod, a daemon with the given plugins and config, and a client. Remember `close()`. */
export async function startTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const loaded = await configFor(options);
  const vantage = options.sim?.vantage ?? loaded?.config.vantage ?? 'server';
  const sim = await startSim({ port: 0, ...options.sim, vantage });
  let daemon: Daemon;
  try {
    daemon = await startDaemon({
      vantage,
      builtins: options.builtins,
      buffer: loaded?.config.buffer,
      bufferBytes: loaded?.config.bufferBytes === undefined ? undefined : loaded.config.bufferBytes * 1024 * 1024,
      policy: {
        ...(options.readOnly !== undefined ? { readOnly: options.readOnly } : {}),
        ...(options.allow ? { allow: options.allow } : {}),
        ...(options.deny ? { deny: options.deny } : {}),
      },
      link: { modPort: sim.port, reconnectMinMs: 20, reconnectMaxMs: 200 },
      api: { port: 0 },
      configDir: loaded?.dir ?? sim.dir,
      // The write ledger beside this test's own world: a request id of one test is never known to the next.
      stateDir: path.join(sim.dir, '.mcbridge'),
      config: loaded ? { loaded, watch: options.watch ?? false } : undefined,
      log: options.log ?? silentLogger(),
    });
  } catch (err) {
    await sim.stop();
    throw err;
  }
  const host = daemon.host;
  let client: ApiClient;
  try {
    if (options.waitConnected !== false) await waitUntil(() => host.link.connected, 5_000, 'the daemon to connect to the simulated mod');
    client = await ApiClient.connect({ port: daemon.apiAddress.port });
  } catch (err) {
    // Nothing of a host that failed to start may outlive it: the caller has no close() to call.
    await daemon.stop();
    await sim.stop();
    throw err;
  }

  const tools = async () => (await client.call('tools')) as Manifest;
  return {
    sim,
    daemon,
    host,
    client,
    port: daemon.apiAddress.port,
    call: <T>(tool: string, args: Record<string, unknown> = {}, callOptions?: ClientCallOptions) => client.call(tool, args, callOptions) as Promise<T>,
    async callError(tool, args = {}, callOptions) {
      let result: unknown;
      try {
        result = await client.call(tool, args, callOptions);
      } catch (err) {
        return toMcbridgeError(err);
      }
      throw new Error(`expected '${tool}' to be refused, but it returned ${JSON.stringify(result)}`);
    },
    tools,
    available: async () => (await tools()).tools.filter((t) => t.available).map((t) => t.name),
    hidden: async () => Object.fromEntries((await tools()).tools.filter((t) => !t.available).map((t) => [t.name, t.reason ?? 'hidden'])),
    plugins: () => host.plugins(),
    waitForEvent: (match, waitOptions = {}) => host.events.waitFor(match, { since: { seq: waitOptions.since ?? host.events.lastSeq }, timeoutMs: waitOptions.timeoutMs ?? 5_000 }),
    lastSeq: () => host.events.lastSeq,
    async setCapabilities(capabilities) {
      sim.setCapabilities(capabilities);
      const wanted = JSON.stringify([...(normalizeCaps([...capabilities]) ?? [])].sort());
      sim.hangUp();
      await waitUntil(() => host.link.connected && JSON.stringify([...(host.link.caps ?? [])].sort()) === wanted, 5_000, 'the daemon to reconnect and see the new capabilities');
    },
    reload: () => {
      if (!daemon.config) throw new McbridgeError('invalid_params', 'this test host has no config to reload');
      return daemon.config.reload('test');
    },
    async close() {
      client.close();
      await daemon.stop();
      await sim.stop();
    },
  };
}

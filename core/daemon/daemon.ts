import os from 'node:os';
import path from 'node:path';
import type { TargetOptionsView } from '../host/plugin-api.js';
import { LocalApiServer, type LocalApiOptions } from '../api/server.js';
import type { LoadedConfig } from './config/load.js';
import type { ConfigRuntime } from './config/runtime.js';
import { Host, type LinkSettings, type PluginEntry } from '../host/host.js';
import type { Vantage } from '../host/link/discovery.js';
import type { Logger } from '../util/log.js';
import { policyProblems, type ToolPolicy } from '../host/registry/policy.js';
import { McbridgeError } from '../host/errors.js';
import { builtinEntries } from './builtins.js';
import type { SimulatedMod } from '../sim/index.js';
import { DEFAULT_API_HOST, DEFAULT_API_PORT } from '../api/address.js';
import { portTakenError } from './port-taken.js';
import { DEFAULT_TARGET, Targets } from '../api/targets.js';
import type { TargetSpec } from './config/targets.js';
import { exposedSecretFile } from '../util/private-file.js';
import { ledgerFileOf, STATE_DIR } from '../host/link/ledger-file.js';

export interface DaemonOptions {
  vantage?: Vantage;
  link?: LinkSettings;
  buffer?: number;
  /** Event ring bound in bytes. */
  bufferBytes?: number;
  policy?: ToolPolicy;
  api?: Omit<LocalApiOptions, 'log' | 'onStop'>;
  /** Run an in-process simulated mod and connect to it instead of discovering a game. */
  sim?: boolean | { dir?: string; seed?: number };
  /** Plugins beyond the built-ins (config, npm). */
  plugins?: PluginEntry[];
  /**
   * A loaded config: its plugins, composites and policy join the host (`policy` above holds the
   * command-line flags, which win). With a file and `watch`, edits are applied while running.
   */
  config?: { loaded: LoadedConfig; watch?: boolean };
  /** What plugins resolve their paths against (`ctx.configDir`); default: the config's folder, else the working directory. */
  configDir?: string;
  /**
   * The folder of the daemon's state files (each target's write ledger); default `.mcbridge` in
   * `configDir` when given, else MCBRIDGE_STATE_DIR (`none`: memory only), else `.mcbridge` beside the config file (the
   * working directory without one). False keeps the ledgers in memory only.
   */
  stateDir?: string | false;
  /** Leave the built-in plugins out (tests of a plugin on its own). */
  builtins?: boolean;
  /**
   * Several game servers, a host each (a config's `targets`). Without it `vantage`, `link`,
   * `buffer`, `bufferBytes` and `sim` above are the one target `default`.
   */
  targets?: TargetSpec[];
  /** A reloaded config's targets (null: it lists none), so a reload can add, change and remove targets. */
  targetsFrom?: (loaded: LoadedConfig) => TargetSpec[] | null;
  log: Logger;
}

export interface Daemon {
  /** The default target's host (the only one's, on a daemon of one game; else the first's). */
  host: Host;
  /** Every target's host, by name. */
  targets: Targets;
  api: LocalApiServer;
  apiAddress: { host: string; port: number };
  /** The default target's simulated mod, if it runs one. */
  sim: SimulatedMod | null;
  /** Every target's simulated mod, by target name. */
  sims: Map<string, SimulatedMod>;
  /** The config in force, when one was given. */
  config: ConfigRuntime | null;
  /** Resolves when a client called `stop` or `stop()` ran. */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

/** The flat options as the one target `default`. */
function defaultTarget(options: DaemonOptions): TargetSpec & { simDir?: string } {
  const sim = options.sim ? (typeof options.sim === 'object' ? options.sim : {}) : false;
  return {
    name: DEFAULT_TARGET,
    default: false,
    vantage: options.vantage,
    link: options.link ?? {},
    buffer: options.buffer,
    bufferBytes: options.bufferBytes,
    sim: sim === false ? false : { ...(sim.seed !== undefined ? { seed: sim.seed } : {}) },
    ...(sim !== false && sim.dir !== undefined ? { simDir: sim.dir } : {}),
  };
}

/** Assemble and start a daemon: a host per target with the built-in plugins, the local API, simulated mods if asked. */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const specs = new Map((options.targets ?? [defaultTarget(options)]).map((spec) => [spec.name, spec]));
  const targets = new Targets();
  const sims = new Map<string, SimulatedMod>();
  const stopSims = async () => {
    for (const sim of sims.values()) await sim.stop();
  };
  try {
    for (const spec of specs.values()) {
      const { host, sim } = await buildTarget(spec, targets, options);
      targets.add(host, { default: spec.default });
      if (sim) sims.set(spec.name, sim);
    }
  } catch (err) {
    await stopSims();
    throw err;
  }
  const host = targets.implicit() ?? targets.hostsList()[0]!;
  const sim = sims.get(host.target) ?? null;
  const vantage = host.vantage;
  if (!options.config) {
    // With a config, its plan checks the merged policy; without one, the flags are checked here.
    const problems = policyProblems(options.policy ?? {}, host.registry.list());
    for (const p of problems.filter((x) => !x.fatal)) options.log.warn({ entry: p.entry }, `policy: ${p.message}`);
    const fatal = problems.filter((x) => x.fatal);
    if (fatal.length > 0) {
      await stopSims();
      throw new McbridgeError('invalid_params', fatal.map((p) => `--${p.path.replace(/\[\d+\]$/, '')}: ${p.message}`).join('\n'), { problems: fatal });
    }
  }
  let config: ConfigRuntime | null = null;
  if (options.config) {
    const { ConfigRuntime } = await import('./config/runtime.js');
    const { targetsFrom } = options;
    config = new ConfigRuntime(targets, {
      loaded: options.config.loaded,
      overrides: options.policy,
      watch: options.config.watch,
      log: options.log,
      ...(targetsFrom && options.targets ? { syncTargets: (loaded: LoadedConfig) => syncTargets(targetsFrom(loaded), { targets, sims, specs, options }) } : {}),
    });
    try {
      await config.start();
    } catch (err) {
      for (const h of targets.hostsList()) await h.stop();
      await stopSims();
      throw err;
    }
  }

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // Every part gets its stop even when an earlier one fails, and `stopped` always resolves.
      const steps: Array<[string, (() => Promise<void>) | undefined]> = [
        ['config', config ? () => config!.close() : undefined],
        ['api', () => api.close()],
        ...targets.hostsList().map((h): [string, () => Promise<void>] => [`host ${h.target}`, () => h.stop()]),
        ['sims', () => stopSims()],
      ];
      for (const [part, step] of steps) {
        try {
          await step?.();
        } catch (err) {
          options.log.error({ part, err: (err as Error).message }, `stopping the ${part} failed`);
        }
      }
      resolveStopped();
    })();
    return stopping;
  };

  const api = new LocalApiServer(targets, { ...options.api, log: options.log.child({ part: 'api' }), onStop: () => void stop() });
  let apiAddress: { host: string; port: number };
  try {
    apiAddress = await api.listen();
  } catch (err) {
    await config?.close();
    await stopSims();
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    throw await portTakenError({ host: options.api?.host ?? DEFAULT_API_HOST, port: options.api?.port ?? DEFAULT_API_PORT, token: options.api?.token });
  }
  for (const h of targets.hostsList()) await h.start();
  config?.watch();
  const names = targets.size > 1 ? { targets: targets.names() } : {};
  options.log.info({ api: apiAddress, vantage, ...names }, `mcbridge daemon listening on ${apiAddress.host}:${apiAddress.port}`);
  return { host, targets, api, apiAddress, sim, sims, config, stopped, stop };
}

/**
 * One target: its host with the built-in plugins (a fresh instance each, so no state is shared
 * between targets), its simulated mod if it asks for one, and calls whose args name another
 * target routed there.
 */
function embeddedControl(sim: SimulatedMod): { address: string; pin: string; token: string; reconnectMinMs: number } {
  const control = sim.control;
  if (!control) throw new McbridgeError('internal', 'the simulated mod serves no control listener');
  // A sim reopened in a folder that already holds credentials issues no bootstrap one: mint the daemon's own.
  const token = control.bootstrapToken ?? control.addToken('mcbridge', 'read+write').token;
  return { address: `127.0.0.1:${control.port}`, pin: control.fingerprint, token, reconnectMinMs: 100 };
}

/**
 * Where the write ledgers live (docs/control.md, "Writes whose result is unknown"): `stateDir`;
 * else `.mcbridge` in the `configDir` given; else MCBRIDGE_STATE_DIR (`none`: in memory only);
 * else `.mcbridge` beside the config file, or in the working directory. Null: in memory only.
 */
function stateDirOf(options: DaemonOptions): string | null {
  if (options.stateDir === false) return null;
  if (options.stateDir !== undefined) return path.resolve(options.stateDir);
  if (options.configDir !== undefined) return path.resolve(options.configDir, STATE_DIR);
  const fromEnv = process.env.MCBRIDGE_STATE_DIR;
  // A read-only disk, or the behaviour before the ledger had a file.
  if (fromEnv === 'none') return null;
  return path.resolve(fromEnv ? fromEnv : path.join(options.config?.loaded.dir ?? process.cwd(), STATE_DIR));
}

async function buildTarget(spec: TargetSpec & { simDir?: string }, targets: Targets, options: DaemonOptions): Promise<{ host: Host; sim: SimulatedMod | null }> {
  const vantage = spec.vantage ?? 'server';
  let link: LinkSettings = spec.link;
  let sim: SimulatedMod | null = null;
  let simDriver: PluginEntry | null = null;
  if (spec.sim !== false) {
    // The sim, its driver and the config runtime load only when used (docs/decisions.md, "run loads what it uses").
    const [{ startSim }, { simDriverPlugin }] = await Promise.all([import('../sim/index.js'), import('./sim-driver.js')]);
    // A world folder, so fork works on --sim.
    const control = spec.sim.control === true || link.transport === 'control';
    const { control: _asked, ...simOptions } = spec.sim;
    // Ids of its own per target, so an id names its target; the one target of `--sim` keeps the usual ones.
    const name = spec.name === DEFAULT_TARGET ? {} : { name: spec.name };
    sim = await startSim({ vantage, port: 0, worldDisk: {}, ...name, ...simOptions, ...(control ? { control: true } : {}), ...(spec.simDir !== undefined ? { dir: spec.simDir } : {}) });
    // An embedded sim gives the link its address, its certificate's pin and its credential.
    link = control ? { transport: 'control', ...embeddedControl(sim) } : { ...(link as Extract<LinkSettings, { modPort?: number }>), modPort: sim.port };
    simDriver = { plugin: simDriverPlugin(sim), source: 'built-in' };
    const named = spec.name === DEFAULT_TARGET ? '' : ` for target ${spec.name}`;
    options.log.info({ port: sim.port, dir: sim.dir, target: spec.name }, `simulated ${vantage}-vantage mod${named} listening on 127.0.0.1:${sim.port}`);
  }
  if (link.transport === 'control' && link.tokenFile !== undefined) {
    const exposed = exposedSecretFile(link.tokenFile, 'the control token file');
    if (exposed) options.log.warn({ target: spec.name, tokenFile: link.tokenFile }, exposed);
  }
  const stateDir = stateDirOf(options);
  if (stateDir !== null) link = { ...link, ledgerFile: ledgerFileOf(stateDir, spec.name) };
  const targetOptions = launchedSimFolder(spec, stateDir);
  if (targetOptions.launch?.sim === true && link.transport !== 'control') {
    const own = link as Extract<LinkSettings, { modPort?: number }>;
    if (own.serverDir === undefined && own.portFile === undefined && own.modPort === undefined) link = { ...own, serverDir: targetOptions.launch.cwd };
  }
  const host: Host = new Host({
    target: spec.name,
    vantage,
    link,
    configDir: options.configDir ?? options.config?.loaded.dir,
    buffer: spec.buffer,
    bufferBytes: spec.bufferBytes,
    stateDir,
    targetOptions,
    log: spec.name === DEFAULT_TARGET ? options.log : options.log.child({ target: spec.name }),
    policy: options.policy,
    // `ctx.call(tool, { target: 'lab', ... })` from a composite on `live` runs on `lab`.
    route: (name, args, callOptions) => {
      if (args === null || typeof args !== 'object' || Array.isArray(args) || !('target' in args)) return host.call(name, args, callOptions);
      const routed = targets.route(name, args as Record<string, unknown>);
      return routed.host.call(name, routed.params, callOptions);
    },
    plugins: [
      ...(options.builtins === false ? [] : builtinEntries(options.config?.loaded)),
      // Only a daemon that owns its sim can drive it (sim_chat, sim_join...).
      ...(simDriver ? [simDriver] : []),
      ...(options.plugins ?? []),
    ],
  });
  return { host, sim };
}

/**
 * A launched sim that names no folder gets one of its own in the state folder (a temporary one
 * on a daemon kept in memory), so its port file, world and log are found again after a restart.
 */
function launchedSimFolder(spec: TargetSpec, stateDir: string | null): TargetOptionsView {
  const options = spec.options ?? {};
  const launch = options.launch;
  if (launch?.sim !== true || launch.cwd !== undefined) return options;
  const base = stateDir ?? path.join(os.tmpdir(), `mcbridge-${process.pid}`);
  return { ...options, launch: { ...launch, cwd: path.join(base, 'servers', spec.name.replace(/[^A-Za-z0-9.-]/g, '_')) } };
}

interface Running {
  targets: Targets;
  sims: Map<string, SimulatedMod>;
  specs: Map<string, TargetSpec>;
  options: DaemonOptions;
}

/**
 * A reload's targets: a new name starts, a missing one stops, a changed one restarts; the
 * others keep their links untouched. A config that no longer lists targets waits for a restart.
 */
async function syncTargets(wanted: TargetSpec[] | null, running: Running): Promise<{ added: Host[]; removed: Host[] }> {
  const { targets, sims, specs, options } = running;
  if (wanted === null) {
    options.log.warn('the config no longer lists targets: the daemon keeps its targets until it restarts');
    return { added: [], removed: [] };
  }
  const next = new Map(wanted.map((spec) => [spec.name, spec]));
  const removed: Host[] = [];
  const added: Host[] = [];
  for (const [name, spec] of [...specs]) {
    const kept = next.get(name);
    if (kept && JSON.stringify({ ...kept, default: false }) === JSON.stringify({ ...spec, default: false })) continue;
    const host = targets.remove(name);
    specs.delete(name);
    if (!host) continue;
    await host.stop();
    await sims.get(name)?.stop();
    sims.delete(name);
    removed.push(host);
  }
  for (const [name, spec] of next) {
    if (specs.has(name)) continue;
    try {
      const { host, sim } = await buildTarget(spec, targets, options);
      if (sim) sims.set(name, sim);
      targets.add(host, { default: false });
      specs.set(name, spec);
      await host.start();
      added.push(host);
    } catch (err) {
      options.log.error({ target: name, err: (err as Error).message }, `target '${name}' could not be started; the others run on`);
    }
  }
  targets.setDefault(wanted.find((spec) => spec.default)?.name ?? null);
  return { added, removed };
}

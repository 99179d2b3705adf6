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
  /** Leave the built-in plugins out (tests of a plugin on its own). */
  builtins?: boolean;
  log: Logger;
}

export interface Daemon {
  host: Host;
  api: LocalApiServer;
  apiAddress: { host: string; port: number };
  sim: SimulatedMod | null;
  /** The config in force, when one was given. */
  config: ConfigRuntime | null;
  /** Resolves when a client called `stop` or `stop()` ran. */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

/** Assemble and start a daemon: host, built-in plugins, local API, optional simulated mod. */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const vantage = options.vantage ?? 'server';
  let sim: SimulatedMod | null = null;
  let link = options.link ?? {};
  let simDriver: PluginEntry | null = null;
  if (options.sim) {
    // The sim, its driver and the config runtime load only when used (docs/decisions.md, "run loads what it uses").
    const [{ startSim }, { simDriverPlugin }] = await Promise.all([import('../sim/index.js'), import('./sim-driver.js')]);
    const simOptions = typeof options.sim === 'object' ? options.sim : {};
    sim = await startSim({ vantage, port: 0, worldDisk: {}, ...simOptions }); // a world folder, so fork works on --sim
    link = { ...link, modPort: sim.port };
    simDriver = { plugin: simDriverPlugin(sim), source: 'built-in' };
    options.log.info({ port: sim.port, dir: sim.dir }, `simulated ${vantage}-vantage mod listening on 127.0.0.1:${sim.port}`);
  }
  const host = new Host({
    vantage,
    link,
    configDir: options.configDir ?? options.config?.loaded.dir,
    buffer: options.buffer,
    bufferBytes: options.bufferBytes,
    log: options.log,
    policy: options.policy,
    plugins: [
      ...(options.builtins === false ? [] : builtinEntries(options.config?.loaded)),
      // Only a daemon that owns its sim can drive it (sim_chat, sim_join...).
      ...(simDriver ? [simDriver] : []),
      ...(options.plugins ?? []),
    ],
  });
  if (!options.config) {
    // With a config, its plan checks the merged policy; without one, the flags are checked here.
    const problems = policyProblems(options.policy ?? {}, host.registry.list());
    for (const p of problems.filter((x) => !x.fatal)) options.log.warn({ entry: p.entry }, `policy: ${p.message}`);
    const fatal = problems.filter((x) => x.fatal);
    if (fatal.length > 0) {
      await sim?.stop();
      throw new McbridgeError('invalid_params', fatal.map((p) => `--${p.path.replace(/\[\d+\]$/, '')}: ${p.message}`).join('\n'), { problems: fatal });
    }
  }
  let config: ConfigRuntime | null = null;
  if (options.config) {
    const { ConfigRuntime } = await import('./config/runtime.js');
    config = new ConfigRuntime(host, {
      loaded: options.config.loaded,
      overrides: options.policy,
      watch: options.config.watch,
      log: options.log,
    });
    try {
      await config.start();
    } catch (err) {
      await host.stop();
      await sim?.stop();
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
        ['host', () => host.stop()],
        ['sim', sim ? () => sim!.stop() : undefined],
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

  const api = new LocalApiServer(host, { ...options.api, log: options.log.child({ part: 'api' }), onStop: () => void stop() });
  let apiAddress: { host: string; port: number };
  try {
    apiAddress = await api.listen();
  } catch (err) {
    await config?.close();
    await sim?.stop();
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    throw await portTakenError({ host: options.api?.host ?? DEFAULT_API_HOST, port: options.api?.port ?? DEFAULT_API_PORT, token: options.api?.token });
  }
  await host.start();
  config?.watch();
  options.log.info({ api: apiAddress, vantage }, `mcbridge daemon listening on ${apiAddress.host}:${apiAddress.port}`);
  return { host, api, apiAddress, sim, config, stopped, stop };
}

/**
 * `mcbridge mcp --embedded`: when no daemon answers, this process starts one itself (the
 * same daemon `mcbridge run` starts, owning the mod link) and talks to it over loopback,
 * so one-line harness setups work and other tools (`mcbridge call`) can still reach it.
 */
import type { LoadedConfig } from '../../daemon/config/load.js';
import { configTargets } from '../../daemon/config/targets.js';
import { startDaemon, type Daemon, type DaemonOptions } from '../../daemon/daemon.js';
import { isPortTaken } from '../../daemon/port-taken.js';
import type { DaemonAddress } from '../../daemon/unreachable.js';

export type EmbeddedDaemonOptions = Omit<DaemonOptions, 'api' | 'config'> & {
  api: { host: string; port: number; token?: string };
  /** The config whose plugins, composites and policy the daemon gets; loaded only if one is started. */
  loadConfig?: () => Promise<LoadedConfig | null>;
};

export class EmbeddedDaemon {
  private daemon: Daemon | null = null;
  private starting: Promise<DaemonAddress | null> | null = null;

  constructor(private readonly options: EmbeddedDaemonOptions) {}

  get running(): Daemon | null {
    return this.daemon;
  }

  /** Start once: on the usual API port, or on a free one if that port is taken. Null when already started. */
  startIfNeeded(): Promise<DaemonAddress | null> {
    if (this.starting) return this.daemon ? Promise.resolve(null) : this.starting;
    this.starting = this.start();
    return this.starting;
  }

  private async start(): Promise<DaemonAddress> {
    const { loadConfig, ...options } = this.options;
    options.log.info({ api: options.api }, 'no mcbridge daemon answers; starting one in this process (--embedded)');
    const loaded = await loadConfig?.();
    // The config's targets, as `mcbridge run` serves them (each server it launches included); its link flags then stay unused.
    const targetsOf = (config: LoadedConfig) => configTargets(config, { vantage: options.vantage, buffer: options.buffer, bufferBytes: options.bufferBytes });
    const targets = loaded ? targetsOf(loaded) : null;
    const daemonOptions: DaemonOptions = { ...options, ...(loaded ? { config: { loaded } } : {}), ...(targets ? { targets, targetsFrom: targetsOf } : {}) };
    try {
      this.daemon = await startDaemon(daemonOptions);
    } catch (err) {
      // The daemon says a taken port in its own words (core/daemon/port-taken.ts), not as EADDRINUSE.
      if (!isPortTaken(err)) throw err;
      this.daemon = await startDaemon({ ...daemonOptions, api: { ...options.api, port: 0 } });
    }
    return this.daemon.apiAddress;
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => null);
    await this.daemon?.stop();
  }
}

import path from 'node:path';
import type { Command } from 'commander';
import { groupKeys, type GroupKey, type ResolvedValue } from '../../authoring/options.js';
import { loadConfig } from '../../daemon/config/load.js';
import { displayPath } from '../../daemon/config/errors.js';
import { startDaemon } from '../../daemon/daemon.js';
import { createLogger } from '../../util/log.js';
import type { ToolPolicy } from '../../host/registry/policy.js';
import { fromCommandLine, resolveOption } from './options.js';
import { configTargets, LINK_KEYS, linkProblems, linkSettings } from '../../daemon/config/targets.js';
import { UsageError } from './exit.js';

/** 1 MiB: `pushBuffer` is given in MiB, the API counts bytes. */
const MiB = 1024 * 1024;

/**
 * `mcbridge run`: the config (found from the working directory, or --config) supplies daemon
 * options, plugins, composites and policy. Each daemon option comes from the command line, then
 * its environment variable, then the config, then the table's default (resolveOption).
 */
export async function runCommand(cmd: Command, started: () => void = () => {}): Promise<void> {
  const opts = cmd.opts();
  const loaded = opts.config === false ? null : await loadConfig({ file: typeof opts.config === 'string' ? opts.config : undefined });
  const config = loaded ? { values: loaded.config, dir: loaded.dir } : undefined;
  const option = <K extends GroupKey<'daemon'>>(key: K): ResolvedValue<K> => resolveOption(cmd, key, config);

  const log = createLogger({ level: option('logLevel'), format: option('logFormat') });
  // Only what the command line says: the config's policy applies beneath it, on every reload too
  // (mergePolicy in core/daemon/config/runtime.ts).
  const given = groupKeys('policy').map((key) => [key, fromCommandLine(cmd, key)] as const);
  const policy: ToolPolicy = Object.fromEntries(given.filter(([, value]) => value !== undefined));

  const targets = loaded?.config.targets;
  // What a target leaves out comes from the flags, the environment or the config's flat options.
  const targetDefaults = {
    vantage: option('vantage'),
    modHost: option('modHost'),
    reconnectDelay: option('reconnectDelay'),
    buffer: option('buffer'),
    bufferBytes: option('bufferBytes'),
  };
  const targetsOf = (config: Parameters<typeof configTargets>[0]) => configTargets(config, targetDefaults);
  if (targets) {
    const given = LINK_KEYS.filter((key) => fromCommandLine(cmd, key) !== undefined);
    if (given.length > 0) {
      throw new UsageError(
        `the config lists targets, so ${given.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} would be ambiguous: set it on a target in the config, or run with --no-config`,
      );
    }
  }
  const flat = {
    transport: option('transport'),
    address: option('address'),
    pin: option('pin'),
    caFile: option('caFile'),
    serverName: option('serverName'),
    tokenFile: option('tokenFile'),
    tokenEnv: option('tokenEnv'),
    modHost: option('modHost'),
    modPort: option('modPort'),
    portFile: option('portFile'),
    serverDir: option('serverDir'),
    reconnectDelay: option('reconnectDelay'),
  };
  if (!targets) {
    const problems = linkProblems({ ...flat, sim: option('sim') });
    if (problems.length > 0) throw new UsageError(`${problems.join('; ')} (docs/control.md)`);
  }
  const flatLink = linkSettings(flat);
  const daemon = await startDaemon({
    ...(targets ? { targets: targetsOf(loaded!)!, targetsFrom: targetsOf } : {}),
    vantage: option('vantage'),
    sim: option('sim'),
    buffer: option('buffer'),
    bufferBytes: option('bufferBytes') * MiB,
    policy,
    link: flatLink,
    api: {
      host: option('apiHost'),
      port: option('apiPort'),
      token: option('apiToken'),
      allowRemote: option('allowRemote'),
      pushBufferBytes: option('pushBuffer') * MiB,
      activityLog: { file: option('activityLog') },
    },
    config: loaded ? { loaded, watch: fromCommandLine(cmd, 'watch') } : undefined,
    log,
  });
  started();
  if (loaded) {
    const watching = daemon.config?.status().watching === true;
    log.info({ config: loaded.file, watching }, `config loaded from ${displayPath(loaded.file)}${watching ? ' (reloads on change)' : ''}`);
    for (const other of loaded.passedOver ?? []) {
      log.warn(
        { config: loaded.file, ignored: other },
        `two config files in ${displayPath(loaded.dir)}: using ${path.basename(loaded.file!)}, ignoring ${path.basename(other)}; remove one, or name it with --config`,
      );
    }
  }
  const shutdown = () => void daemon.stop();
  const reload = () => void daemon.config?.reload('SIGHUP');
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  process.on('SIGHUP', reload);
  await daemon.stopped;
  process.off('SIGHUP', reload);
  log.info('stopped');
}

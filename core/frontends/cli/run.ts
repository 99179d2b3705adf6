import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../daemon/config/load.js';
import type { McbridgeConfig } from '../../authoring/config.js';
import { displayPath } from '../../daemon/config/errors.js';
import { startDaemon } from '../../daemon/daemon.js';
import { createLogger } from '../../util/log.js';
import type { ToolPolicy } from '../../host/registry/policy.js';

/** Given on the command line (or by env), as opposed to commander's default. */
function explicit(cmd: Command, key: string): boolean {
  const source = cmd.getOptionValueSource(key);
  return source !== undefined && source !== 'default';
}

/**
 * `mcbridge run`: the config (found from the working directory, or --config) supplies daemon
 * options, plugins, composites and policy; a flag given on the command line wins over it.
 */
export async function runCommand(cmd: Command, program: Command): Promise<void> {
  const opts = cmd.opts();
  const global = program.opts();
  const loaded = opts.config === false ? null : await loadConfig({ file: typeof opts.config === 'string' ? opts.config : undefined });
  const config: McbridgeConfig = loaded?.config ?? {};
  const pick = <K extends keyof McbridgeConfig>(c: Command, key: K): unknown =>
    explicit(c, key) ? c.getOptionValue(key) : (config[key] ?? c.getOptionValue(key));
  // Paths in the config are relative to the config file.
  const fromConfig = (key: 'serverDir' | 'portFile'): string | undefined =>
    explicit(cmd, key) ? opts[key] : config[key] !== undefined && loaded ? path.resolve(loaded.dir, config[key]) : opts[key];

  const log = createLogger({
    level: explicit(program, 'logLevel') ? global.logLevel : (process.env.MCBRIDGE_LOG_LEVEL ?? config.logLevel),
  });
  const apiToken = explicit(program, 'apiToken') ? global.apiToken : (process.env.MCBRIDGE_API_TOKEN || config.apiToken);
  // Only what the command line says: the config's policy applies beneath it (and on reload).
  const policy: ToolPolicy = {};
  if (opts.readOnly === true) policy.readOnly = true;
  if (explicit(cmd, 'allow')) policy.allow = opts.allow;
  if (explicit(cmd, 'deny')) policy.deny = opts.deny;

  const daemon = await startDaemon({
    vantage: pick(cmd, 'vantage') as 'server' | 'client',
    sim: pick(cmd, 'sim') === true,
    buffer: pick(cmd, 'buffer') as number,
    policy,
    link: { modHost: pick(cmd, 'modHost') as string, modPort: pick(cmd, 'modPort') as number | undefined, portFile: fromConfig('portFile'), serverDir: fromConfig('serverDir') },
    api: {
      host: pick(program, 'apiHost') as string,
      port: pick(program, 'apiPort') as number,
      token: apiToken,
      allowRemote: pick(cmd, 'allowRemote') === true,
      pushBufferBytes: (pick(cmd, 'pushBuffer') as number) * 1024 * 1024,
    },
    config: loaded ? { loaded, watch: explicit(cmd, 'watch') ? opts.watch !== false : undefined } : undefined,
    log,
  });
  if (loaded) {
    const watching = daemon.config?.status().watching === true;
    log.info({ config: loaded.file, watching }, `config loaded from ${displayPath(loaded.file)}${watching ? ' (reloads on change)' : ''}`);
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

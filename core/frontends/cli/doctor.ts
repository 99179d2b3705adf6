/**
 * `mcbridge status` (the first thing people type) and `mcbridge doctor`: one line per check,
 * ok or FAIL, and under each failure what to do. The exit code says whether all passed.
 * `status` asks the running daemon; when none answers it looks for the mod itself, so the
 * answer still says where things stand. `doctor` adds Node, the config and its plugins.
 */
import type { Command } from 'commander';
import type { LoadedConfig } from '../../daemon/config/load.js';
import type { Vantage } from '../../host/link/discovery.js';
import type { Check } from './checks.js';
import { EXIT, UsageError } from './exit.js';
import { addTableOptions, globalOptions, resolveOption, type GlobalOptions } from './options.js';

interface DiagnoseOptions {
  thorough: boolean;
  json?: boolean;
  config?: string | false;
}

/** The config as `run` would load it and plan it (packages found, composites derived). */
async function configCheck(config: string | false | undefined): Promise<{ check: Check; loaded: LoadedConfig | null }> {
  if (config === false) return { check: { name: 'config', ok: null, detail: 'not read (--no-config)' }, loaded: null };
  const { loadConfig } = await import('../../daemon/config/load.js');
  let loaded: LoadedConfig | null;
  try {
    loaded = await loadConfig({ file: config });
  } catch (err) {
    return { check: { name: 'config', ok: false, detail: (err as Error).message, advice: 'fix the config; `mcbridge config` prints what `run` would use' }, loaded: null };
  }
  if (!loaded) return { check: { name: 'config', ok: true, detail: 'no mcbridge.config.* from here up to the project root; the defaults apply' }, loaded: null };
  try {
    const [{ planConfig, neighboursOf }, { builtinPlugins }] = await Promise.all([import('../../daemon/config/runtime.js'), import('../../daemon/builtins.js')]);
    const plan = await planConfig(loaded, neighboursOf(builtinPlugins));
    const detail = `${loaded.file}: ${plan.plugins.length} plugins, ${plan.composites.length} composites`;
    return { check: { name: 'config', ok: true, detail }, loaded };
  } catch (err) {
    return { check: { name: 'config', ok: false, detail: (err as Error).message, advice: 'fix the plugins or composites it names; `mcbridge config` shows the problems' }, loaded };
  }
}

async function diagnose(cmd: Command, opts: DiagnoseOptions, global: GlobalOptions): Promise<Check[]> {
  const [{ callsCheck, capsCheck, controlCheck, daemonCheck, discoveryCheck, memoryCheck, modCheckFromDaemon, nodeCheck, pluginsCheck, probeMod, targetsCheck }, { resolvePort }] = await Promise.all([
    import('./checks.js'),
    import('../../host/link/discovery.js'),
  ]);
  const checks: Check[] = [];
  let loaded: LoadedConfig | null = null;
  if (opts.thorough) {
    checks.push(nodeCheck());
    const config = await configCheck(opts.config);
    checks.push(config.check);
    loaded = config.loaded;
  }
  const daemon = await daemonCheck(global);
  checks.push(daemon.check);
  if (daemon.view) {
    const { status, manifest, first } = daemon.view;
    const targets = targetsCheck(status.targets, global.target, first);
    if (targets) checks.push(targets);
    const where = status.control ? controlCheck(status.control, status.connected) : discoveryCheck(status.discovery);
    checks.push(where, modCheckFromDaemon(status), capsCheck(status.connected ? status.capabilities : undefined, status.capsSource));
    checks.push(pluginsCheck(status.plugins, manifest), callsCheck(status.calls), memoryCheck(status.memory));
    return checks;
  }
  // No daemon: look for the mod as `run` would, from the flags and the config.
  if (!opts.thorough && opts.config !== false) loaded = (await configCheck(opts.config)).loaded;
  const values = loaded ? { values: loaded.config, dir: loaded.dir } : undefined;
  const resolution = resolvePort({
    vantage: resolveOption(cmd, 'vantage', values) as Vantage,
    modPort: resolveOption(cmd, 'modPort', values),
    portFile: resolveOption(cmd, 'portFile', values),
    serverDir: resolveOption(cmd, 'serverDir', values),
  });
  checks.push(discoveryCheck(resolution));
  if (resolution.resolved && resolution.port !== null) {
    const probe = await probeMod(loaded?.config.modHost ?? '127.0.0.1', resolution.port);
    checks.push(probe.check, capsCheck(probe.caps));
  } else {
    checks.push({ name: 'mod', ok: null, detail: 'not checked: the mod port is unknown' }, capsCheck(undefined));
  }
  checks.push({ name: 'plugins', ok: null, detail: 'not checked: no daemon runs them' });
  return checks;
}

function render(checks: Check[]): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines: string[] = [];
  for (const check of checks) {
    const mark = check.ok === true ? 'ok  ' : check.ok === false ? 'FAIL' : '--  ';
    lines.push(`${mark}  ${check.name.padEnd(width)}  ${check.detail.split('\n').join(`\n      ${' '.repeat(width)}  `)}`);
    if (check.ok === false && check.advice) lines.push(`      ${' '.repeat(width)}  -> ${check.advice}`);
  }
  const failed = checks.filter((c) => c.ok === false).length;
  lines.push(failed === 0 ? 'all checks passed' : `${failed} of ${checks.length} checks failed`);
  return lines.join('\n') + '\n';
}

async function report(cmd: Command, opts: DiagnoseOptions, global: GlobalOptions): Promise<void> {
  const checks = await diagnose(cmd, opts, global);
  const ok = checks.every((c) => c.ok !== false);
  process.stdout.write(opts.json ? JSON.stringify({ ok, checks }, null, 2) + '\n' : render(checks));
  if (!ok) process.exitCode = EXIT.failed;
}

/** A config the client cannot read is reported by the config check, not thrown before it. */
async function globalsDespiteConfig(program: Command, globals: () => Promise<GlobalOptions>): Promise<GlobalOptions> {
  try {
    return await globals();
  } catch (err) {
    if (err instanceof UsageError) throw err;
    return globalOptions(program);
  }
}

/** Adds `status` and `doctor` to the program. */
export function addDiagnosisCommands(program: Command, clientGlobals: () => Promise<GlobalOptions>): void {
  const globals = () => globalsDespiteConfig(program, clientGlobals);
  const common = (cmd: Command) =>
    addTableOptions(cmd, 'discover')
      .option('--json', 'print the checks as JSON')
      .option('--config <file>', 'config file (default: searched from the working directory)')
      .option('--no-config', 'ignore any config file');
  common(program.command('status').description('is the daemon up, is the mod connected, with what CAPS and plugins: one line each, and what to do (exit 1 when something fails)')).action(
    async (opts, cmd: Command) => report(cmd, { thorough: false, json: opts.json, config: opts.config === true ? undefined : opts.config }, await globals()),
  );
  common(program.command('doctor').description('status, plus Node, the config and its plugins, and the mod port probed when no daemon runs')).action(async (opts, cmd: Command) =>
    report(cmd, { thorough: true, json: opts.json, config: opts.config === true ? undefined : opts.config }, await globals()),
  );
}

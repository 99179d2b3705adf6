/**
 * The CLI's side of the option table, in process: every entry is a flag with the table's
 * default, a value the schema refuses is refused as a flag and in a config, and a value comes
 * from the command line, then the environment, then the config, then the default.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommanderError, type Command, type Option } from 'commander';
import type { McbridgeConfig } from '../../../../core/authoring/config.js';
import { DAEMON_OPTIONS, OPTION_KEYS, type OptionSpec } from '../../../../core/authoring/options.js';
import { ConfigError } from '../../../../core/daemon/config/errors.js';
import { validateConfig } from '../../../../core/daemon/config/load.js';
import { configSchema } from '../../../../core/daemon/config/schema.js';
import { UsageError } from '../../../../core/frontends/cli/exit.js';
import { buildProgram } from '../../../../core/frontends/cli/program.js';
import { resolveOption } from '../../../../core/frontends/cli/options.js';
import { INVALID, VALID } from '../../../support/option-values.js';

afterEach(() => vi.unstubAllEnvs());

/** The real program with every action replaced, so a parse that succeeds starts nothing. */
function program(): { program: Command; run: Command; errors: string[] } {
  const errors: string[] = [];
  const p = buildProgram();
  for (const cmd of [p, ...p.commands]) {
    cmd.configureOutput({ writeErr: (s) => errors.push(s), writeOut: () => undefined });
    if (cmd !== p) cmd.action(() => undefined);
  }
  return { program: p, run: p.commands.find((c) => c.name() === 'run')!, errors };
}

async function parse(args: string[]): Promise<{ program: Command; run: Command }> {
  const parsed = program();
  await parsed.program.parseAsync(['node', 'mcbridge', ...args]);
  return parsed;
}

describe('every table entry', () => {
  it('is a config key configSchema accepts', () => {
    for (const key of OPTION_KEYS) {
      expect(configSchema.safeParse({ [key]: VALID[key] }).success, `${key}: ${JSON.stringify(VALID[key])}`).toBe(true);
    }
    expect(configSchema.safeParse(VALID).success).toBe(true);
  });

  it('is a flag on `run` or on the program, spelled and defaulted as the table says', () => {
    const { program: p, run } = program();
    const options = new Map<string, Option>([...p.options, ...run.options].map((o) => [o.attributeName(), o]));
    for (const key of OPTION_KEYS) {
      const spec: OptionSpec = DAEMON_OPTIONS[key];
      const option = options.get(key);
      expect(option, `no flag for ${key}`).toBeDefined();
      expect(option!.flags, key).toBe(spec.flag);
      // A --no-* flag's default (true) is commander's own.
      if (option!.negate) expect(spec.default, key).toBe(true);
      else expect(option!.defaultValue, key).toEqual(spec.default);
      const carrier = spec.commands.includes('global') ? p : run;
      expect(carrier.options, `${key} is on the wrong command`).toContain(option);
    }
  });
});

describe('a value the schema refuses', () => {
  it.each(OPTION_KEYS.filter((key) => INVALID[key].flag !== undefined))('is refused as the flag for %s, with what to give', async (key) => {
    const spec: OptionSpec = DAEMON_OPTIONS[key];
    const { program: p, errors } = program();
    const flag = spec.flag.split(' ')[0]!;
    const text = INVALID[key].flag!;
    const err = await p.parseAsync(['node', 'mcbridge', 'run', flag, text]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, `${flag} '${text}' was accepted`).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).code).toBe('commander.invalidArgument');
    expect(errors.join('')).toContain(`error: option '${spec.flag}' argument '${text}' is invalid. expected `);
    expect(errors.join('')).toContain(`, got '${text}'`);
  });

  it("keeps today's flag messages", async () => {
    const { program: p, errors } = program();
    await expect(p.parseAsync(['node', 'mcbridge', 'run', '--mod-port', '0'])).rejects.toThrow(CommanderError);
    expect(errors.join('')).toContain("argument '0' is invalid. expected a TCP port 1-65535, got '0'");
  });

  it.each(OPTION_KEYS)('is refused in a config for %s, naming the key', (key) => {
    let err: unknown = null;
    try {
      validateConfig({ [key]: INVALID[key].config }, '/srv/mcbridge.config.ts');
    } catch (e) {
      err = e;
    }
    expect(err, `${key}: ${JSON.stringify(INVALID[key].config)} was accepted`).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems[0]!.path).toMatch(new RegExp(`^${key}\\b`));
  });

  it('is refused from the environment, naming the variable', async () => {
    vi.stubEnv('MCBRIDGE_LOG_LEVEL', 'loud');
    const { run } = await parse(['run']);
    expect(() => resolveOption(run, 'logLevel')).toThrow(UsageError);
    expect(() => resolveOption(run, 'logLevel')).toThrow(/^MCBRIDGE_LOG_LEVEL: expected one of fatal, .*, got 'loud'; fix it or unset it$/);
  });
});

describe('a value comes from the flag, then the environment, then the config, then the default', () => {
  const config = (values: McbridgeConfig) => ({ values, dir: '/srv/game/conf' });

  it('a number: --buffer', async () => {
    expect(resolveOption((await parse(['run'])).run, 'buffer')).toBe(1000);
    expect(resolveOption((await parse(['run'])).run, 'buffer', config({ buffer: 50 }))).toBe(50);
    expect(resolveOption((await parse(['run', '--buffer', '70'])).run, 'buffer', config({ buffer: 50 }))).toBe(70);
  });

  it('a boolean: --sim', async () => {
    expect(resolveOption((await parse(['run'])).run, 'sim')).toBe(false);
    expect(resolveOption((await parse(['run'])).run, 'sim', config({ sim: true }))).toBe(true);
    expect(resolveOption((await parse(['run', '--sim'])).run, 'sim', config({ sim: false }))).toBe(true);
  });

  it('a path: relative to the config file from the config, left for discovery to resolve from the working directory as a flag', async () => {
    expect(resolveOption((await parse(['run'])).run, 'serverDir')).toBeUndefined();
    expect(resolveOption((await parse(['run'])).run, 'serverDir', config({ serverDir: '../world' }))).toBe('/srv/game/world');
    expect(resolveOption((await parse(['run', '--server-dir', 'here'])).run, 'serverDir', config({ serverDir: '../world' }))).toBe('here');
  });

  it('a global option, before or after the command', async () => {
    expect(resolveOption((await parse(['run'])).run, 'apiPort', config({ apiPort: 9000 }))).toBe(9000);
    expect(resolveOption((await parse(['run', '--api-port', '9001'])).run, 'apiPort', config({ apiPort: 9000 }))).toBe(9001);
    expect(resolveOption((await parse(['--api-port', '9002', 'run'])).run, 'apiPort', config({ apiPort: 9000 }))).toBe(9002);
  });

  it('an option with an environment variable: the flag, then the variable (empty is unset), then the config', async () => {
    const warn = config({ logLevel: 'warn', apiToken: 'from-config-0123456' });
    vi.stubEnv('MCBRIDGE_LOG_LEVEL', '');
    vi.stubEnv('MCBRIDGE_API_TOKEN', '');
    expect(resolveOption((await parse(['run'])).run, 'logLevel')).toBe('info');
    expect(resolveOption((await parse(['run'])).run, 'logLevel', warn)).toBe('warn');
    expect(resolveOption((await parse(['run'])).run, 'apiToken', warn)).toBe('from-config-0123456');
    vi.stubEnv('MCBRIDGE_LOG_LEVEL', 'debug');
    vi.stubEnv('MCBRIDGE_API_TOKEN', 'from-env-0123456789');
    expect(resolveOption((await parse(['run'])).run, 'logLevel', warn)).toBe('debug');
    expect(resolveOption((await parse(['run'])).run, 'apiToken', warn)).toBe('from-env-0123456789');
    expect(resolveOption((await parse(['run', '--log-level', 'error'])).run, 'logLevel', warn)).toBe('error');
    expect(resolveOption((await parse(['--api-token', 'from-flag-012345678', 'run'])).run, 'apiToken', warn)).toBe('from-flag-012345678');
  });
});

import { InvalidArgumentError, Option, type Command } from 'commander';
import { DAEMON_OPTIONS, OPTION_KEYS, type OptionCommand, type OptionKey, type OptionSpec, type ResolvedValue } from '../../authoring/options.js';
import { clientConfig } from './client-config.js';
import { parseText, resolveValue, type ConfigValues } from './resolve.js';
import { targetFromEnv, targetProblem } from './target.js';

export function parsePort(value: string, allowZero = true): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1) || n > 65535) {
    throw new InvalidArgumentError(`expected a TCP port ${allowZero ? '0' : '1'}-65535, got '${value}'`);
  }
  return n;
}

export function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a whole number 0 or more, got '${value}'`);
  return n;
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a whole number 1 or more, got '${value}'`);
  return n;
}

export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;

/** A Log4j level in any case, as the `logs` tool takes it (upper case). */
export function parseLogLevel(value: string): string {
  const level = value.toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new InvalidArgumentError(`expected one of ${LOG_LEVELS.join(', ')} (any case), got '${value}'`);
  return level;
}

export function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a number of seconds above 0, got '${value}'`);
  return n;
}

export function parseNonNegativeSeconds(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`expected a number of seconds, 0 or more, got '${value}'`);
  return n;
}

export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** `--target`: a name, a comma list of names (watch), or `*` (target.ts). */
export function parseTarget(value: string): string {
  const problem = targetProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}

/** `mcp --transport`: streamable-http is the predecessor's (and the MCP SDK's) name for http. */
export const MCP_TRANSPORTS = ['stdio', 'http', 'streamable-http'] as const;

export function parseTransport(value: string): 'stdio' | 'http' {
  if (value === 'streamable-http') return 'http';
  if (value !== 'stdio' && value !== 'http') throw new InvalidArgumentError(`expected stdio, http or streamable-http, got '${value}'`);
  return value;
}

/**
 * The values an option's argument can take, for shell completion (completion.ts), kept on the
 * option itself: one flag name can mean two things on two commands (`run --transport` and
 * `mcp --transport`). Commander's own `choices` stays for options without a parser of their own.
 */
const OPTION_VALUES = new WeakMap<Option, readonly string[]>();

export function withValues(option: Option, values: readonly string[]): Option {
  OPTION_VALUES.set(option, values);
  return option;
}

export function optionValues(option: Option): readonly string[] {
  return OPTION_VALUES.get(option) ?? option.argChoices ?? [];
}

/** The commander option for one table entry: its flag, help, parser and default. */
function tableOption(key: OptionKey): Option {
  const spec: OptionSpec = DAEMON_OPTIONS[key];
  const env = [spec.env ?? spec.discoveryEnv, spec.legacyEnv].filter(Boolean).join(' or ');
  const client = spec.clientEnv ? `; a client also reads ${spec.clientEnv}` : '';
  const option = new Option(spec.flag, env ? `${spec.description} (or set ${env}${client})` : spec.description);
  if (spec.value.type === 'enum') withValues(option, spec.value.values);
  if (option.required || option.optional) {
    option.argParser((text: string) => {
      const parsed = parseText(spec, text);
      if (!parsed.ok) throw new InvalidArgumentError(parsed.message);
      return parsed.value;
    });
  }
  // A --no-* flag already defaults to true in commander; saying so in --help would read backwards.
  if (spec.default !== undefined && !option.negate) option.default(spec.default);
  return option;
}

/** The value given on the command line; commander's defaults do not count. */
export function fromCommandLine<K extends OptionKey>(cmd: Command, key: K): ResolvedValue<K> | undefined {
  return cmd.getOptionValueSource(key) === 'cli' ? cmd.getOptionValue(key) : undefined;
}

/**
 * One option's value, first found: the command line, then its environment variable, then the
 * config (a path relative to the config file), then the table's default (resolve.ts). `cmd` is
 * the command being run; a global option is read from the program, wherever on the line it was given.
 */
export function resolveOption<K extends OptionKey>(cmd: Command, key: K, config?: ConfigValues, asClient = false): ResolvedValue<K> {
  const spec: OptionSpec = DAEMON_OPTIONS[key];
  let carrier = cmd;
  if (spec.commands.includes('global')) while (carrier.parent) carrier = carrier.parent;
  return resolveValue(key, fromCommandLine(carrier, key), config, asClient);
}

type Table = typeof DAEMON_OPTIONS;
type CommandKey<C extends OptionCommand> = { [K in OptionKey]: C extends Table[K]['commands'][number] ? K : never }[OptionKey];

function commandKeys<C extends OptionCommand>(command: C): CommandKey<C>[] {
  return OPTION_KEYS.filter((key) => (DAEMON_OPTIONS[key].commands as readonly OptionCommand[]).includes(command)) as CommandKey<C>[];
}

/** Add the table's flags for one command, in table order. */
export function addTableOptions(cmd: Command, command: OptionCommand): Command {
  for (const key of commandKeys(command)) cmd.addOption(tableOption(key));
  return cmd;
}

/**
 * The global options (API address, token, log level and format, the per-call timeout, and the
 * target) as every client command uses them: flag, then environment, then the config's value,
 * then default. `target` has no config key and no default: without it the daemon picks (target.ts).
 */
export type GlobalOptions = { [K in CommandKey<'global'>]: ResolvedValue<K> } & { timeout?: number; target?: string };

export function globalOptions(program: Command, config?: ConfigValues): GlobalOptions {
  const table = Object.fromEntries(commandKeys('global').map((key) => [key, resolveOption(program, key, config, true)]));
  const { timeout, target = targetFromEnv() } = program.opts() as { timeout?: number; target?: string };
  return { ...table, ...(timeout !== undefined ? { timeout } : {}), ...(target !== undefined ? { target } : {}) } as GlobalOptions;
}

/** `globalOptions` with the config's client keys (client-config.ts: cheap to read). */
export async function clientOptions(program: Command): Promise<GlobalOptions> {
  // A bad flag or variable is a usage error before any file is read.
  globalOptions(program);
  return globalOptions(program, await clientConfig());
}

/**
 * `mcbridge call <method> [params]` in its plain form, without commander: a cold `call` must start
 * about as fast as node itself (issue 14: <= 1.5x `node -e 0`), and commander with the program's
 * definition cost a third of that budget. Only the plain form: the global flags of the option
 * table, `--timeout` and `--progress`, each once and with a value that checks. Anything else
 * (another flag, --help, a bad value, a missing method) is left to the full program, so its
 * errors, help and exit codes stay commander's own. docs/decisions.md, "A quick path for call".
 * Plain `mcp` (global flags only, as MCP clients start it) takes the same path.
 */
import { DAEMON_OPTIONS, OPTION_KEYS, type OptionKey, type OptionSpec } from '../../authoring/options.js';
import { checkValue, fromText } from '../../authoring/option-value.js';
import { clientConfig } from './client-config.js';
import { PLAIN_MCP_OPTIONS } from './mcp-options.js';
import type { GlobalOptions } from './options.js';
import { resolveValue } from './resolve.js';
import { targetFromEnv, targetProblem } from './target.js';

/** The global options given on the command line, checked: the table's, and `--target`. */
export type GivenGlobals = Partial<Record<OptionKey, unknown>> & { target?: string };

export interface QuickCall {
  method: string;
  params: string | undefined;
  progress: boolean;
  given: GivenGlobals;
  timeout?: number;
}

/** The table's global flags by spelling: `--api-port` -> apiPort. */
const GLOBAL_FLAGS = new Map<string, OptionKey>(
  OPTION_KEYS.filter((key) => (DAEMON_OPTIONS[key].commands as readonly string[]).includes('global')).map((key) => [DAEMON_OPTIONS[key].flag.split(' ')[0]!, key]),
);

/** The plain form of a command line: its words, the global flags given, and call's own two. */
interface PlainArgs {
  positional: string[];
  given: GivenGlobals;
  progress: boolean;
  timeout?: number;
}

/** The words and flags of `args`, or null when something in them is for the full program to read. */
function plainArgs(args: readonly string[]): PlainArgs | null {
  const positional: string[] = [];
  const given: GivenGlobals = {};
  let progress = false;
  let timeout: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--progress') {
      if (progress || positional[0] !== 'call') return null;
      progress = true;
      continue;
    }
    if (!arg.startsWith('-')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const text = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (text === undefined || (eq === -1 && text.startsWith('-'))) return null;
    if (flag === '--timeout') {
      const seconds = Number(text);
      if (timeout !== undefined || !Number.isFinite(seconds) || seconds <= 0) return null;
      timeout = seconds;
      continue;
    }
    if (flag === '--target') {
      if (given.target !== undefined || targetProblem(text) !== null) return null;
      given.target = text;
      continue;
    }
    const key = GLOBAL_FLAGS.get(flag);
    if (key === undefined || key in given) return null;
    const spec: OptionSpec = DAEMON_OPTIONS[key];
    const checked = checkValue(spec.value, fromText(spec.value, text));
    if (!checked.ok) return null;
    given[key] = checked.value;
  }
  return { positional, given, progress, ...(timeout !== undefined ? { timeout } : {}) };
}

/** The call `args` (argv after node and the script) asks for, or null when the full program must read them. */
export function quickCall(args: readonly string[]): QuickCall | null {
  const plain = plainArgs(args);
  if (!plain) return null;
  const {
    positional: [command, method, params, ...more],
    ...flags
  } = plain;
  if (command !== 'call' || method === undefined || more.length > 0) return null;
  return { method, params, ...flags };
}

/**
 * `mcbridge mcp` with nothing but global flags, the form MCP clients are configured with: the
 * global options given, or null. Its first tools/list is timed (issue 14: <= 300 ms from spawn),
 * and commander with the program's definition is about 20 ms of it.
 */
export function quickMcp(args: readonly string[]): GivenGlobals | null {
  const plain = plainArgs(args);
  if (plain?.positional.length !== 1 || plain.positional[0] !== 'mcp' || plain.timeout !== undefined) return null;
  return plain.given;
}

/** The global options: flag, environment, config, default (a bad environment variable is a usage error first). */
async function resolveGlobals(given: GivenGlobals): Promise<GlobalOptions> {
  const globals = (config?: Awaited<ReturnType<typeof clientConfig>>) => Object.fromEntries([...GLOBAL_FLAGS.values()].map((key) => [key, resolveValue(key, given[key] as never, config, true)]));
  globals();
  const target = given.target ?? targetFromEnv();
  return { ...globals(await clientConfig()), ...(target !== undefined ? { target } : {}) } as GlobalOptions;
}

/** Run it as the program's `mcp` would, with the command's defaults. */
export async function runQuickMcp(given: GivenGlobals): Promise<void> {
  const options = await resolveGlobals(given);
  const { mcpCommand } = await import('./mcp.js');
  await mcpCommand({ ...PLAIN_MCP_OPTIONS }, options);
}

/** Run it as the program's `call` would: options from flag, environment, config, default. */
export async function runQuickCall(call: QuickCall): Promise<void> {
  const options = { ...(await resolveGlobals(call.given)), ...(call.timeout !== undefined ? { timeout: call.timeout } : {}) };
  const { callCommand } = await import('./call.js');
  await callCommand(call.method, call.params, { progress: call.progress }, options);
}

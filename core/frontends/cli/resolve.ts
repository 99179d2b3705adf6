/**
 * An option's value after the command line: its environment variable, then the config, then the
 * table's default. Apart from options.ts (commander's side) so that `mcbridge call` resolves its
 * options without loading commander (quick-call.ts).
 */
import path from 'node:path';
import type { McbridgeConfig } from '../../authoring/config.js';
import { DAEMON_OPTIONS, type OptionKey, type OptionSpec, type ResolvedValue } from '../../authoring/options.js';
import { checkValue, fromText } from '../../authoring/option-value.js';
import { UsageError } from './exit.js';

/** A loaded config's values, and the directory its relative paths are relative to. */
export interface ConfigValues {
  values: McbridgeConfig;
  dir: string;
}

/** Text from a flag or the environment, checked as the table says; the refusal is its first message. */
export function parseText(spec: OptionSpec, text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const checked = checkValue(spec.value, fromText(spec.value, text));
  return checked.ok ? checked : { ok: false, message: `${checked.message}, got '${text}'` };
}

function fromEnv(spec: OptionSpec, asClient: boolean): unknown {
  // Empty counts as unset, so `VAR= mcbridge ...` clears it; the predecessor's names come after ours.
  const name = [spec.env, spec.legacyEnv, asClient ? spec.clientEnv : undefined].find((n) => n !== undefined && process.env[n]);
  if (name === undefined) return undefined;
  const text = process.env[name]!;
  const parsed = parseText(spec, text);
  if (!parsed.ok) throw new UsageError(`${name}: ${parsed.message}; fix it or unset it`);
  return parsed.value;
}

/**
 * One option's value, first found: `given` (the command line's), then its environment variable,
 * then the config (a path relative to the config file), then the table's default. `asClient`:
 * for a client command, which reads the predecessor client's variable too (`clientEnv`).
 */
export function resolveValue<K extends OptionKey>(key: K, given: ResolvedValue<K> | undefined, config?: ConfigValues, asClient = false): ResolvedValue<K> {
  const spec: OptionSpec = DAEMON_OPTIONS[key];
  const found = given ?? fromEnv(spec, asClient);
  if (found !== undefined) return found as ResolvedValue<K>;
  const configured = config?.values[key];
  if (configured !== undefined) return (spec.path ? path.resolve(config!.dir, configured as string) : configured) as ResolvedValue<K>;
  return spec.default as ResolvedValue<K>;
}

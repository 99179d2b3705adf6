/**
 * The few config keys a client command (`call`, `tools`, `watch`, `mcp`...) needs, read cheaply:
 * the same file `run` would find, but a JSON config (or package.json "mcbridge") is parsed
 * directly, a JS/TS config's literal values (`apiPort: 9000`) are read from its text, and it is
 * evaluated (through the full loader, jiti and all) only when it computes one of those keys.
 * A config that does not mention them costs a directory walk and one read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DAEMON_OPTIONS, type OptionKey } from '../../authoring/options.js';
import { checkValue } from '../../authoring/option-value.js';
import type { McbridgeConfig } from '../../authoring/config.js';
import { findConfigFile, MAX_CONFIG_BYTES, readJson } from '../../daemon/config/places.js';
import { McbridgeError } from '../../host/errors.js';
import type { ConfigValues } from './resolve.js';

/** What a client reads from the config; the rest belongs to `run`. */
export const CLIENT_KEYS = ['apiHost', 'apiPort', 'apiToken', 'logLevel', 'logFormat'] as const satisfies readonly OptionKey[];

/** Only the client keys, each checked by its option's schema; a bad one is refused naming the file. */
function pick(raw: Record<string, unknown>, file: string): McbridgeConfig {
  const values: Record<string, unknown> = {};
  for (const key of CLIENT_KEYS) {
    if (raw[key] === undefined) continue;
    const checked = checkValue(DAEMON_OPTIONS[key].value, raw[key]);
    if (!checked.ok) {
      throw new McbridgeError('invalid_params', `${file}: ${key}: ${checked.message}; fix the config (or give --${key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} to override it)`);
    }
    values[key] = checked.value;
  }
  return values as McbridgeConfig;
}

/** A number, a quoted string without escapes, `undefined` or `null`, followed by the end of the entry. */
const LITERAL = String.raw`(-?\d+(?:\.\d+)?|'[^'\\\n]*'|"[^"\\\n]*"|undefined|null)\s*(?:,|\}|$)`;

/**
 * The client keys a JS/TS config gives as plain literals (`apiPort: 9000,`), read from its text
 * without running it; null when one is written any other way (computed, spread in, twice) and
 * only evaluating the file can tell. Comments are dropped first, roughly: a commented-out key
 * must not count.
 */
export function literalKeys(source: string): Record<string, unknown> | null {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"\\])\/\/.*$/gm, '$1');
  const values: Record<string, unknown> = {};
  for (const key of CLIENT_KEYS) {
    const mentions = text.match(new RegExp(`\\b${key}\\b`, 'g'))?.length ?? 0;
    if (mentions === 0) continue;
    const found = [...text.matchAll(new RegExp(`\\b${key}\\s*:\\s*${LITERAL}`, 'gm'))];
    if (mentions > 1 || found.length !== 1) return null;
    const raw = found[0]![1]!;
    if (raw === 'undefined' || raw === 'null') continue;
    values[key] = /^['"]/.test(raw) ? raw.slice(1, -1) : Number(raw);
  }
  return values;
}

/** The client keys of the config found from `cwd`, or undefined when there is none (or it sets none). */
export async function clientConfig(cwd = process.cwd()): Promise<ConfigValues | undefined> {
  const file = findConfigFile(cwd);
  if (file === null) return undefined;
  const dir = path.dirname(file);
  if (file.endsWith('.json')) {
    const json = readJson(file);
    if (json === null) throw new McbridgeError('invalid_params', `${file} is not a JSON object; fix it, or see its problems with: mcbridge config`);
    const raw = path.basename(file) === 'package.json' ? json.mcbridge : json;
    if (raw === null || typeof raw !== 'object') return undefined;
    return { values: pick(raw as Record<string, unknown>, file), dir };
  }
  if (fs.statSync(file).size > MAX_CONFIG_BYTES) return undefined;
  const literal = literalKeys(fs.readFileSync(file, 'utf8'));
  if (literal) return Object.keys(literal).length ? { values: pick(literal, file), dir } : undefined;
  // It computes one of our keys: evaluate it as `run` would (loaded only now, and only here).
  const { loadConfig } = await import('../../daemon/config/load.js');
  const loaded = await loadConfig({ file });
  return loaded ? { values: pick(loaded.config as Record<string, unknown>, file), dir } : undefined;
}

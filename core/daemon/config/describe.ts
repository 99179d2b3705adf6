/**
 * `mcbridge config`: the resolved config as JSON, with every secret replaced by "[redacted]": the
 * options the table marks secret, and keys that look secret in plugin options.
 */
import type { McbridgeConfig } from '../../authoring/config.js';
import { DAEMON_OPTIONS, groupKeys, type OptionKey, type OptionSpec } from '../../authoring/options.js';
import type { ConfigPlan } from './runtime.js';
import { deriveComposites, toolFacts, type ToolFacts } from './composites.js';

export const REDACTED = '[redacted]';
/** Keys whose values are secrets wherever they appear in plugins and composites. */
const SECRET_KEY = /token|secret|passw(or)?d|credential|auth|api[-_]?key|private[-_]?key|webhook/i;

/** A deep copy fit to print: secret keys redacted, passwords in URLs too, functions named. */
export function redact(value: unknown, key = ''): unknown {
  if (value === undefined) return undefined;
  if (key && SECRET_KEY.test(key) && value !== null && typeof value !== 'boolean') return REDACTED;
  if (typeof value === 'string') return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@\s]*:)[^@/\s]+@/i, `$1${REDACTED}@`);
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (Array.isArray(value)) return value.map((v) => redact(v));
  if (value !== null && typeof value === 'object') {
    if ('_zod' in value) return '[zod schema]';
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, redact(v, k)]));
  }
  return value;
}

/** One group of the option table: each value the config gives, else its default; secrets redacted. */
function section(keys: readonly OptionKey[], config: McbridgeConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const spec: OptionSpec = DAEMON_OPTIONS[key];
    const value = config[key] ?? spec.default;
    if (value !== undefined) out[key] = spec.secret ? REDACTED : value;
  }
  return out;
}

/**
 * The option sections of `mcbridge config`: `daemon` and `policy` with every default shown and the
 * config's values over them, and `watch` at the top level. With no config, the defaults alone.
 */
export function describeOptions(config: McbridgeConfig = {}): Record<string, unknown> {
  return { daemon: section(groupKeys('daemon'), config), policy: section(groupKeys('policy'), config), ...section(groupKeys('config'), config) };
}

export function describePlan(plan: ConfigPlan, builtins: ReadonlyMap<string, ToolFacts>): Record<string, unknown> {
  const { file, dir, config } = plan.loaded;
  const facts = new Map(builtins);
  for (const [name, fact] of toolFacts(plan.plugins.map((p) => p.plugin))) facts.set(name, fact);
  const derived = deriveComposites(plan.composites, facts, file);
  return {
    file,
    dir,
    ...describeOptions(config),
    plugins: redact(plan.plugins.map((p) => ({
      name: p.plugin.name,
      version: p.plugin.version,
      source: p.source,
      ...(p.package ? { package: p.package.name, from: p.package.dir } : {}),
      ...(p.plugin.description ? { description: p.plugin.description } : {}),
      options: p.options ?? {},
      tools: (p.plugin.tools ?? []).map((t) => t.name),
    }))),
    composites: redact(plan.composites.map((c, i) => {
      const { requires, annotations } = derived[i];
      return { name: c.name, description: c.description, ...(c.uses ? { uses: c.uses } : {}), requires, annotations, ...(c.only ? { only: c.only } : {}) };
    })),
  };
}

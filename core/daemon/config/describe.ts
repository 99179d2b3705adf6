/**
 * `mcbridge config`: the resolved config as JSON, with every secret replaced by "[redacted]".
 */
import { DEFAULT_API_HOST, DEFAULT_API_PORT } from '../../api/server.js';
import { DEFAULT_BUFFER } from '../../host/events/event-log.js';
import type { ToolPolicy } from '../../host/registry/policy.js';
import type { ConfigPlan } from './runtime.js';
import { deriveComposites, toolFacts, type ToolFacts } from './composites.js';
import { DAEMON_KEYS } from './schema.js';

export const REDACTED = '[redacted]';
/** Keys whose values are secrets wherever they appear (plugin options included). */
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

/** The defaults `mcbridge run` uses for what the config leaves out. */
export const DAEMON_DEFAULTS = {
  vantage: 'server',
  sim: false,
  modHost: '127.0.0.1',
  buffer: DEFAULT_BUFFER,
  apiHost: DEFAULT_API_HOST,
  apiPort: DEFAULT_API_PORT,
  allowRemote: false,
  logLevel: 'info',
} as const;

export function describePlan(plan: ConfigPlan, builtins: ReadonlyMap<string, ToolFacts>): Record<string, unknown> {
  const { file, dir, config } = plan.loaded;
  const daemon: Record<string, unknown> = { ...DAEMON_DEFAULTS };
  for (const key of DAEMON_KEYS) if (config[key] !== undefined) daemon[key] = config[key];
  const facts = new Map(builtins);
  for (const [name, fact] of toolFacts(plan.plugins.map((p) => p.plugin))) facts.set(name, fact);
  const derived = deriveComposites(plan.composites, facts, file);
  const policy: ToolPolicy = { readOnly: plan.policy.readOnly ?? false, ...plan.policy };
  return redact({
    file,
    dir,
    daemon,
    policy,
    watch: config.watch ?? true,
    plugins: plan.plugins.map((p) => ({
      name: p.plugin.name,
      version: p.plugin.version,
      source: p.source,
      ...(p.package ? { package: p.package.name, from: p.package.dir } : {}),
      ...(p.plugin.description ? { description: p.plugin.description } : {}),
      options: p.options ?? {},
      tools: (p.plugin.tools ?? []).map((t) => t.name),
    })),
    composites: plan.composites.map((c, i) => {
      const { requires, annotations } = derived[i];
      return { name: c.name, description: c.description, ...(c.uses ? { uses: c.uses } : {}), requires, annotations, ...(c.only ? { only: c.only } : {}) };
    }),
  }) as Record<string, unknown>;
}

/**
 * `mcbridge config`: the resolved config as JSON, with every secret replaced by "[redacted]": the
 * options the table marks secret, and keys that look secret in plugin options.
 */
import { targetSpecs } from './targets.js';
import type { McbridgeConfig } from '../../authoring/config.js';
import { DAEMON_OPTIONS, groupKeys, type OptionKey, type OptionSpec } from '../../authoring/options.js';
import type { ConfigPlan } from './runtime.js';
import { deriveComposites, scenarioAt, toolFacts, type ToolFacts } from './composites.js';
import { REDACTED, redactValue } from '../../util/redact.js';
import { builtinPlugins } from '../builtins.js';
import { builtinOptions } from './builtin-options.js';

/** Printed whole (no cuts), but secret-named keys, URL credentials, paths and queries hidden; bounded against cycles. */
function redact(value: unknown): unknown {
  return redactValue(value, { maxString: Infinity, maxItems: Infinity, maxDepth: 32 });
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
    // Each target as the daemon builds it: paths resolved, what it leaves out from the flat options.
    ...(config.targets ? { targets: targetSpecs(config.targets, dir, config) } : {}),
    // Each configured built-in's options under its name, however the config spelled them.
    ...Object.fromEntries([...builtinOptions(config as Record<string, unknown>, file, builtinPlugins)].map(([name, options]) => [name, redact(options)])),
    plugins: redact(
      plan.plugins.map((p) => ({
        name: p.plugin.name,
        version: p.plugin.version,
        source: p.source,
        ...(p.package ? { package: p.package.name, from: p.package.dir } : {}),
        ...(p.plugin.description ? { description: p.plugin.description } : {}),
        options: p.options ?? {},
        tools: (p.plugin.tools ?? []).map((t) => t.name),
      })),
    ),
    composites: redact(
      plan.composites.map((c, i) => {
        const { requires, annotations } = derived[i];
        const scenario = scenarioAt(c);
        return { name: c.name, description: c.description, ...(scenario ? { scenario } : {}), ...(c.uses ? { uses: c.uses } : {}), requires, annotations, ...(c.only ? { only: c.only } : {}) };
      }),
    ),
  };
}

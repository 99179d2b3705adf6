export { defineConfig, defineComposite, configSchema, DAEMON_KEYS } from './schema.js';
export type { McbridgeConfig, PluginConfigEntry, CompositeSpec, CompositeContext, DaemonKey } from './schema.js';
export { loadConfig, inlineConfig, validateConfig, SEARCH_PLACES, type LoadedConfig } from './load.js';
export { ConfigError, type ConfigProblem } from './errors.js';
export { resolvePlugins, resolvePackage, candidateNames, type ResolvedPlugin } from './plugins.js';
export { COMPOSITES_PLUGIN, compositesPlugin, deriveComposite, deriveComposites, toolFacts } from './composites.js';
export { ConfigRuntime, planConfig, mergePolicy, neighboursOf, type ConfigPlan, type ReloadResult } from './runtime.js';
export { describePlan, redact, REDACTED } from './describe.js';

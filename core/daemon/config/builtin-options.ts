/**
 * Options of the built-in plugins, given like any plugin's: a `plugins` entry that names a
 * built-in (`['webhook', { ... }]`) configures the one already loaded instead of loading another.
 * The spelling from before, a top-level key named after the plugin (`webhook: { ... }`), is read
 * the same way. Each is checked by the plugin's own schema, so errors name the place in the file.
 */
import type { Plugin } from '../../host/plugin-api.js';
import { ConfigError, zodProblems, type ConfigProblem } from './errors.js';

/** The built-in plugin a `plugins` entry names (by its name), if it names one. */
export function builtinNamed(entry: unknown, builtins: readonly Plugin[]): Plugin | undefined {
  const target = Array.isArray(entry) ? entry[0] : entry;
  return typeof target === 'string' ? builtins.find((p) => p.name === target.trim()) : undefined;
}

/** The built-ins that take options: each may also be configured by a top-level key of its name. */
export function configurableBuiltins(builtins: readonly Plugin[]): Plugin[] {
  return builtins.filter((p) => p.options !== undefined);
}

/**
 * Each configured built-in's options as written (the host parses them when it loads the plugin),
 * checked here first. Throws a ConfigError naming every problem.
 */
export function builtinOptions(config: Record<string, unknown>, file: string | null, builtins: readonly Plugin[]): Map<string, unknown> {
  const found = new Map<string, { options: unknown; at: string }>();
  const problems: ConfigProblem[] = [];
  const add = (plugin: Plugin, options: unknown, at: string, optionsAt: Array<string | number>) => {
    const earlier = found.get(plugin.name);
    if (earlier) {
      problems.push({ path: at, message: `the built-in plugin '${plugin.name}' is configured twice (also by ${earlier.at}); give its options once, as plugins: [['${plugin.name}', { ... }]]` });
      return;
    }
    if (!plugin.options) {
      if (options !== undefined) problems.push({ path: at, message: `the built-in plugin '${plugin.name}' takes no options; it is always loaded, so leave this entry out` });
      return;
    }
    const parsed = plugin.options.safeParse(options ?? {});
    if (!parsed.success) problems.push(...zodProblems(parsed.error, optionsAt));
    found.set(plugin.name, { options, at });
  };
  for (const plugin of configurableBuiltins(builtins)) {
    if (config[plugin.name] !== undefined) add(plugin, config[plugin.name], plugin.name, [plugin.name]);
  }
  const entries = Array.isArray(config.plugins) ? (config.plugins as unknown[]) : [];
  entries.forEach((entry, i) => {
    const plugin = builtinNamed(entry, builtins);
    if (plugin) add(plugin, Array.isArray(entry) ? entry[1] : undefined, `plugins[${i}]`, ['plugins', i, 1]);
  });
  if (problems.length > 0) throw new ConfigError(file, problems);
  return new Map([...found].map(([name, { options }]) => [name, options]));
}

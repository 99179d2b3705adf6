/**
 * The `plugins` list of a config: plugin objects, or package names resolved from the config's
 * own directory (its node_modules, like Node would) and imported. Each entry is checked here,
 * so an error names the config file and `plugins[i]`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { createJiti } from 'jiti';
import type { PluginEntry } from '../../host/host.js';
import { describeZodError } from '../../host/host.js';
import { validatePlugin } from '../../host/define.js';
import type { Plugin } from '../../host/plugin-api.js';
import { ConfigError } from './errors.js';
import { importModule } from './load.js';
import { fallBackToRunningPackages } from './package-hook.js';
import { builtinPlugins } from '../builtins.js';
import { builtinNamed } from './builtin-options.js';

export interface ResolvedPlugin extends PluginEntry {
  source: 'config' | 'npm';
  /** Where in the config: `plugins[2]`. */
  at: string;
  /** For npm plugins: the package name and its directory. */
  package?: { name: string; dir: string; entry: string };
  /** Same key on a reload: the same plugin with the same options, kept running. */
  key: string;
  /** A factory the config gave: each target's host gets an instance of its own (`plugin` is the one checked here). */
  create?: () => Plugin;
}

const resolver = createJiti(import.meta.url);
const objectIds = new WeakMap<object, number>();
let nextObjectId = 1;

/** A plugin object keeps its id while it is the same object (e.g. imported from a package). */
function objectId(plugin: object): number {
  let id = objectIds.get(plugin);
  if (id === undefined) {
    id = nextObjectId++;
    objectIds.set(plugin, id);
  }
  return id;
}

/** `foo` → mcbridge-plugin-foo, `@scope/foo` → @scope/mcbridge-plugin-foo, `@scope` → @scope/mcbridge-plugin; the literal name last. */
export function candidateNames(name: string): string[] {
  const scoped = /^(@[^/]+)(?:\/(.+))?$/.exec(name);
  if (scoped) {
    const [, scope, rest] = scoped;
    if (rest === undefined) return [`${scope}/mcbridge-plugin`];
    return rest.startsWith('mcbridge-plugin') ? [name] : [`${scope}/mcbridge-plugin-${rest}`, name];
  }
  return name.startsWith('mcbridge-plugin-') ? [name] : [`mcbridge-plugin-${name}`, name];
}

/** The nearest package.json above `file` that carries `name`. */
function packageDirOf(file: string, name: string): string | null {
  let dir = path.dirname(file);
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if ((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown }).name === name) return dir;
      } catch {
        // not a readable manifest; keep looking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Resolve a package the way `import` would from a file in `fromDir`. */
export function resolvePackage(name: string, fromDir: string): { name: string; dir: string; entry: string } | null {
  for (const candidate of candidateNames(name)) {
    const url = resolver.esmResolve(candidate, { parentURL: pathToFileURL(path.join(fromDir, 'mcbridge.config.js')).href, try: true });
    if (!url) continue;
    const entry = url.startsWith('file:') ? fileURLToPath(url) : url;
    return { name: candidate, dir: packageDirOf(entry, candidate) ?? path.dirname(entry), entry };
  }
  return null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return typeof value;
}

/** Its own module system: compiled packages are imported natively, TypeScript ones through jiti. */
async function importPackage(entry: string): Promise<unknown> {
  fallBackToRunningPackages();
  if (/\.[cm]?tsx?$/.test(entry)) return importModule(entry);
  const mod = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
  return mod.default ?? mod.plugin ?? mod;
}

function looksLikePlugin(value: unknown): value is Plugin {
  return typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string';
}

/** Options are stable across reloads when they serialise alike (functions by their source). */
function stableKey(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value ?? null, (_key, v: unknown) => {
    if (typeof v === 'function') return `fn:${String(v)}`;
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[cycle]';
      seen.add(v);
      if (!Array.isArray(v)) return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)));
    }
    return v;
  });
}

async function resolveOne(entry: unknown, index: number, file: string | null, dir: string): Promise<ResolvedPlugin | null> {
  const at = `plugins[${index}]`;
  const fail = (message: string, where = at): never => {
    throw new ConfigError(file, [{ path: where, message }]);
  };
  if (entry === false || entry === null || entry === undefined) return null;
  // Options for a built-in (builtin-options.ts), not a plugin to load.
  if (builtinNamed(entry, builtinPlugins)) return null;
  let target: unknown = entry;
  let options: unknown;
  let optionsAt = `${at}.options`;
  if (Array.isArray(entry)) {
    if (entry.length < 1 || entry.length > 2) fail(`expected [plugin or package name, options], got ${describe(entry)}`);
    [target, options] = entry;
    optionsAt = `${at}[1]`;
  }
  let plugin: unknown;
  let create: (() => Plugin) | undefined;
  let source: ResolvedPlugin['source'] = 'config';
  let pkg: ResolvedPlugin['package'];
  if (typeof target === 'string') {
    const name = target.trim();
    if (!/^(@[a-z0-9][a-z0-9._-]*\/?)?[a-z0-9._-]*$/.test(name) || name === '') {
      fail(`'${target}' is not a package name; expected e.g. 'mcbridge-plugin-foo' or '@scope/mcbridge-plugin-foo'`);
    }
    const found = resolvePackage(name, dir);
    if (!found) {
      const tried = candidateNames(name).join(', ');
      fail(`cannot find the plugin package '${name}' from ${dir} (looked for ${tried} in node_modules); install it with \`npm install ${candidateNames(name)[0]}\``);
    }
    pkg = found!;
    source = 'npm';
    try {
      plugin = await importPackage(pkg.entry);
    } catch (err) {
      fail(`the package '${pkg.name}' (${pkg.entry}) failed to load: ${(err as Error)?.message ?? String(err)}`);
    }
    if (typeof plugin === 'function') [plugin, create] = fromFactory(plugin, `the package '${pkg.name}'`, fail);
    if (!looksLikePlugin(plugin)) {
      fail(`the package '${pkg.name}' does not export a plugin: its default export should be definePlugin({ name, version, apiVersion, tools }), got ${describe(plugin)}`);
    }
  } else if (looksLikePlugin(target)) {
    plugin = target;
  } else if (typeof target === 'function') {
    [plugin, create] = fromFactory(target, 'the factory', fail);
  } else {
    fail(`expected a plugin object (definePlugin({ ... })), a factory returning one, a package name such as 'mcbridge-plugin-foo', or [plugin, options]; got ${describe(target)}`);
  }

  let valid: Plugin;
  try {
    valid = validatePlugin(plugin, pkg ? `package ${pkg.name}` : 'config');
  } catch (err) {
    return fail((err as Error).message);
  }
  if (valid.options) {
    const parsed = valid.options.safeParse(options ?? {});
    if (!parsed.success) {
      fail(`options of plugin '${valid.name}' are invalid: ${describeZodError(parsed.error, 'options')}`, optionsAt);
    }
  }
  const resolved: ResolvedPlugin = {
    plugin: valid,
    source,
    options,
    at,
    key: pkg ? `npm:${pkg.entry}@${valid.version}:${stableKey(options)}` : `object:${objectId(create ?? valid)}:${stableKey(options)}`,
    from: pkg ? pkg.dir : (file ?? dir),
  };
  if (pkg) resolved.package = pkg;
  if (create) resolved.create = create;
  return resolved;
}

/**
 * A plugin given as a factory (`() => definePlugin({...})`): called once here to check what it
 * makes, and again for each target (docs/plugins.md, "One instance per target").
 */
function fromFactory(factory: object, what: string, fail: (message: string) => never): [unknown, () => Plugin] {
  // Every later call (one per target, again on reload) answers a throw the same way.
  const create = (): Plugin => {
    try {
      return (factory as () => Plugin)();
    } catch (err) {
      return fail(`${what} threw instead of returning a plugin: ${(err as Error)?.message ?? String(err)}`);
    }
  };
  return [create(), create];
}

/** Every entry of `plugins`, resolved and checked; throws the first problem as a ConfigError. */
export async function resolvePlugins(entries: readonly unknown[], file: string | null, dir: string): Promise<ResolvedPlugin[]> {
  const out: ResolvedPlugin[] = [];
  for (const [index, entry] of entries.entries()) {
    const resolved = await resolveOne(entry, index, file, dir);
    if (resolved) out.push(resolved);
  }
  return out;
}

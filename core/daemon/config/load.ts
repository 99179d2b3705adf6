/**
 * Finding and loading `mcbridge.config.*`: cosmiconfig searches, jiti loads every JavaScript and
 * TypeScript flavour (so a TS config can import local .ts files), and the result is checked
 * against the config schema with errors that name the file and the path inside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CosmiconfigResult, Loader } from 'cosmiconfig';
import type { Jiti } from 'jiti';
import type { McbridgeConfig } from '../../authoring/config.js';
import { configSchema } from './schema.js';
import { builtinPlugins } from '../builtins.js';
import { builtinOptions } from './builtin-options.js';
import { ConfigError, zodProblems } from './errors.js';
import { configTimeoutMs, probeConfig, withinConfigTimeout } from './probe.js';
import { runningPackageAliases } from './self-alias.js';
import { configsPassedOver, findConfigFile, SEARCH_PLACES } from './places.js';

export { SEARCH_PLACES } from './places.js';

export interface LoadedConfig {
  /** Absolute path of the file it came from; null for a config given as an object (tests). */
  file: string | null;
  /** Config files beside it that the search passed over (places.ts); none when the file was named. */
  passedOver?: string[];
  /** Relative paths and package names resolve from here: the file's directory. */
  dir: string;
  config: McbridgeConfig;
}

let jitiInstance: Promise<Jiti> | undefined;

/**
 * jiti, loaded on first use: a daemon without a JS or TS config never pays for it (about 10 MB
 * and a tenth of a second; docs/decisions.md, "run loads what it uses").
 * moduleCache: false evaluates the config (and the local files it imports) afresh on every
 * load, so a reload sees the edit; packages under node_modules are imported natively once.
 * `alias` points 'mcbridge', 'mcbridge/*' and 'zod' at the running mcbridge's (self-alias.ts).
 */
function jiti(): Promise<Jiti> {
  jitiInstance ??= import('jiti').then(({ createJiti }) => createJiti(import.meta.url, { moduleCache: false, interopDefault: true, alias: runningPackageAliases() }));
  return jitiInstance;
}

/** Import any JS/TS module through jiti; its default export (or the namespace without one). */
export async function importModule(file: string): Promise<unknown> {
  return (await jiti()).import(file, { default: true });
}

/**
 * A config module evaluated afresh. jiti imports plain JavaScript natively, and Node caches it
 * for good, so they are transpiled and evaluated by jiti itself instead (forceTranspile).
 */
async function importFresh(file: string): Promise<unknown> {
  if (!/\.[cm]?js$/.test(file)) return importModule(file);
  const mod = (await (await jiti()).evalModule(fs.readFileSync(file, 'utf8'), { filename: file, async: true, forceTranspile: true })) as { default?: unknown } | null | undefined;
  return mod && typeof mod === 'object' && 'default' in mod && mod.default !== undefined ? mod.default : mod;
}

/** Evaluate a config module, first in a worker that can be stopped, then here; both bounded in time. */
function jitiLoader(timeoutMs: number): Loader {
  return async (filepath) => {
    await probeConfig(filepath, timeoutMs);
    const loaded = await withinConfigTimeout(filepath, importFresh(filepath), timeoutMs);
    // `export default undefined` (jiti hands back the namespace then) and an empty module both
    // mean "no config here".
    const emptyDefault = loaded !== null && typeof loaded === 'object' && 'default' in loaded && loaded.default === undefined;
    return emptyDefault ? null : (loaded ?? null);
  };
}

async function explorer(timeoutMs: number) {
  const js = jitiLoader(timeoutMs);
  const { cosmiconfig, defaultLoaders } = await import('cosmiconfig');
  return cosmiconfig('mcbridge', {
    searchPlaces: [...SEARCH_PLACES],
    searchStrategy: 'project',
    packageProp: 'mcbridge',
    // Every load reads the file again: reloads must see edits.
    cache: false,
    loaders: {
      '.ts': js,
      '.mts': js,
      '.cts': js,
      '.js': js,
      '.mjs': js,
      '.cjs': js,
      '.json': defaultLoaders['.json'],
    },
  });
}

/** Check what a config file exported; the problems name paths inside it. */
export function validateConfig(raw: unknown, file: string | null): McbridgeConfig {
  if (typeof raw === 'function') {
    throw new ConfigError(file, [{ path: '', message: 'exports a function; export the config object itself: export default defineConfig({ ... })' }]);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    const got = raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw;
    throw new ConfigError(file, [{ path: '', message: `must export an object (export default defineConfig({ ... })), got ${got}` }]);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(file, zodProblems(parsed.error));
  builtinOptions(raw as Record<string, unknown>, file, builtinPlugins);
  return raw as McbridgeConfig;
}

function loadFailure(file: string, err: unknown): ConfigError {
  if (err instanceof ConfigError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ConfigError(file, [{ path: '', message: `could not be loaded: ${message}` }], { cause: message });
}

/**
 * Load the config named by `file`, or search for one from `cwd` up to the project root (the first
 * directory with a package.json). Null when there is none.
 */
export async function loadConfig(options: { cwd?: string; file?: string; timeoutMs?: number } = {}): Promise<LoadedConfig | null> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const timeoutMs = options.timeoutMs ?? configTimeoutMs();
  if (options.file !== undefined) {
    const file = path.resolve(cwd, options.file);
    if (!fs.existsSync(file)) {
      throw new ConfigError(file, [{ path: '', message: 'does not exist; pass an existing file to --config, or leave it out to search the working directory' }]);
    }
    let result: CosmiconfigResult;
    try {
      result = await (await explorer(timeoutMs)).load(file);
    } catch (err) {
      throw loadFailure(file, err);
    }
    if (result === null || result.isEmpty || result.config === undefined || result.config === null) {
      // Saving an empty file must not reload as "no plugins, no composites".
      throw new ConfigError(file, [
        {
          path: '',
          message: path.basename(file) === 'package.json' ? 'has no "mcbridge" key to read a config from' : 'is empty or exports nothing: export default defineConfig({ ... })',
        },
      ]);
    }
    return { file, dir: path.dirname(file), config: validateConfig(result.config, file) };
  }
  // Nothing to find: cosmiconfig is not even loaded.
  if (findConfigFile(cwd) === null) return null;
  let result: CosmiconfigResult;
  try {
    result = await (await explorer(timeoutMs)).search(cwd);
  } catch (err) {
    const file = (err as { filepath?: unknown }).filepath;
    throw loadFailure(typeof file === 'string' ? file : path.join(cwd, 'mcbridge.config'), err);
  }
  if (!result) return null;
  const passedOver = configsPassedOver(result.filepath);
  return { file: result.filepath, dir: path.dirname(result.filepath), config: validateConfig(result.config, result.filepath), ...(passedOver.length > 0 ? { passedOver } : {}) };
}

/** A config given as an object (tests, embedding programs), checked like a file. */
export function inlineConfig(config: McbridgeConfig, dir = process.cwd()): LoadedConfig {
  return { file: null, dir: path.resolve(dir), config: validateConfig(config, null) };
}

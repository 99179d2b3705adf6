import fs from 'node:fs';
import path from 'node:path';

/**
 * Where a config is looked for, in this order, in the working directory and up to the project root
 * (the first directory with a package.json). Its own module so client commands can find the file
 * without loading the config loader (cosmiconfig, jiti).
 */
export const SEARCH_PLACES = [
  'mcbridge.config.ts',
  'mcbridge.config.mts',
  'mcbridge.config.cts',
  'mcbridge.config.js',
  'mcbridge.config.mjs',
  'mcbridge.config.cjs',
  'mcbridge.config.json',
  'package.json',
] as const;

/** A config file bigger than this is not read by a client (a real one is a few KiB). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * The config file a search from `cwd` finds: the first search place, from `cwd` up to the project
 * root. Read without cosmiconfig, so a client (and `run` without a config) never loads it.
 */
export function findConfigFile(cwd = process.cwd()): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const found = configFilesIn(dir)[0];
    if (found !== undefined) return found;
    const parent = path.dirname(dir);
    if (isFile(path.join(dir, 'package.json')) || parent === dir) return null;
    dir = parent;
  }
}

/** Every file in `dir` a search would take, in search order: the first is the one used. */
export function configFilesIn(dir: string): string[] {
  return SEARCH_PLACES.map((place) => path.join(dir, place)).filter(isConfig);
}

/**
 * The other config files beside a found one, which a search passes over (the README's blocks
 * once wrote a mcbridge.config.mjs beside a clone's mcbridge.config.ts, and nothing said so).
 */
export function configsPassedOver(file: string): string[] {
  const others = configFilesIn(path.dirname(file));
  return others.includes(file) ? others.filter((other) => other !== file) : [];
}

function isConfig(file: string): boolean {
  if (!isFile(file)) return false;
  return path.basename(file) === 'package.json' ? readJson(file)?.mcbridge !== undefined : fs.statSync(file).size > 0;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function readJson(file: string): Record<string, unknown> | null {
  try {
    if (fs.statSync(file).size > MAX_CONFIG_BYTES) return null;
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

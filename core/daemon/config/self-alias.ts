/**
 * A config imports 'mcbridge', 'mcbridge/kit' and 'zod'. A server directory rarely has mcbridge
 * installed (it runs from a global install or a clone), so those names are resolved to the copies
 * the running mcbridge uses: the config then works anywhere, and it shares one copy of each with
 * the daemon (one McbridgeError class, one zod). The map is handed to jiti as its `alias` option.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory of the package called `name` that holds `file`, walking up. */
function packageRoot(file: string, name: string): string | null {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if ((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown }).name === name) return dir;
      } catch {
        // An unreadable package.json is not the one we look for.
      }
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/** The ESM file an `exports` entry points to (the `import` or `default` condition, nested or not). */
function importTarget(entry: unknown): string | null {
  if (typeof entry === 'string') return entry;
  if (entry === null || typeof entry !== 'object') return null;
  const conditions = entry as Record<string, unknown>;
  for (const key of ['import', 'node', 'default']) {
    const target = importTarget(conditions[key]);
    if (target) return target;
  }
  return null;
}

/** `name` and each of its exported subpaths (no wildcards) -> absolute file. */
function packageAliases(root: string, name: string): Record<string, string> {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports?: unknown };
  const exportsField = manifest.exports;
  const entries: Array<[string, unknown]> =
    exportsField !== null && typeof exportsField === 'object' && Object.keys(exportsField).every((k) => k.startsWith('.'))
      ? Object.entries(exportsField as Record<string, unknown>)
      : [['.', exportsField]];
  const aliases: Record<string, string> = {};
  for (const [subpath, entry] of entries) {
    const target = importTarget(entry);
    if (subpath.includes('*') || !target || subpath === './package.json') continue;
    aliases[subpath === '.' ? name : `${name}/${subpath.slice(2)}`] = path.join(root, target);
  }
  return aliases;
}

/** The directory of the mcbridge package that is running (a clone or an installed copy). */
export function runningMcbridgeRoot(): string | null {
  return packageRoot(fileURLToPath(import.meta.url), 'mcbridge');
}

let cached: Record<string, string> | null = null;

/** The alias map for config files: mcbridge's entry points and zod's, as the running mcbridge has them. */
export function runningPackageAliases(): Record<string, string> {
  if (cached) return cached;
  const aliases: Record<string, string> = {};
  const self = runningMcbridgeRoot();
  if (self) Object.assign(aliases, packageAliases(self, 'mcbridge'));
  const zod = packageRoot(createRequire(import.meta.url).resolve('zod'), 'zod');
  if (zod) Object.assign(aliases, packageAliases(zod, 'zod'));
  cached = aliases;
  return aliases;
}

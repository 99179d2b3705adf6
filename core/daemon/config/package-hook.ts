/**
 * A plugin package installed in a server directory imports 'mcbridge' and 'zod' itself, with
 * Node's own resolution: where mcbridge runs from a global install, those names are not found
 * beside the plugin. A module resolve hook (node:module `register`) lets such an import fall back
 * to the running mcbridge's copies (the same map the config loader gives jiti, self-alias.ts).
 * Only a failed resolution falls back: a plugin that ships or finds its own copy keeps it.
 */
import { register } from 'node:module';
import { runningPackageAliases } from './self-alias.js';

// Runs on Node's loader thread; kept as text so it works from the sources and from the build alike.
const HOOK_SOURCE = `
import { pathToFileURL } from 'node:url';
let aliases = {};
export function initialize(data) { aliases = data.aliases; }
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    const target = aliases[specifier];
    if (!target || err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    return { url: pathToFileURL(target).href, shortCircuit: true };
  }
}
`;

let registered = false;

/** Install the fallback once per process, before the first plugin package is imported. */
export function fallBackToRunningPackages(): void {
  if (registered) return;
  registered = true;
  register(`data:text/javascript,${encodeURIComponent(HOOK_SOURCE)}`, { data: { aliases: runningPackageAliases() } });
}

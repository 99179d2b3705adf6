import { builtinPlugins } from '../../core/daemon/builtins.js';
import type { VerbLookup } from '../../core/host/link/verbs.js';
import { VerbTable } from '../../core/host/registry/verb-table.js';

/** The verbs the built-in plugins declare, looked up the way the host hands them to a ModLink. */
export function builtinVerbs(): VerbLookup {
  const table = new VerbTable();
  for (const plugin of builtinPlugins) table.add(plugin);
  return (verb, arg) => table.lookup(verb, arg);
}

import type { McbridgeConfig, Plugin } from '../index.js';
import type { PluginEntry } from '../host/host.js';
import { builtinOptions } from './config/builtin-options.js';
import { capabilitiesPlugin } from '../../plugins/capabilities/index.js';
import { clientPlugin } from '../../plugins/client/index.js';
import { commandPlugin } from '../../plugins/command/index.js';
import { commandOutputPlugin } from '../../plugins/command-output/index.js';
import { contextPlugin } from '../../plugins/context/index.js';
import { entitiesPlugin } from '../../plugins/entities/index.js';
import { eventsPlugin } from '../../plugins/events/index.js';
import { forkPlugin } from '../../plugins/fork/index.js';
import { createLogsPlugin } from '../../plugins/logs/index.js';
import { createServerPlugin } from '../../plugins/server/index.js';
import { leasesPlugin } from '../../plugins/leases/index.js';
import { markPlugin } from '../../plugins/mark/index.js';
import { playerPlugin } from '../../plugins/player/index.js';
import { requestStatusPlugin } from '../../plugins/request-status/index.js';
import { restorePlugin } from '../../plugins/restore/index.js';
import { savePlugin } from '../../plugins/save/index.js';
import { createSnapshotPlugin } from '../../plugins/snapshot/index.js';
import { statePlugin } from '../../plugins/state/index.js';
import { statusPlugin } from '../../plugins/status/index.js';
import { waitPlugin } from '../../plugins/wait/index.js';
import { waitForPlugin } from '../../plugins/wait-for/index.js';
import { createWebhookPlugin } from '../../plugins/webhook/index.js';

/**
 * The capabilities every daemon serves, each through the public plugin API. A factory stands for
 * a built-in that keeps state of its own in its closures (a forwarder and its spool, recovery
 * reports): every target's host gets a fresh one, as a config may give a factory for its own.
 */
const BUILTINS: ReadonlyArray<Plugin | (() => Plugin)> = [
  statusPlugin,
  capabilitiesPlugin,
  statePlugin,
  savePlugin,
  createSnapshotPlugin,
  forkPlugin,
  restorePlugin,
  playerPlugin,
  entitiesPlugin,
  commandPlugin,
  commandOutputPlugin,
  contextPlugin,
  eventsPlugin,
  waitForPlugin,
  markPlugin,
  waitPlugin,
  clientPlugin,
  requestStatusPlugin,
  leasesPlugin,
  createWebhookPlugin,
  createLogsPlugin,
  // After logs: the console has its reader before the first server prints anything.
  createServerPlugin,
];

const make = (builtin: Plugin | (() => Plugin)): Plugin => (typeof builtin === 'function' ? builtin() : builtin);

/** One instance of each built-in, for what describes them (names, options, the default surface). */
export const builtinPlugins: Plugin[] = BUILTINS.map(make);

/**
 * The built-ins as host entries, new instances where a plugin keeps state. A built-in the config gives options to (`plugins: [['webhook',
 * {...}]]`, or its name as a key) gets them, and every built-in resolves its paths from the
 * config's folder.
 */
export function builtinEntries(config?: { config: McbridgeConfig; file: string | null; dir: string }): PluginEntry[] {
  const options = config ? builtinOptions(config.config as Record<string, unknown>, config.file, builtinPlugins) : new Map<string, unknown>();
  return BUILTINS.map((builtin) => {
    const plugin = make(builtin);
    return {
      plugin,
      source: 'built-in' as const,
      ...(options.has(plugin.name) ? { options: options.get(plugin.name) } : {}),
      ...(config ? { configDir: config.dir } : {}),
    };
  });
}

/** Commands a built-in plugin runs outside the daemon: the CLI registers them, each loads when run. */
export const builtinCommands = {
  forward: () => import('../../plugins/webhook/standalone.js'),
};

// The MCP front-end answers `capabilities` itself while no daemon answers, in the tool's own shape.
export { describeSurface } from '../../plugins/capabilities/index.js';

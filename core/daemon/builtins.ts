import path from 'node:path';
import type { McbridgeConfig, Plugin } from '../index.js';
import type { PluginEntry } from '../host/host.js';
import { capabilitiesPlugin } from '../../plugins/capabilities/index.js';
import { clientPlugin } from '../../plugins/client/index.js';
import { commandPlugin } from '../../plugins/command/index.js';
import { commandOutputPlugin } from '../../plugins/command-output/index.js';
import { contextPlugin } from '../../plugins/context/index.js';
import { entitiesPlugin } from '../../plugins/entities/index.js';
import { eventsPlugin } from '../../plugins/events/index.js';
import { forkPlugin } from '../../plugins/fork/index.js';
import { forkOptions } from '../../plugins/fork/world-check.js';
import { markPlugin } from '../../plugins/mark/index.js';
import { playerPlugin } from '../../plugins/player/index.js';
import { restorePlugin } from '../../plugins/restore/index.js';
import { savePlugin } from '../../plugins/save/index.js';
import { snapshotPlugin } from '../../plugins/snapshot/index.js';
import { statePlugin } from '../../plugins/state/index.js';
import { statusPlugin } from '../../plugins/status/index.js';
import { waitPlugin } from '../../plugins/wait/index.js';
import { waitForPlugin } from '../../plugins/wait-for/index.js';
import { webhookPlugin } from '../../plugins/webhook/index.js';

/** The capabilities every daemon serves, each through the public plugin API. */
export const builtinPlugins: Plugin[] = [
  statusPlugin,
  capabilitiesPlugin,
  statePlugin,
  savePlugin,
  snapshotPlugin,
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
  webhookPlugin,
];

/**
 * The built-ins as host entries. A built-in with options in the config gets them: `webhook` is
 * the webhook plugin's, `fork` the fork plugin's, their paths made relative to the config's directory.
 */
export function builtinEntries(config?: { config: McbridgeConfig; dir: string }): PluginEntry[] {
  const webhook = config?.config.webhook;
  const at = (file: string | undefined) => (file === undefined ? undefined : path.resolve(config!.dir, file));
  const webhookOptions = webhook && {
    ...webhook,
    ...(webhook.spool !== undefined ? { spool: at(webhook.spool) } : {}),
    ...(webhook.receivers ? { receivers: webhook.receivers.map((r) => ({ ...r, ...(r.urlFile ? { urlFile: at(r.urlFile) } : {}), ...(r.secretFile ? { secretFile: at(r.secretFile) } : {}) })) } : {}),
  };
  const fork = config?.config.fork;
  const forkEntry = fork && { ...fork, ...(fork.allowedWorldRoots ? { allowedWorldRoots: fork.allowedWorldRoots.map((dir) => at(dir)!) } : {}) };
  return builtinPlugins.map((plugin) => ({
    plugin,
    source: 'built-in' as const,
    ...(plugin === webhookPlugin && webhookOptions ? { options: webhookOptions } : {}),
    ...(plugin === forkPlugin && forkEntry ? { options: forkEntry } : {}),
  }));
}

// The standalone `mcbridge forward` runs the webhook plugin's engine outside the daemon; this
// file is the one place above the plugins that may reach into them (tests/support/layers.ts).
export { Forwarder, type ForwarderStatus } from '../../plugins/webhook/forwarder.js';
export { resolveReceivers, webhookConfigEntry } from '../../plugins/webhook/config.js';
export { forkOptions as forkConfigEntry };
export { Spool } from '../../plugins/webhook/spool.js';
// The MCP front-end answers `capabilities` itself while no daemon answers, in the tool's own shape.
export { describeSurface } from '../../plugins/capabilities/index.js';

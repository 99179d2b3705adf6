import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin, defineTool } from '../../../../core/index.js';
import { ApiClient } from '../../../../core/api/client.js';
import { inlineConfig } from '../../../../core/daemon/config/load.js';
import { targetSpecs } from '../../../../core/daemon/config/targets.js';
import { startDaemon, type Daemon } from '../../../../core/daemon/daemon.js';
import { silentLogger } from '../../../../core/util/log.js';
import { waitUntil } from '../../../support/helpers.js';

const daemons: Daemon[] = [];
const clients: ApiClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const d of daemons.splice(0)) await d.stop();
});

/** A plugin that counts its calls in its closure, and says which target it was set up for. */
function createCounterPlugin() {
  let calls = 0;
  let setUpFor = '';
  return definePlugin({
    name: 'counter',
    version: '1.0.0',
    apiVersion: 1,
    setup: (ctx) => {
      setUpFor = ctx.host.target;
    },
    tools: [
      defineTool({
        name: 'count',
        description: 'Counts its own calls.',
        input: z.object({}),
        annotations: { readOnly: true },
        run: async () => ({ calls: ++calls, setUpFor }),
      }),
    ],
  });
}

async function daemonWith(plugins: unknown[]): Promise<ApiClient> {
  const loaded = inlineConfig({ targets: { a: { sim: true, default: true }, b: { sim: true } }, plugins: plugins as never });
  const daemon = await startDaemon({ log: silentLogger(), api: { port: 0 }, targets: targetSpecs(loaded.config.targets!, loaded.dir), config: { loaded, watch: false } });
  daemons.push(daemon);
  await waitUntil(() => daemon.targets.hostsList().every((h) => h.link.connected), 5_000, 'both targets to connect');
  const client = await ApiClient.connect({ port: daemon.apiAddress.port });
  clients.push(client);
  return client;
}

describe('plugins on a daemon of several targets', () => {
  it('a factory in the config gives each target an instance of its own, set up with that target', async () => {
    const client = await daemonWith([createCounterPlugin]);
    await client.call('count', { target: 'a' });
    expect(await client.call('count', { target: 'a' })).toEqual({ calls: 2, setUpFor: 'a' });
    expect(await client.call('count', { target: 'b' })).toEqual({ calls: 1, setUpFor: 'b' });
  });

  it('a plugin object is one object for every target: what its closure keeps is shared, as documented', async () => {
    const client = await daemonWith([createCounterPlugin()]);
    await client.call('count', { target: 'a' });
    expect(((await client.call('count', { target: 'b' })) as { calls: number }).calls).toBe(2);
  });
});

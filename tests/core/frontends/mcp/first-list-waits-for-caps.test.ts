/**
 * The first `tools/list` is already right: it waits until the daemon's mod has reported CAPS, not
 * only until a daemon answers (a daemon without its mod still serves the default surface).
 */
import { describe, expect, it } from 'vitest';
import { startDaemon } from '../../../../core/daemon/daemon.js';
import { startSim } from '../../../../core/sim/index.js';
import { silentLogger } from '../../../../core/util/log.js';
import { freePort, waitUntil } from '../../../support/helpers.js';
import { cleanupsAfterEach, connectInMemory, frontendFor } from '../../../support/mcp.js';

const defer = cleanupsAfterEach();

describe('the first MCP tools/list', () => {
  // This also caught a race: a surface push read in the same chunk as the front-end's `tools`
  // response was applied first, and the older manifest in the response then replaced it.
  it("waits through the window where the daemon is up and its mod is not, then lists the mod's surface", async () => {
    const modPort = await freePort();
    const daemon = await startDaemon({ log: silentLogger(), link: { modPort, reconnectMinMs: 20, reconnectMaxMs: 100 }, api: { port: 0 } });
    defer(() => daemon.stop());
    const apiClients = () => (daemon.host.status().api as { clients: number }).clients;

    const f = frontendFor(daemon.apiAddress.port, { startupWaitMs: 15_000 });
    defer(() => f.close());
    const c = await connectInMemory(f);
    defer(() => c.close());
    const listing = c.client.listTools();
    // The front-end has reached the daemon, which still has no mod: its surface is the default one.
    await waitUntil(() => apiClients() > 0 && f.upstream.manifest.capsSource === 'default', 10_000, 'the front-end to attach to the daemon');

    const sim = await startSim({ port: modPort, capabilities: ['state', 'entities'] });
    defer(() => sim.stop());
    const names = (await listing).tools.map((t) => t.name);
    expect(names).toContain('mc_state');
    expect(names).toContain('mc_entities');
    // In the default surface (mod 0.8.0's released CAPS), but not on this mod.
    expect(names).not.toContain('mc_command');
    expect(names).not.toContain('mc_mark');
  });
});

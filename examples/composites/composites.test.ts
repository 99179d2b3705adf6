/**
 * The composites of ./mcbridge.config.ts, loaded from the file the way `mcbridge run --config`
 * loads it, and called over the local API against the simulated mod.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHost, waitUntil, type TestHost } from 'mcbridge/testing';

const CONFIG = path.join(import.meta.dirname, 'mcbridge.config.ts');
const hosts: TestHost[] = [];

async function start(options: Parameters<typeof startTestHost>[0] = {}): Promise<TestHost> {
  const t = await startTestHost({ config: CONFIG, ...options });
  hosts.push(t);
  return t;
}

afterEach(async () => {
  for (const t of hosts.splice(0)) await t.close();
});

describe('composites example', () => {
  it('count_entities counts what `entities` lists', async () => {
    const t = await start({
      sim: {
        entities: [
          { type: 'minecraft:cow', x: 1, y: 64, z: 1 },
          { type: 'minecraft:cow', x: 2, y: 64, z: 1 },
        ],
      },
    });
    const result = await t.call('count_entities');
    expect(result.byType['minecraft:cow']).toBe(2);
    expect(result.total).toBe(Object.values(result.byType as Record<string, number>).reduce((a, b) => a + b, 0));
  });

  it('derives annotations: count_entities is read-only, frozen_until is not', async () => {
    const t = await start();
    const manifest = await t.tools();
    const byName = new Map(manifest.tools.map((tool) => [tool.name, tool]));
    expect(byName.get('count_entities')).toMatchObject({ plugin: 'composites', requires: ['entities'], annotations: { readOnly: true } });
    expect(byName.get('frozen_until')).toMatchObject({ requires: ['command'], annotations: { readOnly: false, destructive: false } });
  });

  it('read-only mode keeps count_entities and removes frozen_until', async () => {
    const t = await start({ readOnly: true });
    expect(await t.available()).toContain('count_entities');
    expect(await t.hidden()).toHaveProperty('frozen_until');
  });

  it('frozen_until freezes, returns the matching chat message (and how many came) and unfreezes', async () => {
    const t = await start();
    const since = t.lastSeq();
    t.sim.chat('Steve', 'before the call'); // not counted: it came before
    await t.waitForEvent((e) => e.text === 'before the call', { since });
    const call = t.call('frozen_until', { until: '^go$', timeoutSeconds: 10 });
    await waitUntil(() => t.sim.world.frozen, 5_000, 'the game to freeze');
    t.sim.chat('Steve', 'not yet');
    t.sim.chat('Steve', 'go');
    const result = await call;
    expect(result.event).toMatchObject({ type: 'chat', text: 'go', sender: 'Steve' });
    expect(result.chatWhileFrozen).toBe(2);
    expect(t.sim.world.frozen).toBe(false);
  });

  it('frozen_until unfreezes when it times out', async () => {
    const t = await start();
    const error = await t.callError('frozen_until', { until: '^never$', timeoutSeconds: 0.2 });
    expect(error.code).toBe('timeout');
    expect(error.message).toMatch(/frozen_until.*no matching event within 200 ms/);
    expect(t.sim.world.frozen).toBe(false);
  });

  it('frozen_until unfreezes when the caller cancels mid-run', async () => {
    const t = await start();
    const controller = new AbortController();
    const call = t.callError('frozen_until', { until: '^never$', timeoutSeconds: 600 }, { signal: controller.signal });
    await waitUntil(() => t.sim.world.frozen, 5_000, 'the game to freeze');
    controller.abort();
    expect((await call).code).toBe('cancelled');
    await waitUntil(() => !t.sim.world.frozen, 5_000, 'the deferred unfreeze');
    expect(t.sim.received.filter((l) => l === 'CMD tick unfreeze')).toHaveLength(1);
  });
});

/** A plugin whose setup or service start never settles is left out, named; the daemon still reaches the game. */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin, defineTool } from '../../core/index.js';
import { Host } from '../../core/host/host.js';
import { startSim, type SimulatedMod } from '../../core/sim/index.js';
import { waitUntil } from '../support/helpers.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tool = (name: string) => defineTool({ name, description: `The ${name} tool.`, input: z.object({}), run: async () => name });

describe('plugin setup that never settles', () => {
  it.each([
    ['setup', definePlugin({ name: 'stuck-setup', version: '1.0.0', apiVersion: 1, tools: [tool('stuck_tool')], setup: () => new Promise(() => {}) })],
    [
      'service',
      definePlugin({
        name: 'stuck-service',
        version: '1.0.0',
        apiVersion: 1,
        tools: [tool('stuck_tool')],
        services: [{ name: 'forever', start: () => new Promise(() => {}) }],
      }),
    ],
  ])('a stuck %s is cut off, reported by name, and the link still starts', async (_what, stuck) => {
    const sim: SimulatedMod = await startSim({ port: 0 });
    cleanups.push(() => sim.stop());
    let stopSignal: AbortSignal | undefined;
    const healthy = definePlugin({
      name: 'healthy',
      version: '1.0.0',
      apiVersion: 1,
      tools: [tool('healthy_tool')],
      setup: (ctx) => {
        stopSignal = ctx.signal;
      },
    });
    const host = new Host({ link: { modPort: sim.port }, setupTimeoutMs: 200, plugins: [{ plugin: stuck }, { plugin: healthy }] });
    cleanups.push(() => host.stop());
    await host.start();
    const info = host.plugins().find((p) => p.name === stuck.name)!;
    expect(info).toMatchObject({ state: 'failed', tools: [] });
    expect(info.error).toMatch(/did not finish within 0\.2 s; the plugin was left out/);
    expect(host.registry.get('stuck_tool')).toBeUndefined();
    expect(await host.call('healthy_tool', {})).toBe('healthy_tool');
    expect(stopSignal?.aborted).toBe(false);
    await waitUntil(() => host.link.connected, 5_000, 'the link to connect');
  });

  it("fires the stuck plugin's stop signal, so it can let go", async () => {
    let signal: AbortSignal | undefined;
    const stuck = definePlugin({
      name: 'stuck',
      version: '1.0.0',
      apiVersion: 1,
      setup: (ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      },
    });
    const host = new Host({ link: { modPort: 1 }, setupTimeoutMs: 100, plugins: [{ plugin: stuck }] });
    cleanups.push(() => host.stop());
    await host.start();
    expect(signal?.aborted).toBe(true);
  });
});

describe('a tool that ignores its cancel', () => {
  it('still gets its call answered `cancelled`, after the grace period', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const deaf = definePlugin({
      name: 'deaf',
      version: '1.0.0',
      apiVersion: 1,
      tools: [
        defineTool({
          name: 'deaf_tool',
          description: 'Never stops.',
          input: z.object({}),
          run: () => {
            started();
            return new Promise(() => {});
          },
        }),
      ],
    });
    const host = new Host({ link: { modPort: 1 }, cancelGraceMs: 100, plugins: [{ plugin: deaf }] });
    cleanups.push(() => host.stop());
    const controller = new AbortController();
    const call = host.call('deaf_tool', {}, { signal: controller.signal });
    await running;
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'cancelled', message: expect.stringMatching(/did not stop within 0\.1 s/) });
  });
});

import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { z } from 'zod';
import { McbridgeError } from '../../../core/host/errors.js';
import { callError, closedPort, makeHost, plugin, stopHostsAfterEach, tool } from '../../support/host.js';

stopHostsAfterEach();

describe('plugin loading', () => {
  it('validates plugin options and names the plugin and the field', () => {
    const host = makeHost([]);
    const p = plugin('webhook', [tool('hook')], { options: z.object({ url: z.string().url(), retries: z.number().int() }) });
    let err: unknown;
    try {
      host.use(p, { options: { url: 'not a url', retries: 1 } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(McbridgeError);
    expect((err as McbridgeError).code).toBe('invalid_params');
    expect((err as McbridgeError).message).toContain("plugin 'webhook'");
    expect((err as McbridgeError).message).toContain("'url'");
    // Nothing of the refused plugin was registered.
    expect(host.registry.get('hook')).toBeUndefined();
    expect(host.plugins()).toEqual([]);
  });

  it('validates missing options against the schema too', () => {
    const host = makeHost([]);
    const p = plugin('needs', [], { options: z.object({ token: z.string() }) });
    expect(() => host.use(p)).toThrow(/plugin 'needs'.*'token'/);
  });

  it('refuses an invalid plugin object at construction', () => {
    expect(() => makeHost([plugin('bad', [tool('Bad-Name')])])).toThrow(/plugin 'bad'/);
  });

  it('refuses the same plugin twice', () => {
    const host = makeHost([plugin('once', [tool('a')])]);
    expect(() => host.use(plugin('once', [tool('b')]))).toThrow(/loaded twice/);
    expect(host.registry.get('b')).toBeUndefined();
  });

  it('refuses a tool name another plugin already owns, naming both', () => {
    const host = makeHost([plugin('first', [tool('state')])]);
    expect(() => host.use(plugin('second', [tool('state')]))).toThrow(/'first'.*'second'/);
    expect(host.plugins().map((p) => p.name)).toEqual(['first']);
  });

  it('reports a plugin whose setup throws and removes its tools; the others keep serving', async () => {
    const port = await closedPort();
    const host = makeHost(
      [
        plugin('broken', [tool('broken_tool')], {
          setup: () => {
            throw new Error('cannot open the database');
          },
        }),
        plugin('fine', [tool('fine_tool', { run: async () => 'ok' })], { setup: async () => {} }),
      ],
      { link: { modPort: port, reconnectMinMs: 50 } },
    );
    expect(host.registry.get('broken_tool')).toBeDefined();
    const revision = host.manifest().revision;
    await host.start();

    const info = host.plugins();
    expect(info.find((p) => p.name === 'broken')).toMatchObject({ state: 'failed', error: 'cannot open the database', tools: [] });
    expect(info.find((p) => p.name === 'fine')).toMatchObject({ state: 'loaded', tools: ['fine_tool'] });
    expect(info.find((p) => p.name === 'fine')).not.toHaveProperty('error');
    expect(host.manifest().tools.map((t) => t.name)).toEqual(['fine_tool']);
    expect(host.manifest().revision).toBeGreaterThan(revision);
    expect((await callError(host.call('broken_tool', {}))).code).toBe('unknown_method');
    await expect(host.call('fine_tool', {})).resolves.toBe('ok');
    expect(host.status().plugins).toEqual([
      { name: 'broken', version: '1.0.0', source: 'config', state: 'failed', error: 'cannot open the database' },
      { name: 'fine', version: '1.0.0', source: 'config', state: 'loaded' },
    ]);
  });

  it('reports a plugin whose setup rejects with something that is not an Error', async () => {
    const host = makeHost([
      plugin('odd', [tool('odd_tool')], { setup: () => Promise.reject(undefined) }),
      plugin('text', [tool('text_tool')], {
        setup: () => {
          throw 'no config file';
        },
      }),
      plugin('fine', [tool('fine_tool')]),
    ]);
    await host.start();
    const info = host.plugins();
    expect(info.find((p) => p.name === 'odd')).toMatchObject({ state: 'failed' });
    expect(info.find((p) => p.name === 'text')).toMatchObject({ state: 'failed', error: 'no config file' });
    expect(info.find((p) => p.name === 'fine')).toMatchObject({ state: 'loaded' });
    expect(host.registry.get('odd_tool')).toBeUndefined();
    expect(host.registry.get('fine_tool')).toBeDefined();
  });

  it('reports a plugin whose service fails to start', async () => {
    const host = makeHost([
      plugin('svc', [tool('svc_tool')], {
        services: [
          {
            name: 'forwarder',
            start: () => {
              throw new Error('port in use');
            },
          },
        ],
      }),
    ]);
    await host.start();
    expect(host.plugins()[0]).toMatchObject({ state: 'failed', error: 'port in use' });
    expect(host.registry.get('svc_tool')).toBeUndefined();
  });

  it('calls the stop a service start returned, then its stop(), when the plugin stops; and gives services configDir', async () => {
    const order: string[] = [];
    let dir: string | undefined;
    const host = makeHost(
      [
        plugin('svc', [], {
          services: [
            {
              name: 'ticker',
              start: (ctx) => {
                dir = ctx.configDir;
                order.push('started');
                return async () => {
                  order.push('returned stop');
                };
              },
              stop: () => {
                order.push('stop()');
              },
            },
          ],
        }),
      ],
      { configDir: '/srv/project' },
    );
    await host.start();
    expect(dir).toBe(path.resolve('/srv/project'));
    expect(await host.remove('svc')).toBe(true);
    expect(order).toEqual(['started', 'returned stop', 'stop()']);
  });

  it('gives setup its validated config', async () => {
    let config: unknown;
    const host = makeHost([]);
    host.use(
      plugin('cfg', [], {
        options: z.object({ every: z.number().default(5) }),
        setup: (ctx) => {
          config = ctx.config;
        },
      }),
      { options: { every: 2 } },
    );
    await host.start();
    expect(config).toEqual({ every: 2 });
  });
});

describe('Host lifecycle', () => {
  it('does not dispose plugins of a host that was never started, and disposes once on a second stop', async () => {
    const counts = { setup: 0, dispose: 0 };
    const host = makeHost([
      plugin('life', [tool('life_tool')], {
        setup: () => {
          counts.setup += 1;
        },
        dispose: () => {
          counts.dispose += 1;
        },
      }),
    ]);
    await host.stop(); // e.g. startDaemon giving up before host.start()
    expect(counts).toEqual({ setup: 0, dispose: 0 });
    await host.start();
    await host.stop();
    await host.stop(); // e.g. a second SIGTERM
    expect(counts).toEqual({ setup: 1, dispose: 1 });
  });

  it('sets a plugin added while start() awaits an earlier setup up exactly once', async () => {
    let setups = 0;
    const late = plugin('late', [tool('late_tool')], {
      setup: () => {
        setups += 1;
      },
    });
    const host = makeHost([]);
    host.use(
      plugin('slow', [], {
        // start() is awaiting this setup while `late` is added and set up by use() itself.
        setup: () => host.use(late),
      }),
    );
    // Every setup start() or use() makes is over when start() resolves: a second one would be counted.
    await host.start();
    expect(setups).toBe(1);
  });
});

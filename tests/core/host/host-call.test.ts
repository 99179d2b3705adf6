import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McbridgeError } from '../../../core/host/errors.js';
import { Host, type HostOptions } from '../../../core/host/host.js';
import { silentLogger } from '../../../core/util/log.js';
import { definePlugin, defineTool } from '../../../core/host/define.js';
import { HOST_API_VERSION, type Plugin, type ToolContext, type ToolSpec } from '../../../core/host/plugin-api.js';
import { waitUntil } from '../../support/wait-until.js';

/** A loopback port nothing listens on: bound by us, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function plugin(name: string, tools: ToolSpec[], extra: Partial<Plugin> = {}): Plugin {
  return definePlugin({ name, version: '1.0.0', apiVersion: HOST_API_VERSION, tools, ...extra });
}

const hosts: Host[] = [];

/** A host that is never started: its link stays idle and never dials anything. */
function makeHost(plugins: Plugin[], options: Partial<HostOptions> = {}): Host {
  const host = new Host({
    log: silentLogger(),
    link: { modPort: 1 },
    plugins: plugins.map((p) => ({ plugin: p })),
    ...options,
  });
  hosts.push(host);
  return host;
}

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
});

async function callError(p: Promise<unknown>): Promise<McbridgeError> {
  const err = await p.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McbridgeError);
  return err as McbridgeError;
}

describe('Host.call', () => {
  it('runs a tool with validated, parsed params and returns its result', async () => {
    const seen: unknown[] = [];
    const host = makeHost([
      plugin('p', [
        defineTool({
          name: 'echo',
          description: 'echo',
          input: z.object({ radius: z.number().default(8), tag: z.string().optional() }),
          run: async (args) => {
            seen.push(args);
            return { radius: args.radius };
          },
        }),
      ]),
    ]);
    await expect(host.call('echo', { tag: 'x', extra: 1 })).resolves.toEqual({ radius: 8 });
    await expect(host.call('echo', undefined)).resolves.toEqual({ radius: 8 });
    expect(seen).toEqual([{ radius: 8, tag: 'x' }, { radius: 8 }]);
  });

  it('gives the tool a context whose lazily built parts work destructured, spread and twice', async () => {
    let seen: Record<string, unknown> = {};
    const host = makeHost([
      plugin('p', [
        defineTool({
          name: 'ctx_probe',
          description: 'looks at its context',
          input: z.object({}),
          run: async (_args, ctx) => {
            const { events, log, host: view } = ctx;
            const copy = { ...ctx };
            seen = {
              sameEvents: ctx.events === events,
              sameLog: ctx.log === log,
              sameHost: ctx.host === view,
              copyHasAll: copy.events === events && copy.log === log && copy.host === view,
              streamId: events.streamId,
              logs: typeof log.info,
              status: typeof view.status().version,
            };
            return {};
          },
        }),
      ]),
    ]);
    await host.call('ctx_probe', {});
    expect(seen).toStrictEqual({
      sameEvents: true, sameLog: true, sameHost: true, copyHasAll: true,
      streamId: host.events.streamId, logs: 'function', status: 'string',
    });
  });

  it('refuses an unknown method with unknown_method, naming it', async () => {
    const host = makeHost([]);
    const err = await callError(host.call('nope', {}));
    expect(err.code).toBe('unknown_method');
    expect(err.message).toContain("'nope'");
    expect(err.message).toContain('tools');
  });

  it('refuses invalid params with invalid_params, naming the field', async () => {
    let ran = false;
    const host = makeHost([
      plugin('p', [
        tool('scan', {
          input: z.object({ radius: z.number().optional(), center: z.object({ x: z.number() }).optional() }),
          run: async () => {
            ran = true;
            return null;
          },
        }),
      ]),
    ]);
    const err = await callError(host.call('scan', { radius: 'far' }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toContain("'radius'");
    expect(err.message).toContain("'scan'");
    expect(err.details).toMatchObject({ issues: [{ path: 'radius' }] });
    const nested = await callError(host.call('scan', { center: { x: 'a' } }));
    expect(nested.message).toContain("'center.x'");
    const notObject = await callError(host.call('scan', 'radius=3'));
    expect(notObject.code).toBe('invalid_params');
    expect(ran).toBe(false);
  });

  it('refuses a tool whose caps are not in the default surface before validating or running anything', async () => {
    let ran = false;
    const host = makeHost([
      plugin('p', [
        tool('chat', {
          requires: ['chat'],
          input: z.object({ text: z.string() }),
          run: async () => {
            ran = true;
            return null;
          },
        }),
      ]),
    ]);
    // Invalid params too: the capability gate comes first.
    const err = await callError(host.call('chat', { text: 42 }));
    expect(err.code).toBe('unsupported_capability');
    expect(err.message).toContain("'chat'");
    expect(err.message).toContain('nothing was sent to the game');
    expect(ran).toBe(false);
  });

  it('lets a tool whose caps are in the default surface through while no mod ever connected', async () => {
    const host = makeHost([plugin('p', [tool('state', { requires: ['state'], run: async () => 'ran' })])]);
    expect(host.capsView().source).toBe('default');
    await expect(host.call('state', {})).resolves.toBe('ran');
  });

  it('refuses a tool hidden by policy with tool_disabled', async () => {
    let ran = false;
    const host = makeHost(
      [
        plugin('p', [
          tool('command', {
            run: async () => {
              ran = true;
              return null;
            },
          }),
        ]),
      ],
      { policy: { readOnly: true } },
    );
    const err = await callError(host.call('command', {}));
    expect(err.code).toBe('tool_disabled');
    expect(ran).toBe(false);
  });

  it('fails with not_connected when a tool needs the link and it is not up', async () => {
    const port = await closedPort();
    const host = makeHost(
      [plugin('p', [tool('state', { requires: ['state'], run: async (_args, ctx) => ctx.request('STATE') })])],
      { link: { modPort: port, reconnectMinMs: 50, reconnectMaxMs: 100 } },
    );
    await host.start();
    await waitUntil(() => host.link.status().lastError !== null, 5_000, 'the link to fail to connect');
    const err = await callError(host.call('state', {}));
    expect(err.code).toBe('not_connected');
    expect(err.message).toContain('not connected');
    expect(err.message).toContain(String(port));
    expect(host.link.connected).toBe(false);
  });

  it('fails with not_connected on a host that was never started', async () => {
    const host = makeHost([plugin('p', [tool('state', { run: async (_a, ctx) => ctx.request('STATE') })])]);
    expect((await callError(host.call('state', {}))).code).toBe('not_connected');
  });

  it('reports a result that does not match the output schema as internal', async () => {
    const host = makeHost([
      plugin('p', [
        defineTool({
          name: 'count',
          description: 'count',
          input: z.object({}),
          output: z.object({ count: z.number() }),
          run: async () => ({ count: 'many' }) as never,
        }),
      ]),
    ]);
    const err = await callError(host.call('count', {}));
    expect(err.code).toBe('internal');
    expect(err.message).toContain('output schema');
    expect(err.message).toContain("'count'");
  });

  it('returns the parsed output when it matches (unknown keys stripped)', async () => {
    const host = makeHost([
      plugin('p', [
        defineTool({
          name: 'count',
          description: 'count',
          input: z.object({}),
          output: z.object({ count: z.number() }),
          run: async () => ({ count: 3, secret: 'x' }) as never,
        }),
      ]),
    ]);
    await expect(host.call('count', {})).resolves.toEqual({ count: 3 });
  });

  it("passes a handler's McbridgeError through unchanged", async () => {
    const thrown = new McbridgeError('mod_error', 'unknown entity type', { reply: { type: 'error' } });
    const host = makeHost([
      plugin('p', [
        tool('boom', {
          run: async () => {
            throw thrown;
          },
        }),
      ]),
    ]);
    const err = await callError(host.call('boom', {}));
    expect(err).toBe(thrown);
    expect(err.code).toBe('mod_error');
  });

  it('turns anything else a handler throws into internal, keeping its message', async () => {
    const host = makeHost([
      plugin('p', [
        tool('bug', {
          run: async () => {
            throw new TypeError('x is undefined');
          },
        }),
        tool('strange', {
          run: async () => {
            throw 'a string';
          },
        }),
      ]),
    ]);
    const err = await callError(host.call('bug', {}));
    expect(err.code).toBe('internal');
    expect(err.message).toContain('x is undefined');
    expect((await callError(host.call('strange', {}))).message).toContain('a string');
  });

  it('is cancelled through its AbortSignal while the handler waits', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const host = makeHost([
      plugin('p', [
        tool('wait_chat', {
          run: async (_args, ctx) => {
            started();
            return ctx.events.waitFor((e) => e.type === 'chat');
          },
        }),
      ]),
    ]);
    const controller = new AbortController();
    const call = host.call('wait_chat', {}, { signal: controller.signal });
    await running;
    controller.abort();
    const err = await callError(call);
    expect(err.code).toBe('cancelled');
    // The wait is gone: a later chat event settles nothing and throws nothing.
    expect(() => host.events.record({ type: 'chat' })).not.toThrow();
  });

  it('reports cancelled even when the handler throws something else after the abort', async () => {
    const host = makeHost([
      plugin('p', [
        tool('sloppy', {
          run: async (_args, ctx) => {
            await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
            throw new Error('socket hang up');
          },
        }),
      ]),
    ]);
    const controller = new AbortController();
    const call = host.call('sloppy', {}, { signal: controller.signal });
    controller.abort();
    expect((await callError(call)).code).toBe('cancelled');
  });

  it('does not run a tool when the signal is already aborted', async () => {
    let ran = false;
    const host = makeHost([
      plugin('p', [
        tool('t', {
          run: async () => {
            ran = true;
            return null;
          },
        }),
      ]),
    ]);
    const controller = new AbortController();
    controller.abort();
    expect((await callError(host.call('t', {}, { signal: controller.signal }))).code).toBe('cancelled');
    expect(ran).toBe(false);
  });

  it('gives the handler a context: config, vantage, caps, progress, events', async () => {
    let ctxSeen!: ToolContext;
    const progress: unknown[] = [];
    const host = makeHost([]);
    host.use(
      plugin('cfg', [
        tool('ctx', {
          run: async (_a, ctx) => {
            ctxSeen = ctx;
            ctx.progress(1, 3, 'one');
            ctx.progress(2);
            return ctx.events.lastSeq;
          },
        }),
      ], { options: z.object({ depth: z.number().default(4) }) }),
      { options: {} },
    );
    host.events.record({ type: 'chat' });
    await expect(host.call('ctx', {}, { onProgress: (p) => progress.push(p) })).resolves.toBe(1);
    expect(ctxSeen.config).toEqual({ depth: 4 });
    expect(ctxSeen.vantage).toBe('server');
    expect(ctxSeen.caps).toBeNull();
    expect(ctxSeen.signal.aborted).toBe(false);
    expect(progress).toEqual([{ progress: 1, total: 3, message: 'one' }, { progress: 2 }]);
  });
});

describe('ctx.call', () => {
  function composite(inner: string, args: Record<string, unknown> = {}): ToolSpec {
    return tool('outer', { run: async (_a, ctx) => ctx.call(inner, args) });
  }

  it('runs another tool', async () => {
    const host = makeHost([plugin('p', [tool('inner', { run: async () => 'inner result' }), composite('inner')])]);
    await expect(host.call('outer', {})).resolves.toBe('inner result');
  });

  it('gates the nested tool by capability like a direct call', async () => {
    let ran = false;
    const host = makeHost([
      plugin('p', [
        tool('chat', {
          requires: ['chat'],
          run: async () => {
            ran = true;
            return null;
          },
        }),
        composite('chat'),
      ]),
    ]);
    expect((await callError(host.call('outer', {}))).code).toBe('unsupported_capability');
    expect(ran).toBe(false);
  });

  it('gates the nested tool by policy, name and params like a direct call', async () => {
    const host = makeHost(
      [
        plugin('p', [
          tool('state', { annotations: { readOnly: true }, input: z.object({ radius: z.number() }), run: async () => 1 }),
          tool('command', { run: async () => 2 }),
          tool('outer_policy', { annotations: { readOnly: true }, run: async (_a, ctx) => ctx.call('command') }),
          tool('outer_unknown', { annotations: { readOnly: true }, run: async (_a, ctx) => ctx.call('missing') }),
          tool('outer_params', { annotations: { readOnly: true }, run: async (_a, ctx) => ctx.call('state', { radius: 'x' }) }),
        ]),
      ],
      { policy: { readOnly: true } },
    );
    expect((await callError(host.call('outer_policy', {}))).code).toBe('tool_disabled');
    expect((await callError(host.call('outer_unknown', {}))).code).toBe('unknown_method');
    const params = await callError(host.call('outer_params', {}));
    expect(params.code).toBe('invalid_params');
    expect(params.message).toContain("'radius'");
  });

  it('passes cancellation down to the nested tool', async () => {
    let innerSignal: AbortSignal | undefined;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const host = makeHost([
      plugin('p', [
        tool('inner', {
          run: async (_a, ctx) => {
            innerSignal = ctx.signal;
            started();
            return ctx.events.waitFor(() => false);
          },
        }),
        composite('inner'),
      ]),
    ]);
    const controller = new AbortController();
    const call = host.call('outer', {}, { signal: controller.signal });
    await running;
    controller.abort();
    expect((await callError(call)).code).toBe('cancelled');
    expect(innerSignal?.aborted).toBe(true);
  });
});

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

// A tool builder with the loose types these tests need.
function tool(name: string, extra: Partial<ToolSpec> = {}): ToolSpec {
  return { name, description: `the ${name} tool`, input: z.object({}), run: async () => null, ...extra };
}

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
        setup: async () => {
          void host.use(late);
          await new Promise((r) => setTimeout(r, 20));
        },
      }),
    );
    await host.start();
    await waitUntil(() => setups > 0, 1_000, 'the late plugin to be set up');
    await new Promise((r) => setTimeout(r, 20));
    expect(setups).toBe(1);
  });
});

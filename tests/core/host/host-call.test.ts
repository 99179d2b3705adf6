import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McbridgeError } from '../../../core/host/errors.js';
import { defineTool } from '../../../core/host/define.js';
import type { ToolContext, ToolSpec } from '../../../core/host/plugin-api.js';
import { waitUntil } from '../../support/wait-until.js';
import { callError, closedPort, makeHost, plugin, stopHostsAfterEach, tool } from '../../support/host.js';

stopHostsAfterEach();

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

  it('gives the tool a context whose lazily built parts and functions work destructured and twice', async () => {
    let seen: Record<string, unknown> = {};
    const host = makeHost([
      plugin('p', [
        defineTool({
          name: 'ctx_probe',
          description: 'looks at its context',
          input: z.object({}),
          run: async (_args, ctx) => {
            const { events, log, host: view, call, request, signal, progress, waitFor, sleep, defer } = ctx;
            seen = {
              sameEvents: ctx.events === events,
              sameLog: ctx.log === log,
              sameHost: ctx.host === view,
              sameFunctions:
                ctx.call === call &&
                ctx.request === request &&
                ctx.signal === signal &&
                !signal.aborted &&
                ctx.progress === progress &&
                ctx.waitFor === waitFor &&
                ctx.sleep === sleep &&
                ctx.defer === defer,
              destructuredCall: await call('echo_back', { n: 2 }),
              streamId: events.streamId,
              logs: typeof log.info,
              status: typeof view.status().version,
            };
            return {};
          },
        }),
        defineTool({ name: 'echo_back', description: 'answers with its params', input: z.object({ n: z.number() }), run: async (args) => args }),
      ]),
    ]);
    await host.call('ctx_probe', {});
    expect(seen).toStrictEqual({
      sameEvents: true,
      sameLog: true,
      sameHost: true,
      sameFunctions: true,
      destructuredCall: { n: 2 },
      streamId: host.events.streamId,
      logs: 'function',
      status: 'string',
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
    const host = makeHost([plugin('p', [tool('state', { requires: ['state'], run: async (_args, ctx) => ctx.request('STATE') })])], {
      link: { modPort: port, reconnectMinMs: 50, reconnectMaxMs: 100 },
    });
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
      plugin(
        'cfg',
        [
          tool('ctx', {
            run: async (_a, ctx) => {
              ctxSeen = ctx;
              ctx.progress(1, 3, 'one');
              ctx.progress(2);
              return ctx.events.lastSeq;
            },
          }),
        ],
        { options: z.object({ depth: z.number().default(4) }) },
      ),
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

import { getEventListeners } from 'node:events';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McbridgeError } from '../../../core/host/errors.js';
import { EventLog } from '../../../core/host/events/event-log.js';
import type { FollowItem } from '../../../core/host/events/follow.js';
import { Host } from '../../../core/host/host.js';
import { definePlugin, defineTool } from '../../../core/host/define.js';
import { HOST_API_VERSION, type ToolContext, type ToolSpec } from '../../../core/host/plugin-api.js';
import { CallScope } from '../../../core/host/call-scope.js';
import { silentLogger } from '../../../core/util/log.js';
import { startTestHost, type TestHost } from '../../../core/testing/index.js';
import { waitUntil } from '../../support/wait-until.js';

const hosts: Host[] = [];
const testHosts: TestHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
  for (const t of testHosts.splice(0)) await t.close();
});

/** A host that is never started (its link stays idle) serving these tools and a `note` tool. */
function hostWith(tools: ToolSpec[]): { host: Host; notes: string[] } {
  const notes: string[] = [];
  const note = defineTool({
    name: 'note',
    description: 'remembers a text',
    input: z.object({ text: z.string() }),
    run: async ({ text }) => {
      notes.push(text);
      return null;
    },
  });
  const host = new Host({
    log: silentLogger(),
    link: { modPort: 1 },
    plugins: [{ plugin: definePlugin({ name: 'p', version: '1.0.0', apiVersion: HOST_API_VERSION, tools: [note, ...tools] }) }],
  });
  hosts.push(host);
  return { host, notes };
}

function tool(name: string, run: (ctx: ToolContext) => Promise<unknown>): ToolSpec {
  return { name, description: name, input: z.object({}), run: (_args, ctx) => run(ctx) };
}

async function failure(p: Promise<unknown>): Promise<McbridgeError> {
  const err = await p.then(
    (v) => new Error(`expected a rejection, got ${JSON.stringify(v)}`),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McbridgeError);
  return err as McbridgeError;
}

describe('ctx.defer', () => {
  it('runs clean-ups newest first after a success, with a context of their own', async () => {
    let callSignal: AbortSignal | undefined;
    const { host, notes } = hostWith([
      tool('tidy', async (ctx) => {
        callSignal = ctx.signal;
        ctx.defer((c) => c.call('note', { text: 'first deferred' }));
        ctx.defer((c) => {
          expect(c.signal).not.toBe(callSignal);
          // Deferred from a clean-up: runs next, before the older ones.
          c.defer(() => notes.push('deferred by a clean-up'));
          return c.call('note', { text: 'second deferred' });
        });
        notes.push('body');
        return 'ok';
      }),
    ]);
    expect(await host.call('tidy', {})).toBe('ok');
    expect(notes).toEqual(['body', 'second deferred', 'deferred by a clean-up', 'first deferred']);
  });

  it('runs them when the call is cancelled, with a signal that is not aborted, and answers cancelled', async () => {
    let cleanupSignal: AbortSignal | undefined;
    let deferred = false;
    const { host, notes } = hostWith([
      tool('blocked', async (ctx) => {
        ctx.defer(async (c) => {
          cleanupSignal = c.signal;
          await c.call('note', { text: `undone (aborted: ${c.signal.aborted})` });
        });
        deferred = true;
        await ctx.sleep(600_000);
      }),
    ]);
    const controller = new AbortController();
    const call = failure(host.call('blocked', {}, { signal: controller.signal }));
    await waitUntil(() => deferred, 5_000, 'the tool to register its clean-up');
    controller.abort();
    expect((await call).code).toBe('cancelled');
    expect(notes).toEqual(['undone (aborted: false)']);
    // The clean-up context is over with the call.
    expect(cleanupSignal?.aborted).toBe(true);
  });

  it('reports a failing clean-up after a success, naming the tool; the others still run', async () => {
    const { host, notes } = hostWith([
      tool('messy', async (ctx) => {
        ctx.defer((c) => c.call('note', { text: 'older ran' }));
        ctx.defer(() => {
          throw new McbridgeError('mod_error', 'could not unfreeze');
        });
        return 'ok';
      }),
    ]);
    const err = await failure(host.call('messy', {}));
    expect(err.code).toBe('mod_error');
    expect(err.message).toBe("tool 'messy' finished, but its clean-up failed: could not unfreeze");
    expect(notes).toEqual(['older ran']);
  });

  it("reports a failing body and a failing clean-up together, with the body's code", async () => {
    const { host } = hostWith([
      tool('broken', async (ctx) => {
        ctx.defer(() => {
          throw new Error('could not tidy');
        });
        throw new McbridgeError('invalid_params', 'step broke');
      }),
    ]);
    const err = await failure(host.call('broken', {}));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toBe('step broke (and its clean-up failed: internal error: could not tidy)');
  });

  it('refuses something that is not a function, saying what to pass', async () => {
    const { host } = hostWith([tool('odd', async (ctx) => ctx.defer('tick unfreeze' as never))]);
    expect((await failure(host.call('odd', {}))).message).toMatch(/defer\(\) needs a function/);
  });

  it('gives all clean-ups of a call a bounded time; one that never settles is cut off and reported', async () => {
    const events = new EventLog();
    const scope = new CallScope(events, 'stuck', silentLogger(), 50);
    const ran: string[] = [];
    const own = () => ({}) as ToolContext;
    scope.defer(() => ran.push('older, synchronous'), own);
    scope.defer(() => new Promise(() => undefined), own);
    // A clean-up that never settles would otherwise keep this await, and the test, forever.
    const err = await failure(scope.close(() => ({}) as ToolContext, new AbortController().signal, false));
    expect(err.code).toBe('timeout');
    expect(err.message).toBe("tool 'stuck' finished, but its clean-up failed: a clean-up did not finish within 50 ms after the call ended");
    expect(ran).toEqual(['older, synchronous']);
  });
});

describe('the handle ctx.defer returns', () => {
  it('now() runs the clean-up at once, off the queue, with a context not cancelled with the call; it never runs again', async () => {
    let own: AbortSignal | undefined;
    const { host, notes } = hostWith([
      tool('early', async (ctx) => {
        const undo = ctx.defer((c) => {
          own = c.signal;
          return c.call('note', { text: 'undone' });
        });
        await undo.now();
        await undo.now(); // the same outcome, not a second run
        await ctx.call('note', { text: 'after' });
        expect(own).not.toBe(ctx.signal);
        return null;
      }),
    ]);
    await host.call('early', {});
    expect(notes).toEqual(['undone', 'after']);
  });

  it('now() rejects with the clean-up failure, which the tool reports instead of failing the call', async () => {
    const { host } = hostWith([
      tool('reports', async (ctx) => {
        const undo = ctx.defer(() => {
          throw new McbridgeError('mod_error', 'the game said no');
        });
        return {
          problem: await undo.now().then(
            () => null,
            (err: Error) => err.message,
          ),
        };
      }),
    ]);
    expect(await host.call('reports', {})).toEqual({ problem: 'the game said no' });
  });

  it('cancel() disarms it on every exit path, a failure included; the others still run', async () => {
    const { host, notes } = hostWith([
      tool('disarmed', async (ctx) => {
        ctx.defer((c) => c.call('note', { text: 'kept' }));
        ctx.defer((c) => c.call('note', { text: 'disarmed' })).cancel();
        throw new McbridgeError('invalid_params', 'step broke');
      }),
    ]);
    expect((await failure(host.call('disarmed', {}))).message).toBe('step broke');
    expect(notes).toEqual(['kept']);
  });

  it('cancel() after now() changes nothing, and now() after the call ended resolves', async () => {
    let late: { now(): Promise<void> } | undefined;
    const { host, notes } = hostWith([
      tool('late', async (ctx) => {
        late = ctx.defer((c) => c.call('note', { text: 'at the end' }));
        return null;
      }),
    ]);
    await host.call('late', {});
    await late!.now();
    expect(notes).toEqual(['at the end']);
  });
});

describe('ctx.configDir and ctx.events.scan', () => {
  it('gives tools the folder the host was given, resolved', async () => {
    const host = new Host({
      log: silentLogger(),
      link: { modPort: 1 },
      configDir: 'some/project',
      plugins: [{ plugin: definePlugin({ name: 'p', version: '1.0.0', apiVersion: HOST_API_VERSION, tools: [tool('where', async (ctx) => ctx.configDir)] }) }],
    });
    hosts.push(host);
    expect(await host.call('where', {})).toBe(path.resolve('some/project'));
  });

  it('visits buffered events after the cursor without a page of them, and stops when visit says false', async () => {
    const { host } = hostWith([
      tool('count', async (ctx) => {
        const seen: number[] = [];
        const page = ctx.events.scan({ seq: 1 }, (e) => {
          seen.push(e.seq);
          return seen.length < 2;
        });
        return { seen, events: page.events.length, next: page.next };
      }),
    ]);
    for (let i = 0; i < 4; i++) host.events.record({ type: 'chat', text: `m${i}` });
    expect(await host.call('count', {})).toEqual({ seen: [2, 3], events: 0, next: 4 });
  });
});

describe('ctx.waitFor', () => {
  it('sees an event that arrived after the call began but before the wait, then looks past each match', async () => {
    const { host } = hostWith([
      tool('waiter', async (ctx) => {
        host.events.record({ type: 'chat', text: 'early' });
        const first = await ctx.waitFor((e) => e.type === 'chat');
        const again = await ctx
          .waitFor((e) => e.type === 'chat', { timeoutMs: 30 })
          .then(
            () => 'matched',
            (e: McbridgeError) => e.message,
          );
        const replay = await ctx.waitFor((e) => e.type === 'chat', { since: ctx.startCursor });
        return { first: first.text, again, replay: replay.text };
      }),
    ]);
    host.events.record({ type: 'chat', text: 'before the call' });
    expect(await host.call('waiter', {})).toEqual({
      first: 'early',
      again: "tool 'waiter': no matching event within 30 ms",
      replay: 'early',
    });
  });

  it('waits for a live event, ends with the call, and refuses a timeout that is not positive', async () => {
    const { host } = hostWith([
      tool('live', async (ctx) => (await ctx.waitFor((e) => e.type === 'mark', { timeoutMs: Infinity })).seq),
      tool('zero', async (ctx) => ctx.waitFor(() => true, { timeoutMs: 0 })),
    ]);
    const live = host.call('live', {});
    await waitUntil(() => host.events.stats().listeners === 1, 5_000, 'the tool to wait for events');
    host.events.record({ type: 'mark' });
    expect(await live).toBe(host.events.lastSeq);
    const controller = new AbortController();
    const cancelled = failure(host.call('live', {}, { signal: controller.signal }));
    await waitUntil(() => host.events.stats().listeners === 1, 5_000, 'the tool to wait for events');
    controller.abort();
    expect((await cancelled).code).toBe('cancelled');
    expect(host.events.stats().listeners).toBe(0);
    const err = await failure(host.call('zero', {}));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/timeoutMs must be a positive number of milliseconds \(Infinity: no timeout\), got 0/);
  });
});

describe('ctx.events.follow in a tool', () => {
  it('yields the events recorded during the call and ends when the call ends, without a leak', async () => {
    let leftOver: AsyncIterator<FollowItem> | undefined;
    const { host } = hostWith([
      tool('watcher', async (ctx) => {
        const seen: unknown[] = [];
        const follower = ctx.events.follow({ categories: ['chat'] });
        queueMicrotask(() => {
          host.events.record({ type: 'game', text: 'skipped' });
          host.events.record({ type: 'chat', text: 'one' });
          host.events.record({ type: 'chat', text: 'two' });
        });
        for await (const item of follower) {
          if (item.kind === 'event') seen.push(item.event.text);
          if (seen.length === 2) break;
        }
        leftOver = ctx.events.follow();
        void leftOver.next();
        return seen;
      }),
    ]);
    expect(await host.call('watcher', {})).toEqual(['one', 'two']);
    // The follower the tool left waiting ended with the call.
    expect(await leftOver!.next()).toEqual({ done: true, value: undefined });
    expect(host.events.stats().listeners).toBe(0);
  });
});

describe('ctx.events.follow in a service of a started host', () => {
  it("follows the game's events live from the mod until the plugin stops, then lets go of everything", async () => {
    const seen: string[] = [];
    let ended = false;
    let stopSignal: AbortSignal | undefined;
    const forwarder = definePlugin({
      name: 'forwarder',
      version: '1.0.0',
      apiVersion: HOST_API_VERSION,
      services: [
        {
          name: 'follow-chat',
          start(ctx) {
            stopSignal = ctx.signal;
            const follower = ctx.events.follow({ categories: ['chat'] });
            void (async () => {
              for await (const item of follower) seen.push(item.kind === 'event' ? `${item.event.sender}: ${item.event.text}` : `gap ${item.dropped}`);
              ended = true;
            })();
          },
        },
      ],
    });
    const t = await startTestHost({ plugins: [forwarder] });
    testHosts.push(t);
    t.sim.chat('Steve', 'hello');
    t.sim.chat('Steve', 'anyone here?');
    await waitUntil(() => seen.length === 2, 5_000, 'the two chat lines');
    expect(seen).toEqual(['Steve: hello', 'Steve: anyone here?']);
    expect(ended).toBe(false);
    await t.close();
    testHosts.pop();
    await waitUntil(() => ended, 5_000, 'the follower to end with the plugin');
    expect(t.host.events.stats().listeners).toBe(0);
    expect(getEventListeners(stopSignal!, 'abort')).toHaveLength(0);
  });
});

import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { McbridgeError } from '../../../../core/host/errors.js';
import { EventLog } from '../../../../core/host/events/event-log.js';
import { followEvents, type FollowItem } from '../../../../core/host/events/follow.js';

const STREAM = 'b'.repeat(32);

function log(capacity = 1000): EventLog {
  return new EventLog({ capacity, streamId: STREAM });
}

function fill(l: EventLog, n: number, make: (i: number) => Record<string, unknown> = (i) => ({ type: 'game', i })): void {
  for (let i = 0; i < n; i += 1) l.record(make(i));
}

/** The next `n` items, as seqs for events and `gap(from-to)` for gaps. */
async function take(it: AsyncIterator<FollowItem>, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const r = await it.next();
    if (r.done) {
      out.push('done');
      break;
    }
    out.push(r.value.kind === 'event' ? String(r.value.event.seq) : `gap(${r.value.from}-${r.value.to})`);
  }
  return out;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('followEvents', () => {
  it('by default yields only what is recorded from now on, in order, waiting for it', async () => {
    const l = log();
    fill(l, 3);
    const f = followEvents(l);
    const first = take(f, 4);
    await tick();
    fill(l, 4);
    expect(await first).toEqual(['4', '5', '6', '7']);
  });

  it('from a cursor replays the buffered events after it, then goes on live, none twice', async () => {
    const l = log();
    fill(l, 5);
    const f = followEvents(l, { since: { streamId: STREAM, seq: 2 } });
    expect(await take(f, 3)).toEqual(['3', '4', '5']);
    const next = take(f, 2);
    fill(l, 2);
    expect(await next).toEqual(['6', '7']);
  });

  it('yields a gap for events the ring evicted before they were read, then carries on from the oldest', async () => {
    const l = log(5);
    fill(l, 12);
    const f = followEvents(l, { since: { seq: 0 } });
    const first = await f.next();
    expect(first.value).toEqual({ kind: 'gap', reason: 'evicted', dropped: 7, from: 1, to: 7 });
    expect(await take(f, 5)).toEqual(range(8, 12));
  });

  it('a follower that falls behind while live gets a gap, not a silent skip', async () => {
    const l = log(5);
    const f = followEvents(l);
    fill(l, 2);
    expect(await take(f, 1)).toEqual(['1']);
    fill(l, 20); // the ring now holds 18..22; 2..17 were never yielded
    expect(await take(f, 6)).toEqual(['gap(2-17)', ...range(18, 22)]);
  });

  it('a cursor from another daemon run yields a stream-reset gap, then this run from its oldest event', async () => {
    const l = log(3);
    fill(l, 5);
    const f = followEvents(l, { since: { streamId: 'c'.repeat(32), seq: 2 } });
    expect((await f.next()).value).toEqual({ kind: 'gap', reason: 'stream-reset', dropped: 2, from: 1, to: 2 });
    expect(await take(f, 3)).toEqual(['3', '4', '5']);
  });

  it('skips events its filter or categories reject without calling that a gap', async () => {
    const l = log();
    const chat = followEvents(l, { categories: ['chat'] });
    const even = followEvents(l, { filter: (e) => e.seq % 2 === 0 });
    fill(l, 6, (i) => ({ type: i % 3 === 0 ? 'chat' : 'game' }));
    expect(await take(chat, 2)).toEqual(['1', '4']);
    expect(await take(even, 3)).toEqual(['2', '4', '6']);
  });

  it('refuses an unknown category and a fractional cursor when it is created', () => {
    const l = log();
    expect(() => followEvents(l, { categories: ['chatter' as never] })).toThrow(/unknown event category 'chatter'; use one of hello, chat/);
    expect(() => followEvents(l, { since: { seq: 1.5 } })).toThrow(McbridgeError);
  });

  it('ends when its signal aborts, also while waiting, and leaves no listener behind', async () => {
    const l = log();
    const controller = new AbortController();
    const context = new AbortController();
    const f = followEvents(l, { signal: controller.signal }, [context.signal]);
    const pending = f.next();
    await tick();
    expect(l.stats().listeners).toBe(1);
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(l.stats().listeners).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(context.signal, 'abort')).toHaveLength(0);
    fill(l, 1);
    expect(await f.next()).toEqual({ done: true, value: undefined });
  });

  it('ends with the context signal too, and at once when a signal was aborted before', async () => {
    const l = log();
    fill(l, 3);
    const context = new AbortController();
    const f = followEvents(l, { since: { seq: 0 } }, [context.signal]);
    expect(await take(f, 1)).toEqual(['1']);
    context.abort();
    // Buffered events are not handed out after the end.
    expect(await f.next()).toEqual({ done: true, value: undefined });
    const aborted = new AbortController();
    aborted.abort();
    expect(await followEvents(l, { since: { seq: 0 }, signal: aborted.signal }).next()).toEqual({ done: true, value: undefined });
  });

  it('a `for await` break ends it and removes its listeners; return() settles a waiting next()', async () => {
    const l = log();
    const signal = new AbortController().signal;
    const seen: number[] = [];
    const loop = (async () => {
      for await (const item of followEvents(l, { signal })) {
        if (item.kind === 'event') seen.push(item.event.seq);
        if (seen.length === 3) break;
      }
    })();
    for (let i = 0; i < 5; i += 1) {
      await tick();
      fill(l, 1);
    }
    await loop;
    expect(seen).toEqual([1, 2, 3]);
    expect(l.stats().listeners).toBe(0);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);

    const f = followEvents(l);
    const pending = f.next();
    await tick();
    await f.return();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(l.stats().listeners).toBe(0);
  });

  it('serves concurrent next() calls one after another, each a different event; return() settles them all', async () => {
    const l = log();
    const f = followEvents(l);
    const all = Promise.all([f.next(), f.next(), f.next()]);
    await tick();
    fill(l, 3);
    expect((await all).map((r) => (r.value as { event: { seq: number } }).event.seq)).toEqual([1, 2, 3]);
    const waiting = Promise.all([f.next(), f.next()]);
    await tick();
    await f.return();
    expect(await waiting).toEqual([
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
    expect(l.stats().listeners).toBe(0);
  });

  it('a filter that throws rejects that next() and ends the follower', async () => {
    const l = log();
    fill(l, 2);
    const f = followEvents(l, {
      since: { seq: 0 },
      filter: () => {
        throw new Error('bad filter');
      },
    });
    await expect(f.next()).rejects.toThrow('bad filter');
    expect(await f.next()).toEqual({ done: true, value: undefined });
  });

  it('many followers at different paces each get every event in order', async () => {
    const l = log(10_000);
    const followers = Array.from({ length: 50 }, (_, i) => ({ pace: i % 5, it: followEvents(l) }));
    const runs = followers.map(async ({ pace, it }) => {
      const seqs: number[] = [];
      for await (const item of it) {
        if (item.kind === 'gap') throw new Error('no gap expected');
        seqs.push(item.event.seq);
        for (let p = 0; p < pace; p += 1) await tick();
        if (seqs.length === 500) break;
      }
      return seqs;
    });
    for (let i = 0; i < 10; i += 1) {
      fill(l, 50);
      await tick();
    }
    const expected = Array.from({ length: 500 }, (_, i) => i + 1);
    for (const seqs of await Promise.all(runs)) expect(seqs).toEqual(expected);
    expect(l.stats().listeners).toBe(0);
  });

  it('a follower that never pulls holds nothing while 100k events are recorded, and then reports the gap', async () => {
    const l = log(100);
    const idle = followEvents(l);
    const once = followEvents(l);
    const first = once.next(); // one pull, then never again
    const busy = followEvents(l);
    let busyCount = 0;
    const reader = (async () => {
      for await (const item of busy) {
        busyCount += item.kind === 'event' ? 1 : 0;
        if (item.kind === 'event' && item.event.seq === 100_000) break;
      }
    })();
    for (let i = 0; i < 100; i += 1) {
      fill(l, 1_000);
      // Only the busy reader's wait (if it is waiting) listens; the idle ones add nothing.
      expect(l.stats().listeners).toBeLessThanOrEqual(1);
      await tick();
    }
    await reader;
    expect(busyCount).toBeGreaterThan(0);
    // Woken by the first event, it read the ring after the whole first batch was recorded.
    expect((await first).value).toEqual({ kind: 'gap', reason: 'evicted', dropped: 900, from: 1, to: 900 });
    expect(l.stats().listeners).toBe(0);
    // The idle follower starts where it was created: everything but the ring's 100 is a gap.
    expect(await take(idle, 3)).toEqual(['gap(1-99900)', '99901', '99902']);
    expect(await take(once, 2)).toEqual(['gap(901-99900)', '99901']);
  });
});

import { describe, expect, it } from 'vitest';
import { STEVE_UUID } from 'mcbridge/testing';
import type { Stack } from '../support/plugins.js';
import { waitUntil } from 'mcbridge/testing';
import { expectInvalidParams, failure, steveAndAlex, useStacks } from '../support/plugins.js';

const stacks = useStacks();
const twoPlayers = { players: steveAndAlex() };

type Page = { events: Array<Record<string, any>>; next: number; truncated: boolean; truncatedBy?: string; dropped: boolean; evicted: number; bytes: number };

/** Emit game events from the sim and wait until the daemon buffered all of them. */
async function flood(stack: Stack, count: number, text = (i: number) => `line ${i}`): Promise<void> {
  const target = stack.lastSeq() + count;
  for (let i = 0; i < count; i += 1) stack.sim.emit({ type: 'game', millis: stack.sim.millis(), text: text(i) });
  await waitUntil(() => stack.lastSeq() >= target, 20_000, `${count} events to arrive`);
}

describe('events filters', () => {
  it('filters by category, type, sender (name any case, or UUID) and a text pattern', async () => {
    const stack = await stacks.start({ sim: twoPlayers });
    const since = stack.lastSeq();
    stack.sim.chat('Steve', 'hello from steve');
    stack.sim.chat('Alex', 'hello from alex');
    await stack.client.call('mark', { text: 'checkpoint' });
    stack.sim.emit({ type: 'sample_progress', millis: 1, text: 'sampled=20' });
    await waitUntil(() => stack.lastSeq() >= since + 4, 5_000, 'the events');

    const texts = async (params: Record<string, unknown>) => ((await stack.client.call('events', { since, ...params })) as Page).events.map((e) => e.text);
    expect(await texts({ sender: 'alex' })).toEqual(['hello from alex']);
    expect(await texts({ sender: STEVE_UUID.toUpperCase() })).toEqual(['hello from steve']);
    expect(await texts({ category: 'chat' })).toEqual(['hello from steve', 'hello from alex']);
    expect(await texts({ category: ['mark', 'sample'] })).toEqual(['checkpoint', 'sampled=20']);
    expect(await texts({ type: 'sample_progress' })).toEqual(['sampled=20']);
    expect(await texts({ type: ['mark', 'chat'], text: 'ALEX|check' })).toEqual(['hello from alex', 'checkpoint']);
    expect(await texts({ category: 'chat', sender: 'nobody' })).toEqual([]);
  });

  it('reads the client vantage sender (a stringified profile) by name and UUID', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const since = stack.lastSeq();
    stack.sim.chat('Steve', 'hi');
    await waitUntil(() => stack.lastSeq() > since, 5_000, 'the chat');
    const byName = (await stack.client.call('events', { since, sender: 'STEVE' })) as Page;
    expect(byName.events).toHaveLength(1);
    expect(byName.events[0]!.sender).toMatch(/^GameProfile\[id=/);
    const byUuid = (await stack.client.call('events', { since, sender: STEVE_UUID.replace(/-/g, '') })) as Page;
    expect(byUuid.events).toHaveLength(1);
  });

  it('validates the filters and the budget with messages that name the field', async () => {
    const stack = await stacks.start();
    await expectInvalidParams(stack, [
      ['events', { category: 'nonsense' }, /'category'.*one of hello, chat/],
      ['events', { category: [] }, /'category'/],
      ['events', { type: '' }, /'type'/],
      ['events', { sender: '' }, /'sender': sender must not be empty/],
      ['events', { text: '(' }, /'text': text must be a valid JavaScript regular expression/],
      ['events', { max_items: 0 }, /'max_items': max_items must be at least 1/],
      ['events', { limit: 10_001 }, /'limit': limit must be at most 10000/],
      ['events', { max_bytes: 0 }, /'max_bytes': max_bytes must be at least 1/],
      ['events', { max_bytes: 1.5 }, /max_bytes must be a whole number/],
      ['events', { limit: 5, max_items: 5 }, /pass either limit or max_items/],
      ['events', { since: -1 }, /'since'/],
      ['events', { since: 'abc' }, /since must be a seq number or an eventId/],
      ['events', { sender: 'x', from: 'y' }, /"from"/],
    ]);
  });
});

describe('events response budget', () => {
  it('cuts by bytes with truncated and next, keeps at least one event, and the tail keeps the newest', async () => {
    const stack = await stacks.start();
    const since = stack.lastSeq();
    await flood(stack, 20, (i) => `${'x'.repeat(200)} ${i}`);
    const page = (await stack.client.call('events', { since, max_bytes: 1_000 })) as Page;
    expect(page.truncated).toBe(true);
    expect(page.truncatedBy).toBe('bytes');
    expect(page.dropped).toBe(true);
    expect(page.bytes).toBeLessThanOrEqual(1_000);
    expect(page.events.length).toBeGreaterThan(0);
    expect(page.next).toBe(page.events.at(-1)!.seq);

    const one = (await stack.client.call('events', { since, max_bytes: 1 })) as Page;
    expect(one.events).toHaveLength(1);
    expect(one.next).toBe(since + 1);

    const items = (await stack.client.call('events', { since, max_items: 3 })) as Page;
    expect(items).toMatchObject({ truncated: true, truncatedBy: 'items', next: since + 3 });

    const tail = (await stack.client.call('events', { max_bytes: 1_000 })) as Page;
    expect(tail.truncated).toBe(true);
    expect(tail.events.at(-1)!.text).toMatch(/ 19$/);
    expect(tail.next).toBe(stack.lastSeq());

    const whole = (await stack.client.call('events', { since })) as Page;
    expect(whole).toMatchObject({ truncated: false, dropped: false });
    expect(whole).not.toHaveProperty('truncatedBy');
    expect(whole.events).toHaveLength(20);
    expect(whole.bytes).toBeGreaterThan(20 * 200);
  });

  it('pages through a flood of 10,000 events, arriving while it pages, without skipping or repeating one', async () => {
    const stack = await stacks.start({ buffer: 20_000 });
    const start = stack.lastSeq();
    const total = 10_000;
    // The flood goes out in bursts while the pager reads.
    const emitting = (async () => {
      for (let i = 0; i < total; i += 1) {
        stack.sim.emit({ type: 'game', millis: stack.sim.millis(), text: `line ${i}` });
        if (i % 250 === 249) await new Promise((r) => setImmediate(r));
      }
    })();
    const seen: number[] = [];
    const texts: string[] = [];
    let since: number = start;
    let pages = 0;
    let byBytes = 0;
    let byItems = 0;
    const deadline = Date.now() + 60_000;
    while (texts.length < total && Date.now() < deadline) {
      const page = (await stack.client.call('events', { since, type: 'game', max_items: 337, max_bytes: 24_000 })) as Page;
      pages += 1;
      if (page.truncatedBy === 'bytes') byBytes += 1;
      if (page.truncatedBy === 'items') byItems += 1;
      expect(page.evicted).toBe(0);
      for (const e of page.events) {
        seen.push(e.seq);
        texts.push(e.text);
      }
      expect(page.next).toBeGreaterThanOrEqual(since);
      since = page.next;
    }
    await emitting;
    expect(texts).toHaveLength(total);
    expect(texts).toEqual(Array.from({ length: total }, (_, i) => `line ${i}`));
    for (let i = 1; i < seen.length; i += 1) expect(seen[i]).toBeGreaterThan(seen[i - 1]!);
    expect(new Set(seen).size).toBe(total);
    expect(byBytes).toBeGreaterThan(0);
    expect(pages).toBeGreaterThan(total / 337);

    // Nothing after the last page: the cursor is exactly at the end.
    const after = (await stack.client.call('events', { since, type: 'game' })) as Page;
    expect(after.events).toEqual([]);
    expect(byItems + byBytes).toBeGreaterThan(0);
  }, 90_000);

  it('says dropped and evicted when the buffer lost events the cursor never saw', async () => {
    const stack = await stacks.start({ buffer: 10 });
    const since = stack.lastSeq();
    await flood(stack, 25);
    const page = (await stack.client.call('events', { since })) as Page;
    expect(page.dropped).toBe(true);
    expect(page.evicted).toBe(15);
    expect(page.events).toHaveLength(10);
    expect(page.events[0]!.text).toBe('line 15');
  });
});

describe('events_summary', () => {
  it('counts by category and type over the buffer, largest first, with the seq range and next', async () => {
    const stack = await stacks.start({ sim: twoPlayers });
    const before = stack.sim.received.length;
    const since = stack.lastSeq();
    await flood(stack, 3);
    stack.sim.chat('Steve', 'a');
    stack.sim.chat('Alex', 'b');
    stack.sim.emit({ type: 'lan', millis: 1, text: 'port=25565 address=127.0.0.1' });
    await waitUntil(() => stack.lastSeq() >= since + 6, 5_000, 'the events');
    const all = (await stack.client.call('events_summary')) as Record<string, any>;
    expect(all.total).toBe(stack.daemon.host.events.size);
    expect(all.byCategory.game).toBe(3);
    expect(all.byCategory.chat).toBe(2);
    expect(all.byType).toMatchObject({ game: 3, chat: 2, lan: 1 });
    expect(Object.keys(all.byType).slice(0, 2)).toEqual(['game', 'chat']);
    expect(all).toMatchObject({ firstSeq: 1, lastSeq: stack.lastSeq(), next: stack.lastSeq(), dropped: false, evicted: 0 });

    const recent = (await stack.client.call('events_summary', { since: since + 3 })) as Record<string, any>;
    expect(recent).toMatchObject({ total: 3, byCategory: { chat: 2, other: 1 }, firstSeq: since + 4 });
    // A summary never talks to the game.
    expect(stack.sim.received.slice(before)).toEqual([]);
  });

  it('reports dropped when the buffer evicted events after the cursor, and works on the client vantage', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' }, buffer: 5 });
    await flood(stack, 12);
    const s = (await stack.client.call('events_summary', { since: 0 })) as Record<string, any>;
    expect(s).toMatchObject({ total: 5, buffered: 5, capacity: 5, dropped: true });
    expect(s.evicted).toBe(stack.lastSeq() - 5);
    const empty = (await stack.client.call('events_summary', { since: stack.lastSeq() })) as Record<string, any>;
    expect(empty).toMatchObject({ total: 0, firstSeq: null, lastSeq: null, dropped: false });
    const bad = await failure(stack.client.call('events_summary', { since: 'x:y' }));
    expect(bad.code).toBe('invalid_params');
  });
});

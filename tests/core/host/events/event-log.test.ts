import { afterEach, describe, expect, it, vi } from 'vitest';
import { McbridgeError } from '../../../../core/host/errors.js';
import { categorize, EVENT_CATEGORIES } from '../../../../core/host/events/categories.js';
import { DEFAULT_BUFFER, DEFAULT_EVENT_LIMIT, EventLog, parseCursor, type RecordedEvent } from '../../../../core/host/events/event-log.js';

import { log, fill, seqs, range, rejectsWithCode, STREAM } from '../../../support/event-log.js';
afterEach(() => {
  vi.useRealTimers();
});

describe('categorize', () => {
  it.each([
    ['hello', 'hello'],
    ['chat', 'chat'],
    ['game', 'game'],
    ['mark', 'mark'],
    ['error', 'error'],
    ['disconnected', 'error'],
    ['bridge_disconnected', 'error'],
    ['task_error', 'error'],
    ['sample', 'sample'],
    ['sample_progress', 'sample'],
    ['lan', 'other'],
    ['auto_connect', 'other'],
    ['world_failed', 'other'],
    ['Chat', 'other'],
  ])('%s → %s', (type, category) => {
    expect(categorize(type)).toBe(category);
    expect(EVENT_CATEGORIES).toContain(category);
  });

  it('puts a missing or non-string type in other', () => {
    expect(categorize(undefined)).toBe('other');
    expect(categorize(42)).toBe('other');
  });
});

describe('EventLog.record', () => {
  it('numbers events from 1 and ids them <streamId>:<seq>', () => {
    const l = log();
    const a = l.record({ type: 'chat', message: 'hi' });
    const b = l.record({ type: 'game', message: 'x' });
    expect(a).toMatchObject({ type: 'chat', message: 'hi', seq: 1, streamId: STREAM, eventId: `${STREAM}:1`, category: 'chat' });
    expect(b).toMatchObject({ seq: 2, eventId: `${STREAM}:2`, category: 'game' });
    expect(l.lastSeq).toBe(2);
  });

  it('gives every run its own random 32-hex stream id', () => {
    const x = new EventLog();
    const y = new EventLog();
    expect(x.streamId).toMatch(/^[0-9a-f]{32}$/);
    expect(y.streamId).not.toBe(x.streamId);
    expect(x.capacity).toBe(DEFAULT_BUFFER);
  });

  it.each([
    ['chat', 'chat'],
    ['game', 'game'],
    ['mark', 'mark'],
    ['hello', 'hello'],
    ['sample_progress', 'sample'],
    ['task_error', 'error'],
    ['bridge_disconnected', 'error'],
    ['lan', 'other'],
  ])('records %s in category %s', (type, category) => {
    expect(log().record({ type }).category).toBe(category);
  });

  it("keeps the mod's own chat seq as modSeq while seq is the daemon's", () => {
    const l = log();
    l.record({ type: 'game' });
    const chat = l.record({ type: 'chat', seq: 12, text: 'hi' });
    expect(chat.seq).toBe(2);
    expect(chat.modSeq).toBe(12);
    expect(l.record({ type: 'game' })).not.toHaveProperty('modSeq');
  });

  it('takes contextId from context_id or contextId, only when a non-empty string', () => {
    const l = log();
    expect(l.record({ type: 'chat', context_id: 'ctx-1' }).contextId).toBe('ctx-1');
    expect(l.record({ type: 'chat', contextId: 'ctx-2' }).contextId).toBe('ctx-2');
    expect(l.record({ type: 'chat', contextId: 'ctx-3', context_id: 'other' }).contextId).toBe('ctx-3');
    expect(l.record({ type: 'chat', context_id: '' })).not.toHaveProperty('contextId');
    expect(l.record({ type: 'chat', context_id: 7 })).not.toHaveProperty('contextId');
    expect(l.record({ type: 'chat' })).not.toHaveProperty('contextId');
  });

  it('stamps receivedAt and overrides a seq the mod sent', () => {
    const before = Date.now();
    const e = log().record({ type: 'game', seq: 999, eventId: 'forged' });
    expect(e.seq).toBe(1);
    expect(e.eventId).toBe(`${STREAM}:1`);
    expect(e.receivedAt).toBeGreaterThanOrEqual(before);
    expect(e.receivedAt).toBeLessThanOrEqual(Date.now());
  });

  it('does not modify the raw message', () => {
    const raw = { type: 'chat', context_id: 'c' };
    log().record(raw);
    expect(raw).toEqual({ type: 'chat', context_id: 'c' });
  });

  it('records an event without a type as type unknown, category other', () => {
    expect(log().record({ message: 'x' })).toMatchObject({ type: 'unknown', category: 'other' });
  });

  it('evicts the oldest event when full and counts it', () => {
    const l = log(3);
    fill(l, 5);
    expect(l.size).toBe(3);
    expect(l.oldestSeq).toBe(3);
    expect(l.at(2)).toBeUndefined();
    expect(l.at(3)?.seq).toBe(3);
    expect(l.at(5)?.seq).toBe(5);
    expect(l.at(6)).toBeUndefined();
    expect(l.stats()).toMatchObject({ buffered: 3, capacity: 3, lastSeq: 5, oldestSeq: 3, evicted: 2, streamId: STREAM });
  });

  it('counts events per category', () => {
    const l = log(2);
    l.record({ type: 'chat' });
    l.record({ type: 'chat' });
    l.record({ type: 'task_error' });
    expect(l.stats().byCategory).toEqual({ chat: 2, error: 1 });
  });

  it('refuses a buffer smaller than one event', () => {
    for (const capacity of [0, -1, 1.5]) {
      expect(() => new EventLog({ capacity })).toThrow(McbridgeError);
    }
  });

  it('reports an empty log consistently', () => {
    const l = log();
    expect(l.lastSeq).toBe(0);
    expect(l.oldestSeq).toBe(1);
    expect(l.size).toBe(0);
    expect(l.query({ since: { seq: 0 } })).toMatchObject({ events: [], next: 0, dropped: false, evicted: 0, truncated: false });
    expect(l.query()).toMatchObject({ events: [], next: 0, dropped: false });
  });
});

describe('EventLog.query with a cursor', () => {
  it('returns exactly the events after since, oldest first, and next is the last seq', () => {
    const l = log();
    fill(l, 10);
    const page = l.query({ since: { seq: 4 } });
    expect(seqs(page.events)).toEqual(range(5, 10));
    expect(page).toMatchObject({ next: 10, streamId: STREAM, dropped: false, evicted: 0, truncated: false });
    expect(page).not.toHaveProperty('streamReset');
  });

  it('feeding next back as since gives only the new events: nothing skipped, nothing repeated', () => {
    const l = log();
    fill(l, 3);
    const first = l.query({ since: { seq: 0 } });
    expect(seqs(first.events)).toEqual([1, 2, 3]);
    expect(l.query({ since: { seq: first.next } }).events).toEqual([]);
    fill(l, 2);
    const second = l.query({ since: { seq: first.next } });
    expect(seqs(second.events)).toEqual([4, 5]);
    expect(second.next).toBe(5);
  });

  it('cuts at limit, says truncated, and next continues right after the last returned', () => {
    const l = log();
    fill(l, 10);
    const a = l.query({ since: { seq: 0 }, limit: 4 });
    expect(seqs(a.events)).toEqual([1, 2, 3, 4]);
    expect(a).toMatchObject({ next: 4, truncated: true, dropped: true, evicted: 0 });
    const b = l.query({ since: { seq: a.next }, limit: 4 });
    expect(seqs(b.events)).toEqual([5, 6, 7, 8]);
    const c = l.query({ since: { seq: b.next }, limit: 4 });
    expect(seqs(c.events)).toEqual([9, 10]);
    expect(c).toMatchObject({ next: 10, truncated: false, dropped: false });
  });

  it('is not truncated when exactly limit events remain', () => {
    const l = log();
    fill(l, 4);
    expect(l.query({ since: { seq: 0 }, limit: 4 })).toMatchObject({ next: 4, truncated: false, dropped: false });
  });

  it('uses the default limit of 200', () => {
    const l = log();
    fill(l, 250);
    const page = l.query({ since: { seq: 0 } });
    expect(DEFAULT_EVENT_LIMIT).toBe(200);
    expect(page.events).toHaveLength(200);
    expect(page.truncated).toBe(true);
    expect(page.next).toBe(200);
  });

  it('refuses a limit that is not a positive integer', () => {
    const l = log();
    for (const limit of [0, -1, 2.5, Number.NaN]) {
      try {
        l.query({ since: { seq: 0 }, limit });
        throw new Error(`limit ${limit} was accepted`);
      } catch (err) {
        expect((err as McbridgeError).code).toBe('invalid_params');
      }
    }
  });

  it('counts exactly the seqs lost to eviction between since and the oldest buffered', () => {
    const l = log(1000);
    fill(l, 1005); // 1..5 evicted, oldest is 6
    expect(l.query({ since: { seq: 0 }, limit: 1 })).toMatchObject({ evicted: 5, dropped: true });
    expect(l.query({ since: { seq: 2 }, limit: 1 })).toMatchObject({ evicted: 3, dropped: true });
    expect(l.query({ since: { seq: 4 }, limit: 1 }).evicted).toBe(1);
    const atEdge = l.query({ since: { seq: 5 }, limit: 1 });
    expect(atEdge).toMatchObject({ evicted: 0 });
    expect(seqs(atEdge.events)).toEqual([6]);
    expect(l.query({ since: { seq: 6 }, limit: 1 }).evicted).toBe(0);
    const all = l.query({ since: { seq: 2 }, limit: 5000 });
    expect(all.events[0]!.seq).toBe(6);
    expect(all).toMatchObject({ evicted: 3, truncated: false, dropped: true, next: 1005 });
  });

  it('treats a negative since as 0', () => {
    const l = log();
    fill(l, 2);
    expect(seqs(l.query({ since: { seq: -5 } }).events)).toEqual([1, 2]);
  });

  it('refuses a fractional or NaN since instead of paging out holes', async () => {
    const l = log();
    fill(l, 5);
    for (const seq of [1.5, Number.NaN]) {
      expect(() => l.query({ since: { seq } })).toThrow(/whole seq/);
      await rejectsWithCode(
        l.waitFor(() => true, { since: { seq } }),
        'invalid_params',
      );
    }
  });

  it('accepts its own stream id in the cursor', () => {
    const l = log();
    fill(l, 3);
    const page = l.query({ since: { streamId: STREAM, seq: 1 } });
    expect(seqs(page.events)).toEqual([2, 3]);
    expect(page).not.toHaveProperty('streamReset');
  });

  it('restarts at the oldest buffered event for a cursor from another daemon run', () => {
    const l = log(5);
    fill(l, 8); // 1..3 evicted
    const page = l.query({ since: { streamId: 'b'.repeat(32), seq: 2 } });
    expect(page.streamReset).toBe(true);
    expect(seqs(page.events)).toEqual(range(4, 8));
    expect(page.evicted).toBe(3);
    expect(page.dropped).toBe(true);
  });

  it('restarts for a seq from the future (the daemon restarted, no stream id given)', () => {
    const l = log();
    fill(l, 3);
    const page = l.query({ since: { seq: 50 } });
    expect(page.streamReset).toBe(true);
    expect(seqs(page.events)).toEqual([1, 2, 3]);
    expect(page.evicted).toBe(0);
    expect(l.query({ since: { seq: 3 } })).not.toHaveProperty('streamReset');
  });

  it('filters by category and applies limit to the matching events only', () => {
    const l = log();
    const types = ['chat', 'game', 'game', 'chat', 'mark', 'chat', 'game', 'chat'];
    for (const type of types) l.record({ type });
    const chat = (e: RecordedEvent) => e.category === 'chat';
    const a = l.query({ since: { seq: 0 }, limit: 2, filter: chat });
    expect(seqs(a.events)).toEqual([1, 4]);
    expect(a).toMatchObject({ truncated: true, next: 4 });
    const b = l.query({ since: { seq: a.next }, limit: 2, filter: chat });
    expect(seqs(b.events)).toEqual([6, 8]);
    expect(b).toMatchObject({ truncated: false, next: 8 });
    // Nothing matching remains after the last chat: not truncated, next jumps to the end.
    l.record({ type: 'game' });
    const c = l.query({ since: { seq: b.next }, limit: 2, filter: chat });
    expect(c).toMatchObject({ events: [], truncated: false, dropped: false, next: 9 });
  });

  it('says not truncated when only non-matching events follow the limit', () => {
    const l = log();
    for (const type of ['chat', 'chat', 'game', 'game']) l.record({ type });
    const page = l.query({ since: { seq: 0 }, limit: 2, filter: (e) => e.type === 'chat' });
    expect(page).toMatchObject({ truncated: false, dropped: false, next: 4 });
  });

  it('pages through 10,000 events fed between pages without a skip or a repeat', () => {
    const l = log(1000);
    const total = 10_000;
    let recorded = 0;
    let rand = 12345;
    const next = () => {
      rand = (rand * 1103515245 + 12345) % 2 ** 31;
      return rand;
    };
    const seen: number[] = [];
    let evictedSum = 0;
    const gaps: Array<{ after: number; count: number }> = [];
    let since = 0;
    let pages = 0;
    let sawEviction = false;
    let sawTruncation = false;

    while (true) {
      // Sometimes a burst bigger than the ring, usually less than one page.
      const burst = next() % 10 === 0 ? 1200 + (next() % 300) : next() % 200;
      const n = Math.min(burst, total - recorded);
      fill(l, n, (i) => ({ type: (recorded + i) % 3 === 0 ? 'chat' : 'game' }));
      recorded += n;

      const page = l.query({ since: { seq: since }, limit: 137 });
      pages += 1;
      expect(page.streamId).toBe(STREAM);
      expect(page.events.length).toBeLessThanOrEqual(137);
      expect(page.dropped).toBe(page.evicted > 0 || page.truncated);
      if (page.evicted > 0) {
        sawEviction = true;
        gaps.push({ after: since, count: page.evicted });
        evictedSum += page.evicted;
      }
      if (page.truncated) sawTruncation = true;
      const expectedFirst = since + 1 + page.evicted;
      if (page.events.length > 0) {
        expect(page.events[0]!.seq).toBe(expectedFirst);
        expect(seqs(page.events)).toEqual(range(expectedFirst, expectedFirst + page.events.length - 1));
        expect(page.next).toBe(page.truncated ? page.events.at(-1)!.seq : l.lastSeq);
      } else {
        expect(page.truncated).toBe(false);
        expect(page.next).toBe(l.lastSeq);
      }
      expect(page.next).toBeGreaterThanOrEqual(since);
      seen.push(...seqs(page.events));
      since = page.next;
      if (recorded === total && !page.truncated) break;
      expect(pages).toBeLessThan(10_000);
    }

    expect(sawEviction).toBe(true);
    expect(sawTruncation).toBe(true);
    expect(l.lastSeq).toBe(total);
    // Every seq is either seen exactly once or accounted for by `evicted`.
    expect(seen.length + evictedSum).toBe(total);
    expect(new Set(seen).size).toBe(seen.length);
    const expected: number[] = [];
    let cursor = 1;
    for (const gap of gaps) {
      expected.push(...range(cursor, gap.after));
      cursor = gap.after + gap.count + 1;
    }
    expected.push(...range(cursor, total));
    expect(seen).toEqual(expected);
  });
});

describe('EventLog.query without a cursor (tail view)', () => {
  it('returns the newest limit events, oldest first, with next at the end', () => {
    const l = log();
    fill(l, 10);
    const page = l.query({ limit: 3 });
    expect(seqs(page.events)).toEqual([8, 9, 10]);
    expect(page).toMatchObject({ next: 10, truncated: true, dropped: true, evicted: 0 });
    expect(l.query({ since: { seq: page.next } }).events).toEqual([]);
  });

  it('is not truncated when everything fits', () => {
    const l = log();
    fill(l, 3);
    expect(l.query({ limit: 3 })).toMatchObject({ truncated: false, dropped: false });
    expect(seqs(l.query({ limit: 3 }).events)).toEqual([1, 2, 3]);
  });

  it('applies the filter before the limit', () => {
    const l = log();
    for (const type of ['chat', 'game', 'chat', 'game', 'chat', 'game']) l.record({ type });
    const page = l.query({ limit: 2, filter: (e) => e.category === 'chat' });
    expect(seqs(page.events)).toEqual([3, 5]);
    expect(page.truncated).toBe(true);
    expect(page.next).toBe(6);
  });

  it('only looks at buffered events', () => {
    const l = log(4);
    fill(l, 10);
    expect(seqs(l.query({ limit: 100 }).events)).toEqual([7, 8, 9, 10]);
  });
});

describe('parseCursor', () => {
  it('accepts a number, a numeric string and an eventId', () => {
    expect(parseCursor(12)).toEqual({ seq: 12 });
    expect(parseCursor(0)).toEqual({ seq: 0 });
    expect(parseCursor('12')).toMatchObject({ seq: 12 });
    expect(parseCursor('12').streamId).toBeUndefined();
    expect(parseCursor(' 12 ')).toMatchObject({ seq: 12 });
    expect(parseCursor(`${STREAM}:12`)).toEqual({ streamId: STREAM, seq: 12 });
  });

  it('round-trips an eventId into a cursor the log understands', () => {
    const l = log();
    fill(l, 5);
    const id = l.at(3)!.eventId;
    expect(seqs(l.query({ since: parseCursor(id) }).events)).toEqual([4, 5]);
  });

  it.each(['', 'abc', '12:', ':12', '-1', '1.5', '1e3', 'a:b:3', `${STREAM}:x`, 'has space:3', '0x10'])('rejects %j with code invalid_params', (junk) => {
    let caught: unknown;
    try {
      parseCursor(junk);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(McbridgeError);
    expect((caught as McbridgeError).code).toBe('invalid_params');
    expect((caught as McbridgeError).message).toContain('since');
  });

  it.each([Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY])('rejects the number %s with code invalid_params', (junk) => {
    let caught: unknown;
    try {
      parseCursor(junk);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(McbridgeError);
    expect((caught as McbridgeError).code).toBe('invalid_params');
  });
});

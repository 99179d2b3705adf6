/**
 * When the event log reuses the mod's text (`jsonPieces` gives the pieces of a splice, one piece
 * for a JSON.stringify), the target stamp, the exact bounds of the ring and the words of its
 * refusals (issue 35's mutation run over core/host/events/).
 */
import { describe, expect, it } from 'vitest';
import { canSplice } from '../../../../core/host/events/event-json.js';
import { EventLog, parseCursor, type RecordedEvent } from '../../../../core/host/events/event-log.js';
import { followEvents } from '../../../../core/host/events/follow.js';
import { caught } from '../../../support/errors.js';

function recordLine(log: EventLog, line: string): RecordedEvent {
  return log.record(JSON.parse(line) as Record<string, unknown>, line);
}

/** Spliced from the mod's text (several pieces), and byte for byte what JSON.stringify gives. */
function expectSpliced(log: EventLog, event: RecordedEvent): void {
  expect(log.jsonPieces(event).length).toBeGreaterThan(1);
  expect(log.toJson(event)).toBe(JSON.stringify(event));
}

/** Not spliced: one piece, JSON.stringify's. */
function expectStringified(log: EventLog, event: RecordedEvent): void {
  expect(log.jsonPieces(event)).toEqual([JSON.stringify(event)]);
  expect(log.toJson(event)).toBe(JSON.stringify(event));
}

describe('canSplice', () => {
  it('takes a mod object with a string type, a chat seq included, and nothing the log adds', () => {
    expect(canSplice({ type: 'chat', text: 'hi' })).toBe(true);
    expect(canSplice({ type: 'chat', seq: 4 })).toBe(true);
    expect(canSplice({ type: 5 })).toBe(false);
    expect(canSplice({ text: 'no type' })).toBe(false);
    for (const key of ['modSeq', 'streamId', 'eventId', 'category', 'receivedAt', 'contextId']) {
      expect(canSplice({ type: 'chat', [key]: 'x' }), key).toBe(false);
    }
  });
});

describe('EventLog: which events are spliced', () => {
  it('splices every event of a compact line that is still in the ring, the second slot and later too', () => {
    const log = new EventLog({ streamId: 's', capacity: 4 });
    const events = ['{"type":"game","text":"a"}', '{"type":"chat","seq":9,"text":"b"}', '{"type":"mark","text":"c"}'].map((l) => recordLine(log, l));
    for (const e of events) expectSpliced(log, e);
  });

  it('stringifies a line carrying a field the log adds, or a type that is not a string, and keeps one copy of each key', () => {
    const log = new EventLog({ streamId: 's' });
    for (const line of [
      '{"type":"game","category":"mine"}',
      '{"type":"game","streamId":"theirs"}',
      '{"type":"game","eventId":"e"}',
      '{"type":"game","receivedAt":1}',
      '{"type":"game","contextId":"c"}',
      '{"type":"game","modSeq":3}',
      '{"type":7,"text":"x"}',
    ]) {
      const event = recordLine(log, line);
      expectStringified(log, event);
    }
  });

  it('stringifies an event that left the ring, and a copy of one that is still in it', () => {
    const log = new EventLog({ streamId: 's', capacity: 2 });
    const first = recordLine(log, '{"type":"game","text":"one"}');
    const second = recordLine(log, '{"type":"game","text":"two"}');
    const copy = { ...second, text: 'changed' } as RecordedEvent;
    expect(JSON.parse(log.toJson(copy)).text).toBe('changed');
    expectStringified(log, copy);
    recordLine(log, '{"type":"game","text":"three"}');
    expectStringified(log, first);
    expectSpliced(log, second);
  });
});

describe('EventLog of a target', () => {
  it('stamps the target after seq, splicing the mod text; a mod field named target is kept as modTarget', () => {
    const log = new EventLog({ streamId: 's', target: 'live' });
    const plain = recordLine(log, '{"type":"game","text":"a"}');
    expect(plain.target).toBe('live');
    expect('modTarget' in plain).toBe(false);
    expect(Object.keys(plain).slice(0, 5)).toEqual(['type', 'text', 'seq', 'target', 'streamId']);
    expectSpliced(log, plain);
    expect(log.toJson(plain)).toContain('"seq":1,"target":"live","streamId":"s"');

    const theirs = recordLine(log, '{"type":"game","target":"their-label"}');
    expect(theirs.target).toBe('live');
    expect(theirs.modTarget).toBe('their-label');
    // The mod's `target` sits where the mod put it, with our value: no splice of that text.
    expectStringified(log, theirs);
  });

  it('a log of no target leaves a mod field named target as it came, and still splices', () => {
    const log = new EventLog({ streamId: 's' });
    const event = recordLine(log, '{"type":"game","target":"their-label"}');
    expect(event.target).toBe('their-label');
    expect('modTarget' in event).toBe(false);
    expectSpliced(log, event);
    expect(log.toJson(event)).not.toContain('"target":"live"');
  });
});

describe('EventLog bounds', () => {
  it('holds one event or one byte at the least, and says so otherwise', () => {
    expect(new EventLog({ capacity: 1 }).capacity).toBe(1);
    expect(new EventLog({ maxBytes: 1 }).maxBytes).toBe(1);
    expect(caught(() => new EventLog({ capacity: 0 }))).toMatchObject({ code: 'invalid_params', message: 'the event buffer must hold at least 1 event, got 0' });
    expect(caught(() => new EventLog({ maxBytes: 0 }))).toMatchObject({ code: 'invalid_params', message: 'the event buffer must hold at least 1 byte, got 0' });
  });

  it('keeps events whose text fills maxBytes exactly, and evicts at one byte over', () => {
    const a = '{"type":"game","text":"a"}';
    const b = '{"type":"game","text":"b"}';
    const exact = new EventLog({ maxBytes: a.length + b.length });
    recordLine(exact, a);
    recordLine(exact, b);
    expect(exact.stats()).toMatchObject({ buffered: 2, bytes: a.length + b.length, evicted: 0 });
    const under = new EventLog({ maxBytes: a.length + b.length - 1 });
    recordLine(under, a);
    recordLine(under, b);
    expect(under.stats()).toMatchObject({ buffered: 1, bytes: b.length, evicted: 1 });
  });
});

describe('the words of the refusals', () => {
  it('say what was wrong and what is accepted', async () => {
    const log = new EventLog({ streamId: 's' });
    expect(caught(() => log.query({ limit: 0 })).message).toBe('limit must be a positive integer, got 0');
    expect(caught(() => log.position({ seq: 1.5 })).message).toBe('since must be a whole seq number, got 1.5');
    expect(caught(() => parseCursor(-1)).message).toBe('since must be a seq number or an eventId "<streamId>:<seq>", got -1');
    expect(caught(() => parseCursor('x:y')).message).toBe('since must be a seq number or an eventId "<streamId>:<seq>", got "x:y"');
    expect(caught(() => followEvents(log, { categories: ['chatter' as never] }))).toMatchObject({
      code: 'invalid_params',
      message: "unknown event category 'chatter'; use one of hello, chat, game, mark, sample, error, other",
    });
    const aborted = AbortSignal.abort();
    const early = await log.waitFor(() => true, { signal: aborted }).catch((e: unknown) => e);
    expect(early).toMatchObject({ code: 'cancelled', message: 'the wait was cancelled' });
    const controller = new AbortController();
    const later = log.waitFor(() => true, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    expect(await later).toMatchObject({ code: 'cancelled', message: 'the wait was cancelled' });
    const timedOut = await log.waitFor(() => false, { timeoutMs: 1 }).catch((e: unknown) => e);
    expect(timedOut).toMatchObject({ code: 'timeout', message: 'no matching event within 1 ms', details: { timeoutMs: 1 } });
  });
});

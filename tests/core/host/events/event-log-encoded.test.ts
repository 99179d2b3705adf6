/**
 * Events that come without their text (the control protocol's, parsed from a frame, and the
 * link's own) are measured by encoding them once, and that text is then spliced as a mod's line
 * is (issue 35, item 1: a control event counted at a fixed size escaped the ring's byte bound).
 */
import { describe, expect, it } from 'vitest';
import { EventLog } from '../../../../core/host/events/event-log.js';

describe('an event recorded without its text', () => {
  it('counts the bytes of its JSON and splices that text, as a mod line is', () => {
    const log = new EventLog({ streamId: 's' });
    const raw = { type: 'game', text: 'x'.repeat(1000), event: true };
    const event = log.record(raw);
    expect(log.stats().bytes).toBe(JSON.stringify(raw).length);
    const pieces = log.jsonPieces(event);
    expect(pieces[0]).toBe(JSON.stringify(raw).slice(0, -1));
    expect(pieces.join('')).toBe(JSON.stringify(event));
  });

  it('is held to the byte bound at that size: 3 events of 1,000 bytes in a ring of 2,500 keep 2', () => {
    const one = JSON.stringify({ type: 'game', text: 'y'.repeat(975) }).length;
    expect(one).toBe(1000);
    const log = new EventLog({ maxBytes: 2_500 });
    for (let i = 0; i < 3; i++) log.record({ type: 'game', text: `${i}`.repeat(975) });
    expect(log.stats()).toMatchObject({ buffered: 2, bytes: 2_000, evicted: 1 });
    expect(log.oldestSeq).toBe(2);
  });

  it('of a target: stamps the target in the spliced text, and keeps a server field named target beside it', () => {
    const log = new EventLog({ streamId: 's', target: 'live' });
    const event = log.record({ type: 'game', text: 'a' });
    expect(log.toJson(event)).toBe(`{"type":"game","text":"a","seq":1,"target":"live","streamId":"s","eventId":"s:1","category":"game","receivedAt":${event.receivedAt}}`);
    expect(log.jsonPieces(event).length).toBeGreaterThan(1);
    const theirs = log.record({ type: 'game', target: 'label' });
    expect(log.stats().bytes).toBe(JSON.stringify({ type: 'game', text: 'a' }).length + JSON.stringify({ type: 'game', target: 'label' }).length);
    expect(log.jsonPieces(theirs)).toEqual([JSON.stringify(theirs)]);
  });

  it('that cannot be encoded is recorded all the same and counts 256 bytes', () => {
    const log = new EventLog({ maxBytes: 600 });
    // A BigInt has no JSON form: no event of the link's has one, but the ring must not throw on it.
    for (let i = 0; i < 3; i++) expect(log.record({ type: 'game', n: BigInt(i) }).seq).toBe(i + 1);
    expect(log.stats()).toMatchObject({ buffered: 2, bytes: 512, evicted: 1 });
  });
});

describe('an event recorded with its text', () => {
  it('counts that text, not a new encoding, and reuses it word for word', () => {
    const log = new EventLog({ streamId: 's' });
    const line = '{ "type" : "game",  "text" : "spaced" }';
    const event = log.record(JSON.parse(line) as Record<string, unknown>, line);
    expect(log.stats().bytes).toBe(line.length);
    expect(line.length).not.toBe(JSON.stringify(JSON.parse(line)).length);
    expect(log.toJson(event)).toBe(`{ "type" : "game",  "text" : "spaced" ,"seq":1,"streamId":"s","eventId":"s:1","category":"game","receivedAt":${event.receivedAt}}`);
  });
});

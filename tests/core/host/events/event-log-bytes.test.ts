/** The ring is bounded in bytes as well as in events: 100 events of 8 MiB must not hold 800 MiB. */
import { describe, expect, it } from 'vitest';
import { EventLog } from '../../../../core/host/events/event-log.js';

/** An event as the link records it: parsed, with the mod's own line beside it. */
function modEvent(log: EventLog, text: string) {
  const raw = { type: 'game', event: true, text };
  return log.record(raw, JSON.stringify(raw));
}

describe('the event ring in bytes', () => {
  it('evicts the oldest events once their JSON passes maxBytes, and counts them as evicted', () => {
    const log = new EventLog({ capacity: 1_000, maxBytes: 1_000 });
    for (let i = 0; i < 10; i++) modEvent(log, `${i}`.padEnd(280, '.'));
    const stats = log.stats();
    expect(stats.buffered).toBe(3);
    expect(stats.bytes).toBeLessThanOrEqual(1_000);
    expect(stats.evicted).toBe(7);
    expect(log.oldestSeq).toBe(8);
    const page = log.query({ since: { seq: 0 } });
    expect(page.events.map((e) => e.seq)).toEqual([8, 9, 10]);
    expect(page.dropped).toBe(true);
  });

  it('keeps the newest event alone when it is bigger than the bound', () => {
    const log = new EventLog({ capacity: 10, maxBytes: 100 });
    modEvent(log, 'small');
    const big = modEvent(log, 'x'.repeat(500));
    expect(log.stats()).toMatchObject({ buffered: 1, evicted: 1 });
    expect(log.at(big.seq)).toBe(big);
    modEvent(log, 'after');
    expect(log.stats()).toMatchObject({ buffered: 1, evicted: 2 });
  });

  it('lets go of evicted events at once, so their memory can be collected', () => {
    const log = new EventLog({ capacity: 100, maxBytes: 2_000 });
    const first = modEvent(log, 'a'.repeat(900));
    for (let i = 0; i < 5; i++) modEvent(log, 'b'.repeat(900));
    expect(log.at(first.seq)).toBeUndefined();
    expect(log.stats().bytes).toBeLessThanOrEqual(2_000);
  });

  it('refuses a bound below one byte', () => {
    expect(() => new EventLog({ maxBytes: 0 })).toThrow(/at least 1 byte/);
  });
});

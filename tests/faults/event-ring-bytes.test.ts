/** Big events from the mod: the daemon's ring holds at most --buffer-bytes of them. */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHost, waitUntil, type TestHost } from '../../core/testing/index.js';

let host: TestHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

describe('events of several MiB', () => {
  it('are kept within the byte bound; the rest are evicted, counted, and reported as dropped', async () => {
    host = await startTestHost({ config: { bufferBytes: 4 } });
    const before = host.lastSeq();
    const text = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 12; i++) host.sim.emit({ type: 'game', millis: i, text: `${i}:${text}` });
    await waitUntil(() => host!.lastSeq() >= before + 12, 20_000, 'the big events');
    const status = (await host.call('status')) as { events: { bytes: number; maxBytes: number; buffered: number; evicted: number } };
    expect(status.events.maxBytes).toBe(4 * 1024 * 1024);
    expect(status.events.bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(status.events.buffered).toBeLessThanOrEqual(4);
    expect(status.events.evicted).toBeGreaterThanOrEqual(8);
    const page = (await host.call('events', { since: before, limit: 50 })) as { dropped: boolean; events: unknown[] };
    expect(page.dropped).toBe(true);
  });
});

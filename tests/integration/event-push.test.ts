import net from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalApiServer } from '../../core/api/server.js';
import { Host } from '../../core/host/host.js';
import { LineSplitter } from '../../core/util/lines.js';
import { silentLogger } from '../../core/util/log.js';
import { rawConnection, waitUntil } from '../support/helpers.js';

/**
 * The local API's event pushes, driven by recording events straight into a host's log
 * (no mod): batching per tick must not change a byte, reorder anything, or lose an event
 * without a `gap` frame that says so.
 */

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function apiOnly(pushBufferBytes?: number): Promise<{ host: Host; port: number }> {
  const host = new Host({ log: silentLogger(), buffer: 100_000 });
  const api = new LocalApiServer(host, { port: 0, log: silentLogger(), pushBufferBytes });
  const { port } = await api.listen();
  cleanups.push(() => api.close());
  return { host, port };
}

async function subscribed(port: number, events: string[]) {
  const conn = await rawConnection(port);
  cleanups.push(() => conn.close());
  conn.send(JSON.stringify({ id: 1, method: 'subscribe', params: { events } }));
  expect(await conn.next()).toMatchObject({ type: 'response', id: 1, ok: true });
  return conn;
}

function record(host: Host, line: string) {
  return host.events.record(JSON.parse(line) as Record<string, unknown>, line);
}

describe('event pushes', () => {
  it('sends each subscriber exactly JSON.stringify of the frame, mod text reused or not', async () => {
    const { host, port } = await apiOnly();
    const conn = await subscribed(port, ['*']);
    const lines = [
      '{"type":"game","text":"Set the time to 1000","event":true}',
      '{"type":"chat","seq":41,"text":"hi \\"there\\"","sender":"Alex","context_id":"ctx-9","event":true}',
      '{ "type" : "mark", "text": "ünïcode 😀", "event": true }',
    ];
    const recorded = lines.map((l) => record(host, l));
    recorded.push(host.events.record({ type: 'bridge_disconnected', text: 'no text of its own' }));
    for (const event of recorded) {
      expect(await conn.next()).toStrictEqual(JSON.parse(JSON.stringify({ type: 'event', event: event.category, data: event })));
    }
  });

  it('keeps the order of pushes and other frames written in the same tick', async () => {
    const { host, port } = await apiOnly();
    const conn = await subscribed(port, ['*']);
    record(host, '{"type":"game","text":"one"}');
    record(host, '{"type":"game","text":"two"}');
    host.emit('surface', host.manifest()); // a surface frame, written at once
    record(host, '{"type":"game","text":"three"}');
    const frames = [await conn.next(), await conn.next(), await conn.next(), await conn.next()];
    expect(frames.map((f) => (f.event === 'surface' ? 'surface' : (f.data as { text: string }).text))).toStrictEqual(['one', 'two', 'surface', 'three']);
  });

  it("filters one batch by each subscriber's categories", async () => {
    const { host, port } = await apiOnly();
    const chat = await subscribed(port, ['chat']);
    const game = await subscribed(port, ['game', 'mark']);
    record(host, '{"type":"game","text":"g1"}');
    record(host, '{"type":"chat","text":"c1"}');
    record(host, '{"type":"mark","text":"m1"}');
    record(host, '{"type":"chat","text":"c2"}');
    const texts = async (conn: Awaited<ReturnType<typeof subscribed>>, n: number) => {
      const out: string[] = [];
      for (let i = 0; i < n; i += 1) out.push(((await conn.next()).data as { text: string }).text);
      return out;
    };
    expect(await texts(chat, 2)).toStrictEqual(['c1', 'c2']);
    expect(await texts(game, 2)).toStrictEqual(['g1', 'm1']);
  });

  it('skips a subscriber that stops reading and tells it what it missed; the others get everything', async () => {
    const { host, port } = await apiOnly(1024 * 1024);
    const fast = await subscribed(port, ['*']);
    // The slow one: subscribes, then stops reading until the log has moved on.
    const slow = net.connect({ host: '127.0.0.1', port });
    cleanups.push(() => void slow.destroy());
    await once(slow, 'connect');
    const slowFrames: Array<Record<string, unknown>> = [];
    const splitter = new LineSplitter({ onLine: (l) => slowFrames.push(JSON.parse(l) as Record<string, unknown>) });
    slow.on('data', (chunk: Buffer) => splitter.push(chunk));
    slow.write('{"id":1,"method":"subscribe","params":{"events":["*"]}}\n');
    await waitUntil(() => slowFrames.length === 1, 2_000, 'the subscribe ack');
    slow.pause();

    const text = 'x'.repeat(16 * 1024);
    const total = 1_500; // ~24 MiB of frames: well past the 1 MiB (plus the kernel's buffers) a subscriber may have pending
    let fastSeen = 0;
    const fastDone = (async () => {
      while (fastSeen < total) {
        await fast.next();
        fastSeen += 1;
      }
    })();
    for (let i = 0; i < total; i += 1) {
      record(host, JSON.stringify({ type: 'game', text, i }));
      // One batch per read, as from the mod; and, like a mod behind TCP, no faster than the
      // reading subscriber: it stays within its push buffer however loaded the machine is,
      // while the paused one falls megabytes behind.
      if (i % 50 === 49) await waitUntil(() => fastSeen >= i + 1, 20_000, 'the reading subscriber to keep up');
    }
    await fastDone;
    slow.resume();
    await waitUntil(() => slowFrames.some((f) => f.type === 'gap'), 10_000, 'a gap frame');
    const events = slowFrames.filter((f) => f.type === 'event');
    const gaps = slowFrames.filter((f) => f.type === 'gap');
    expect(gaps).toHaveLength(1);
    const gap = gaps[0]!;
    expect(gap.streamId).toBe(host.events.streamId);
    // What was pushed and what the gap reports cover every event exactly once, in order.
    const seqs = events.map((e) => (e.data as { seq: number }).seq);
    expect(seqs.length + (gap.dropped as number)).toBe(total);
    expect(seqs).toStrictEqual([...seqs].sort((a, b) => a - b));
    expect((gap.toSeq as number) - (gap.fromSeq as number) + 1).toBe(gap.dropped);
    expect(seqs.every((s) => s < (gap.fromSeq as number))).toBe(true);
    expect(seqs.length).toBeGreaterThan(0);
  });
});

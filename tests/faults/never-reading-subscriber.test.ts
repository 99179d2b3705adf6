/**
 * A subscriber that never reads while the mod sends 100,000 events: the daemon keeps at most
 * --push-buffer for it and tells it what it missed; another subscriber gets every event.
 */
import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHost, waitUntil, type TestHost } from '../../core/testing/index.js';
import { LineSplitter } from '../../core/util/lines.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function subscriber(port: number, onFrame: (frame: { type: string }) => void): Promise<net.Socket> {
  const socket = net.connect({ host: '127.0.0.1', port });
  cleanups.push(() => socket.destroy());
  await once(socket, 'connect');
  const splitter = new LineSplitter({ onLine: (line) => onFrame(JSON.parse(line) as { type: string }) });
  socket.on('data', (chunk: Buffer) => splitter.push(chunk));
  socket.write('{"id":1,"method":"subscribe","params":{"events":["game"]}}\n');
  return socket;
}

describe('a subscriber that never reads', { timeout: 120_000 }, () => {
  it('costs at most its push buffer while 100,000 events pass; the reading subscriber gets them all', async () => {
    const host: TestHost = await startTestHost({ config: { pushBuffer: 1 } });
    cleanups.push(() => host.close());
    let read = 0;
    let acked = false;
    await subscriber(host.port, (f) => {
      if (f.type === 'event') read += 1;
      if (f.type === 'response') acked = true;
    });
    let stalledAcked = false;
    const stalled = await subscriber(host.port, (f) => {
      if (f.type === 'response') stalledAcked = true;
    });
    await waitUntil(() => acked && stalledAcked, 5_000, 'both subscriptions');
    stalled.pause();

    const rssBefore = process.memoryUsage().rss;
    const total = 100_000;
    for (let i = 0; i < total; i++) {
      host.sim.emit({ type: 'game', millis: i, text: `event ${i} `.padEnd(120, '.') });
      if (i % 500 === 499) await new Promise((r) => setImmediate(r));
    }
    await waitUntil(() => read >= total, 90_000, 'the reading subscriber to get every event');
    expect(read).toBe(total);
    // This process holds the sim, the daemon and both clients; the stalled one may cost the
    // daemon its 1 MiB push buffer plus the kernel's socket buffers, not the 40 MB of frames.
    const grownMiB = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    expect(grownMiB).toBeLessThan(150);

    let gap: { dropped: number } | undefined;
    let events = 0;
    stalled.removeAllListeners('data');
    const splitter = new LineSplitter({
      onLine: (line) => {
        const f = JSON.parse(line) as { type: string; dropped: number };
        if (f.type === 'gap') gap = f;
        if (f.type === 'event') events += 1;
      },
    });
    stalled.on('data', (chunk: Buffer) => splitter.push(chunk));
    stalled.resume();
    await waitUntil(() => gap !== undefined, 10_000, 'the gap frame');
    expect(events + gap!.dropped).toBe(total);
  });
});

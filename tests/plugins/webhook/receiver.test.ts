/** A receiver's bookkeeping without a server: the queue's bound, drops, gaps and the lines that say so. */
import { describe, expect, it } from 'vitest';
import { buildDelivery } from '../../../plugins/webhook/body.js';
import { WebhookReceiver, type ReceiverConfig } from '../../../plugins/webhook/receiver.js';
import { captureLog, startReceiver } from './test-receiver.js';

const SECRET = 'whsec-receiver-unit-secret';
// Port 9 (discard): nothing listens; these receivers are never started unless a test says so.
const config = (over: Partial<ReceiverConfig> = {}): ReceiverConfig => ({
  url: 'http://127.0.0.1:9/x',
  secret: SECRET,
  events: ['*'],
  queueSize: 2,
  maxAttempts: 1,
  backoff: 0,
  maxBackoff: 0,
  timeout: 1,
  ...over,
});
const event = (n: number) => ({ type: 'mark', category: 'mark', seq: n, streamId: 's', eventId: `s:${n}`, text: `m${n}` });

describe('webhook receiver bookkeeping', () => {
  it('takes back at most its queue size of owed deliveries, the newest, before new events', () => {
    const r = new WebhookReceiver(config(), captureLog().log);
    r.offer(event(9));
    r.restore([1, 2, 3].map((n) => buildDelivery(event(n))));
    expect(r.pending().map((d) => d.eventId)).toEqual(['s:2', 's:3', 's:9']);
  });

  it('queue full and spool full: each drop counted and said once, with its numbers; nothing said while there is room', () => {
    const { lines, log } = captureLog();
    const r = new WebhookReceiver(config(), log);
    r.offer(event(1));
    r.offer(event(2));
    expect(lines.filter((l) => l.includes('dropped'))).toEqual([]);
    r.offer(event(3));
    expect(lines.filter((l) => l.includes('dropped'))).toEqual(['warn webhook queue full; dropped 1 oldest event(s) {"dropped":1,"total":1}']);
    expect(r.dropOldest('spool full')?.eventId).toBe('s:2');
    expect(lines.at(-1)).toBe('warn webhook spool full; dropped 1 oldest event(s) {"dropped":1,"total":2}');
    expect(r.dropOldest('spool full')?.eventId).toBe('s:3');
    expect(r.dropOldest('spool full')).toBeUndefined();
    expect(r.status()).toMatchObject({ dropped: 3, queued: 0, received: 3 });
    expect(lines).toHaveLength(3);
  });

  it('a gap says how many were lost when it knows', () => {
    const { lines, log } = captureLog();
    const r = new WebhookReceiver(config(), log);
    r.noteGap(5, 'evicted');
    r.noteGap(0, 'stream-reset');
    expect(lines).toEqual([
      'warn webhook: 5 event(s) were lost before they could be queued (evicted) {"dropped":5,"reason":"evicted"}',
      'warn webhook: events may have been lost before they could be queued (stream-reset) {"dropped":0,"reason":"stream-reset"}',
    ]);
    expect(r.status().gaps).toBe(2);
  });

  it('settled(n) answers at once when n are done, also later; stop says what was done', async () => {
    const server = await startReceiver(SECRET, [404]);
    const { lines, log } = captureLog();
    const r = new WebhookReceiver(config({ url: server.url() }), log);
    try {
      await r.settled(0);
      r.start();
      r.offer(event(1));
      r.offer(event(2));
      await r.settled(2);
      const late = await Promise.race([r.settled(2).then(() => 'settled'), new Promise((resolve) => setTimeout(resolve, 500, 'waiting'))]);
      expect(late).toBe('settled');
      await r.stop();
      expect(lines.at(-1)).toBe(
        `info webhook forwarding to http://127.0.0.1:${server.port} stopped: delivered 1, failed 1, dropped 0 {"received":2,"delivered":1,"retries":0,"failed":1,"dropped":0,"gaps":0,"queued":0}`,
      );
    } finally {
      await server.close();
    }
  });
});

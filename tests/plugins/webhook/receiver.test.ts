/** A receiver's bookkeeping without a server: the queue's bound, drops, gaps and the lines that say so. */
import { describe, expect, it } from 'vitest';
import { buildDelivery } from '../../../plugins/webhook/body.js';
import { WebhookReceiver, type ReceiverConfig } from '../../../plugins/webhook/receiver.js';
import { waitUntil } from '../../support/wait-until.js';
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

describe('webhook receiver retries and stops', () => {
  it('waits the backoff between attempts, and logs each outcome with its numbers', async () => {
    const server = await startReceiver(SECRET, [500, 404, 500, 500]);
    const { lines, log } = captureLog();
    const r = new WebhookReceiver(config({ url: server.url(), queueSize: 8, maxAttempts: 2, backoff: 0.2, maxBackoff: 0.2 }), log, () => 0);
    try {
      r.start();
      r.offer(event(1)); // 500, then 404: rejected for good
      r.offer(event(2)); // 500, 500: given up
      r.offer(event(3)); // 200
      await server.hitsReached(1);
      const first = Date.now();
      await server.hitsReached(2);
      expect(Date.now() - first).toBeGreaterThanOrEqual(150); // 0.2 s × jitter 0.8
      await r.settled(3);
      const own = lines.filter((l) => !l.startsWith('info webhook forwarding'));
      expect(own).toEqual([
        'warn webhook retry s:1 in 0.16 s after HTTP 500 (attempt 1/2) {"eventId":"s:1","delay":0.16000000000000003,"attempt":1}',
        'warn webhook receiver rejected s:1 permanently: HTTP 404; not retrying {"eventId":"s:1","status":404}',
        'warn webhook retry s:2 in 0.16 s after HTTP 500 (attempt 1/2) {"eventId":"s:2","delay":0.16000000000000003,"attempt":1}',
        'error webhook gave up on s:2 after 2 attempt(s): HTTP 500 {"eventId":"s:2","attempts":2}',
        'info webhook delivered s:3 (HTTP 200) {"eventId":"s:3","status":200}',
      ]);
    } finally {
      await r.stop();
      await server.close();
    }
  });

  it('a stop mid-attempt counts nothing; a stop mid-backoff ends at once, with no further attempt', async () => {
    const server = await startReceiver(SECRET, ['hang']);
    const r = new WebhookReceiver(config({ url: server.url(), timeout: 60 }), captureLog().log);
    r.start();
    r.offer(event(1));
    await server.hitsReached(1);
    await r.stop();
    expect(r.status()).toMatchObject({ retries: 0, failed: 0, delivered: 0, lastEventId: null, lastError: null, running: false });
    expect(r.pending().map((d) => d.eventId)).toEqual(['s:1']);

    const { lines, log } = captureLog();
    const b = new WebhookReceiver(config({ url: server.url(), maxAttempts: 5, backoff: 30, maxBackoff: 30 }), log);
    server.answer(500);
    b.start();
    b.offer(event(2));
    await server.hitsReached(2);
    await waitUntil(() => lines.some((l) => l.startsWith('warn webhook retry s:2')));
    const stopping = Date.now();
    await b.stop();
    expect(Date.now() - stopping).toBeLessThan(5_000);
    expect(server.hits).toHaveLength(2);
    await server.close();
  });
});

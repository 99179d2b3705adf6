import { getEventListeners } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadIdentity } from '../../../core/sim/control/identity.js';
import { buildDelivery } from '../../../plugins/webhook/body.js';
import { Forwarder } from '../../../plugins/webhook/forwarder.js';
import { WebhookReceiver, retryDelay, type ReceiverConfig } from '../../../plugins/webhook/receiver.js';
import { post } from '../../../plugins/webhook/post.js';
import { redactUrl, sanitizer } from '../../../plugins/webhook/redact.js';
import { waitUntil } from '../../support/wait-until.js';
import { captureLog, startReceiver, type TestReceiver } from './test-receiver.js';

const SECRET = 'whsec-very-secret-value';
const open: Array<{ close(): Promise<void> } | WebhookReceiver> = [];

afterEach(async () => {
  for (const x of open.splice(0)) await (x instanceof WebhookReceiver ? x.stop() : x.close());
});

let seq = 0;
function chat(text: string, extra: Record<string, unknown> = {}) {
  seq += 1;
  return { type: 'chat', category: 'chat', seq, streamId: 'abc123', eventId: `abc123:${seq}`, receivedAt: 1_700_000_000_000 + seq, sender: 'Steve', text, ...extra };
}

async function setup(script: Parameters<typeof startReceiver>[1], config: Partial<ReceiverConfig> = {}) {
  const server = await startReceiver(SECRET, script);
  open.push(server);
  const { lines, log } = captureLog();
  const receiver = new WebhookReceiver(
    { url: server.url(), secret: SECRET, events: ['chat', 'game', 'mark', 'error'], queueSize: 256, maxAttempts: 5, backoff: 0.005, maxBackoff: 0.02, timeout: 5, ...config },
    log,
  );
  open.push(receiver);
  receiver.start();
  return { server, receiver, lines };
}

/** Nothing captured may hold the secret or any part of the URL beyond scheme://host:port. */
function expectNoLeak(server: TestReceiver, lines: string[], status: unknown) {
  for (const text of [...lines, JSON.stringify(status)]) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('s3cr3t-path');
    expect(text).not.toContain('querytoken');
    expect(text).not.toContain('/hook');
  }
  expect(JSON.stringify(status)).toContain(`http://127.0.0.1:${server.port}`);
}

describe('webhook delivery engine', () => {
  it('delivers a signed body with the documented fields and headers', async () => {
    const { server, receiver, lines } = await setup([]);
    const event = chat('hello', { tick: 42, contextId: 'ctx-1' });
    receiver.offer(event);
    await receiver.settled(1);
    const [hit] = server.hits;
    expect(hit!.method).toBe('POST');
    expect(hit!.verified).toBe(true);
    expect(hit!.json).toEqual({
      eventId: event.eventId,
      sequence: event.seq,
      streamId: 'abc123',
      // An event recorded outside a daemon names no target.
      target: null,
      event: 'chat',
      type: 'chat',
      category: 'chat',
      timestamp: event.receivedAt,
      tick: 42,
      sender: 'Steve',
      context_id: 'ctx-1',
      data: event,
    });
    expect(hit!.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'x-mc-agent-event-id': event.eventId,
      'x-mc-agent-event-type': 'chat',
      'x-mc-agent-attempt': '1',
    });
    expect(hit!.headers['user-agent']).toMatch(/^mcbridge\/\d+\.\d+\.\d+/);
    expect(receiver.status()).toMatchObject({ delivered: 1, retries: 0, failed: 0, queued: 0, lastEventId: event.eventId, lastError: null });
    expectNoLeak(server, lines, receiver.status());
  });

  it.each([500, 503, 408, 425, 429])('retries HTTP %i with the same body and event id, re-signed, then delivers', async (status) => {
    const { server, receiver, lines } = await setup([status, status]);
    receiver.offer(chat('retry me'));
    await receiver.settled(1);
    expect(server.hits).toHaveLength(3);
    expect(server.hits.map((h) => h.headers['x-mc-agent-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(server.hits.map((h) => h.body)).size).toBe(1);
    expect(new Set(server.hits.map((h) => h.headers['x-mc-agent-event-id'])).size).toBe(1);
    expect(server.hits.every((h) => h.verified)).toBe(true);
    expect(receiver.status()).toMatchObject({ delivered: 1, retries: 2, failed: 0 });
    expect(lines.some((l) => l.includes(`HTTP ${status}`) && l.includes('attempt 1/5'))).toBe(true);
    expectNoLeak(server, lines, receiver.status());
  });

  it('does not retry a permanent 404', async () => {
    const { server, receiver, lines } = await setup([404]);
    receiver.offer(chat('nope'));
    await receiver.settled(1);
    expect(server.hits).toHaveLength(1);
    expect(receiver.status()).toMatchObject({ delivered: 0, retries: 0, failed: 1, lastError: 'HTTP 404' });
    expect(lines.some((l) => l.includes('permanently: HTTP 404; not retrying'))).toBe(true);
    expectNoLeak(server, lines, receiver.status());
  });

  it('does not follow a 302: one POST, no GET, counted failed', async () => {
    const { server, receiver, lines } = await setup([302]);
    receiver.offer(chat('moved'));
    await receiver.settled(1);
    receiver.offer(chat('after'));
    await receiver.settled(2);
    expect(server.hits.map((h) => `${h.method} ${h.path}`)).toEqual([`POST /hook/s3cr3t-path?token=querytoken`, `POST /hook/s3cr3t-path?token=querytoken`]);
    expect(receiver.status()).toMatchObject({ delivered: 1, retries: 0, failed: 1 });
    expect(lines.some((l) => l.includes('redirect was not followed'))).toBe(true);
    expectNoLeak(server, lines, receiver.status());
  });

  it('cuts off a receiver that hangs and retries', async () => {
    const { server, receiver, lines } = await setup(['hang'], { timeout: 0.2 });
    receiver.offer(chat('slow'));
    await receiver.settled(1);
    expect(server.hits).toHaveLength(2);
    expect(receiver.status()).toMatchObject({ delivered: 1, retries: 1, failed: 0 });
    expect(lines.some((l) => l.includes('no complete response within 200 ms'))).toBe(true);
  });

  it('retries a truncated response and still delivers later events', async () => {
    const { server, receiver, lines } = await setup(['truncate']);
    receiver.offer(chat('one'));
    receiver.offer(chat('two'));
    await receiver.settled(2);
    expect(server.hits.map((h) => h.json.data && (h.json.data as { text: string }).text)).toEqual(['one', 'one', 'two']);
    expect(receiver.status()).toMatchObject({ delivered: 2, retries: 1, failed: 0, running: true });
    expect(lines.some((l) => l.includes('truncated response'))).toBe(true);
  });

  it('a 2xx with a body over 64 KiB is delivered once: the body is cut off unread, not taken for a truncated answer (N9)', async () => {
    const { server, receiver } = await setup(['big-200', 'big-200']);
    receiver.offer(chat('chatty receiver'));
    receiver.offer(chat('again'));
    await receiver.settled(2);
    expect(server.hits).toHaveLength(2);
    expect(receiver.status()).toMatchObject({ delivered: 2, retries: 0, failed: 0, lastError: null });
  });

  it('gives up after maxAttempts', async () => {
    const { server, receiver } = await setup([500, 500, 500], { maxAttempts: 2 });
    receiver.offer(chat('doomed'));
    await receiver.settled(1);
    expect(server.hits).toHaveLength(2);
    expect(receiver.status()).toMatchObject({ delivered: 0, retries: 1, failed: 1, lastError: 'HTTP 500' });
  });

  it('keeps event order, one request in flight', async () => {
    const { server, receiver } = await setup([503, 'truncate', 500]);
    const texts = Array.from({ length: 20 }, (_, i) => `m${i}`);
    for (const t of texts) receiver.offer(chat(t));
    await receiver.settled(20);
    const delivered = server.hits.map((h) => (h.json.data as { text: string }).text);
    expect([...new Set(delivered)]).toEqual(texts);
    expect(receiver.status()).toMatchObject({ delivered: 20, failed: 0 });
  });

  it('one receiver stuck on a hanging request never holds up another: the fast one gets a whole burst, in order', async () => {
    const slow = await startReceiver(SECRET, [], 'hang');
    const fast = await startReceiver(SECRET);
    open.push(slow, fast);
    const config = { secret: SECRET, events: ['*'], queueSize: 1000, maxAttempts: 5, backoff: 1, maxBackoff: 1, timeout: 600 };
    const forwarder = new Forwarder(
      {
        receivers: [
          { url: slow.url(), ...config },
          { url: fast.url('/fast'), ...config },
        ],
      },
      captureLog().log,
    );
    open.push(...forwarder.receivers);
    forwarder.start();
    const burst = Array.from({ length: 1000 }, (_, i) => chat(`b${i}`));
    for (const event of burst) forwarder.handle({ kind: 'event', event: event as never }); // never waits on a receiver
    await forwarder.receivers[1]!.settled(1000);
    expect(fast.hits.map((h) => h.json.eventId)).toEqual(burst.map((e) => e.eventId));
    await slow.hitsReached(1);
    expect(slow.hits).toHaveLength(1); // still the first request, hanging
    expect(forwarder.status().receivers.map((r) => [r.delivered, r.queued])).toEqual([
      [0, 999],
      [1000, 0],
    ]);
  });

  it('drops the oldest queued events when the queue is full, counts and logs it', async () => {
    const { server, receiver, lines } = await setup(['hang'], { queueSize: 2, timeout: 0.3, maxAttempts: 1 });
    receiver.offer(chat('first'));
    await server.hitsReached(1); // the worker holds 'first'; the queue is empty
    for (const t of ['a', 'b', 'c', 'd']) receiver.offer(chat(t));
    expect(receiver.status()).toMatchObject({ queued: 2, dropped: 2 });
    expect(lines.filter((l) => l.includes('webhook queue full; dropped 1 oldest event(s)'))).toHaveLength(2);
    await receiver.settled(3);
    expect(server.hits.map((h) => (h.json.data as { text: string }).text)).toEqual(['first', 'c', 'd']);
  });

  it('sends every delivery to a receiver over one kept-alive connection', async () => {
    const { server, receiver, lines } = await setup([]);
    receiver.start(); // a second start changes nothing: still one worker
    expect(lines.filter((l) => l.startsWith('info webhook forwarding to'))).toEqual([
      `info webhook forwarding to http://127.0.0.1:${server.port} (events: chat, game, mark, error) {"url":"http://127.0.0.1:${server.port}","events":["chat","game","mark","error"]}`,
    ]);
    for (const t of ['a', 'b', 'c']) receiver.offer(chat(t));
    await receiver.settled(3);
    expect(server.hits).toHaveLength(3);
    expect(server.connections()).toBe(1);
    // The connection is the receiver's own: stopping it closes it (the server would keep it 5 s).
    await receiver.stop();
    await waitUntil(() => server.openConnections() === 0, 1_000, 'the kept-alive connection to close');
  });

  it('post on its own: no signal or agent needed; a stop answers "stopped" and leaves no listener behind', async () => {
    const server = await startReceiver(SECRET, ['truncate', 'endless-200', 'hang']);
    open.push(server);
    expect(await post(new URL(server.url()), '{}', {}, 5_000)).toEqual({ kind: 'retry', status: 200, error: 'truncated response (HTTP 200)' });
    expect(await post(new URL('http://127.0.0.1:9/'), '{}', {}, 5_000)).toEqual({ kind: 'retry', error: expect.stringMatching(/^network error: connect ECONNREFUSED/) });
    // Past 64 KiB the body is not read on: the status decides, without waiting for an end.
    expect(await post(new URL(server.url()), '{}', {}, 2_000)).toEqual({ kind: 'delivered', status: 200 });
    const slow = await startReceiver(SECRET, [], 'hang');
    open.push(slow);
    expect(await post(new URL(slow.url()), '{}', {}, 100)).toEqual({ kind: 'retry', error: 'no complete response within 100 ms' });
    const signal = new AbortController();
    const hanging = post(new URL(server.url()), '{}', {}, 5_000, signal.signal);
    await server.hitsReached(3);
    signal.abort();
    expect(await hanging).toEqual({ kind: 'retry', error: 'stopped' });
    const kept = new AbortController();
    expect(await post(new URL(server.url()), '{}', {}, 5_000, kept.signal)).toEqual({ kind: 'delivered', status: 200 });
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(0);
    expect(await post(new URL(server.url()), '{}', {}, 5_000)).toEqual({ kind: 'delivered', status: 200 });
  });

  it('post: exactly 64 KiB of a body that stops short of its end is no answer yet; the read bound is past it', async () => {
    const server = await startReceiver(SECRET, ['stalled-64k-200']);
    open.push(server);
    // All 64 KiB arrive within milliseconds; only a bound of 64 KiB or less would settle on them.
    expect(await post(new URL(server.url()), '{}', {}, 1_000)).toEqual({ kind: 'retry', error: 'no complete response within 1000 ms' });
  });

  it('a delivery that throws is counted failed and the worker goes on with the next', async () => {
    const { server, receiver, lines } = await setup([]);
    // What a bug would hand it: a body that is not text makes the POST throw.
    receiver.restore([{ eventId: 'broken:1', type: 'chat', body: 42 as never }]);
    receiver.offer(chat('after the bug'));
    await receiver.settled(2);
    expect(receiver.status()).toMatchObject({ delivered: 1, failed: 1, lastEventId: expect.stringMatching(/^abc123:/) });
    expect(receiver.status().lastError).toMatch(/^The "data" argument must be of type string/);
    expect(lines.some((l) => l.startsWith(`error webhook delivery of broken:1 failed: ${receiver.status().lastError}`) && l.includes('"eventId":"broken:1"'))).toBe(true);
    expect(server.hits.map((h) => (h.json.data as { text: string }).text)).toEqual(['after the bug']);
  });

  it('checks an https receiver’s certificate: a self-signed one is a network error, retried', async () => {
    const { cert, key } = await loadIdentity(mkdtempSync(join(tmpdir(), 'mcbridge-webhook-tls-')), {});
    const tls = createHttpsServer({ cert, key }, (_req, res) => res.writeHead(200).end());
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => tls.close(() => resolve())) });
    const { log } = captureLog();
    const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/hook`;
    const receiver = new WebhookReceiver({ url, secret: SECRET, events: ['*'], queueSize: 4, maxAttempts: 2, backoff: 0.001, maxBackoff: 0.001, timeout: 5 }, log);
    open.push(receiver);
    receiver.start();
    expect(receiver.wants('chat') && receiver.wants('anything')).toBe(true);
    receiver.offer(chat('tls'));
    await receiver.settled(1);
    expect(receiver.status()).toMatchObject({ delivered: 0, retries: 1, failed: 1 });
    expect(receiver.status().lastError).toMatch(/^network error: .*self[- ]signed certificate/);
    // post on its own, with no agent: https all the same.
    expect(await post(new URL(url), '{}', {}, 5_000)).toMatchObject({ kind: 'retry', error: expect.stringMatching(/^network error: .*self[- ]signed certificate/) });
  });

  it('forwards only the configured categories', async () => {
    const { server, receiver } = await setup([], { events: ['chat'] });
    expect([receiver.wants('chat'), receiver.wants('mark')]).toEqual([true, false]);
    receiver.offer({ ...chat('x'), type: 'mark', category: 'mark' });
    receiver.offer(chat('y'));
    await receiver.settled(1);
    expect(server.hits.map((h) => h.json.category)).toEqual(['chat']);
    expect(receiver.status().received).toBe(1);
  });
});

describe('webhook secrets', () => {
  it('no log line or status field holds the secret or the URL userinfo, path or query, whatever the outcome', async () => {
    const server = await startReceiver(SECRET, [503, 'truncate', 'hang', 404, 302, 500, 500]);
    open.push(server);
    const { lines, log } = captureLog();
    const receiver = new WebhookReceiver(
      { url: server.url().replace('http://', 'http://hookuser:hookpass@'), secret: SECRET, events: ['*'], queueSize: 1, maxAttempts: 2, backoff: 0.001, maxBackoff: 0.01, timeout: 0.2 },
      log,
    );
    open.push(receiver);
    receiver.start();
    for (let i = 0; i < 4; i += 1) {
      receiver.offer(chat(`e${i}`));
      await receiver.settled(i + 1);
    }
    receiver.offer(chat('x'));
    receiver.offer(chat('y')); // overflows the queue of one while 'x' is in flight or queued
    await receiver.stop();
    expect(lines.length).toBeGreaterThan(8);
    for (const text of [...lines, JSON.stringify(receiver.status())]) {
      for (const leak of [SECRET, 'hookuser', 'hookpass', 's3cr3t-path', 'querytoken', '/hook']) expect(text).not.toContain(leak);
    }
    expect(receiver.status().url).toBe(`http://127.0.0.1:${server.port}`);
  });

  it('counts gap notices per receiver', async () => {
    const { Forwarder } = await import('../../../plugins/webhook/forwarder.js');
    const { log } = captureLog();
    const f = new Forwarder(
      {
        receivers: [
          { url: 'http://127.0.0.1:9/a', secret: 's', events: ['chat'], queueSize: 1, maxAttempts: 1, backoff: 0, maxBackoff: 0, timeout: 1 },
          { url: 'http://127.0.0.1:9/b', secret: 's', events: ['*'], queueSize: 1, maxAttempts: 1, backoff: 0, maxBackoff: 0, timeout: 1 },
        ],
      },
      log,
    );
    // Not connected until a stream is followed.
    expect([f.status().connected, ...f.status().receivers.map((r) => r.connected)]).toEqual([false, false, false]);
    f.handle({ kind: 'gap', reason: 'evicted', dropped: 5, from: 3, to: 7 });
    expect(f.status().receivers.map((r) => r.gaps)).toEqual([1, 1]);
    expect(f.categories()).toBeUndefined();
  });
});

describe('webhook body and redaction', () => {
  it('redacts a URL to scheme://host[:port]', () => {
    expect(redactUrl('https://user:pw@example.com:8443/hook/abc?token=x#f')).toBe('https://example.com:8443');
    expect(redactUrl('http://[::1]:9000/p')).toBe('http://[::1]:9000');
    expect(redactUrl('not a url')).toBe('');
  });

  it('sanitises the full URL, its path, query, userinfo and the secret', () => {
    const clean = sanitizer('https://user:pw123@example.com/hook/abc?token=x', 'topsecret');
    const out = clean('POST https://user:pw123@example.com/hook/abc?token=x failed; path /hook/abc, key topsecret, pw123');
    expect(out).toBe('POST https://example.com failed; path [redacted], key [redacted], [redacted]');
  });

  it('falls back for events without an eventId and reads sender and context variants', () => {
    expect(JSON.parse(buildDelivery({ type: 'chat', category: 'chat', seq: 3 }).body)).toMatchObject({ eventId: 'mcbridge:3', sender: null, context_id: null });
    expect(JSON.parse(buildDelivery({ type: 'x', category: 'other', player: { name: 'Alex' }, context: { id: 'c9' } }).body)).toMatchObject({ sender: 'Alex', context_id: 'c9', type: 'x' });
    expect(JSON.parse(buildDelivery({ category: 'game', name: 'Bob', context_id: 'c1' }).body)).toMatchObject({ sender: 'Bob', context_id: 'c1', type: 'game' });
  });

  it('grows the backoff exponentially with jitter and caps it', () => {
    expect(retryDelay(1, 1, 30, () => 0)).toBeCloseTo(0.8);
    expect(retryDelay(1, 1, 30, () => 1)).toBeCloseTo(1.25);
    expect(retryDelay(2, 1, 30, () => 0)).toBeCloseTo(1.6);
    expect(retryDelay(2, 1, 30, () => 1)).toBeCloseTo(2.5);
    expect(retryDelay(10, 1, 30, () => 1)).toBe(30);
    expect(retryDelay(3, 0, 30)).toBe(0);
  });
});

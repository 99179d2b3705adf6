import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attemptHeaders, buildDelivery } from '../../../plugins/webhook/body.js';
import { WebhookReceiver } from '../../../plugins/webhook/receiver.js';
import { captureLog } from './test-receiver.js';
// @ts-expect-error: plain JavaScript, as users copy it
import { receiver, verify } from '../../../examples/webhook-receiver.mjs';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SECRET = 'example-secret';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function listen(secret: string, onEvent: (e: Record<string, unknown>) => void): Promise<string> {
  const server = receiver(secret, onEvent);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

function sender(url: string, secret: string) {
  const r = new WebhookReceiver({ url, secret, events: ['*'], queueSize: 10, maxAttempts: 2, backoff: 0.001, maxBackoff: 0.01, timeout: 5 }, captureLog().log);
  r.start();
  closers.push(() => r.stop());
  return r;
}

const event = (seq: number, text: string) => ({ type: 'chat', category: 'chat', seq, streamId: 's1', eventId: `s1:${seq}`, receivedAt: 1, sender: 'Alex', text });

describe('the webhook receiver of docs/webhooks.md (examples/webhook-receiver.mjs)', () => {
  it('is printed in docs/webhooks.md exactly as the file runs it', () => {
    const file = readFileSync(path.join(ROOT, 'examples/webhook-receiver.mjs'), 'utf8');
    expect(readFileSync(path.join(ROOT, 'docs/webhooks.md'), 'utf8')).toContain('```js\n' + file + '```');
  });

  it('accepts what the forwarder signs, once per eventId', async () => {
    const got: Array<Record<string, unknown>> = [];
    const r = sender(await listen(SECRET, (e) => got.push(e)), SECRET);
    r.offer(event(1, 'hi'));
    r.offer(event(1, 'hi'));
    r.offer(event(2, 'there'));
    await r.settled(3);
    expect(got.map((e) => e.eventId)).toEqual(['s1:1', 's1:2']);
    expect(r.status()).toMatchObject({ delivered: 3, failed: 0 });
  });

  it('refuses a wrong secret (401, final) and a stale timestamp', async () => {
    const got: unknown[] = [];
    const r = sender(await listen(SECRET, (e) => got.push(e)), 'not-the-secret');
    r.offer(event(1, 'forged'));
    await r.settled(1);
    expect(got).toEqual([]);
    expect(r.status()).toMatchObject({ delivered: 0, failed: 1, lastError: 'HTTP 401' });
    const d = buildDelivery(event(3, 'old'));
    const now = Date.now();
    const headers = Object.fromEntries(Object.entries(attemptHeaders(d, SECRET, 1, now)).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verify(SECRET, headers, Buffer.from(d.body), now)).toBe(true);
    expect(verify(SECRET, headers, Buffer.from(d.body), now + 301_000)).toBe(false);
    expect(verify(SECRET, headers, Buffer.from(d.body + ' '), now)).toBe(false);
  });
});

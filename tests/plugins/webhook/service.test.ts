import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestHost, type TestHost } from 'mcbridge/testing';
import { createWebhookPlugin } from '../../../plugins/webhook/index.js';
import { OFF_MESSAGE } from '../../../plugins/webhook/config.js';
import { parseSpool, Spool } from '../../../plugins/webhook/spool.js';
import { buildDelivery } from '../../../plugins/webhook/body.js';
import { startReceiver } from './test-receiver.js';
import { waitUntil } from '../../support/wait-until.js';

const SECRET = 'whsec-daemon-secret';
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const x of open.splice(0).reverse()) await x.close();
});

function clearEnv() {
  for (const name of ['URL', 'SECRET', 'EVENTS', 'QUEUE', 'MAX_ATTEMPTS', 'BACKOFF', 'MAX_BACKOFF', 'TIMEOUT', 'CONFIG']) vi.stubEnv(`MC_AGENT_WEBHOOK_${name}`, undefined);
}

async function host(options: Parameters<typeof startTestHost>[0] = {}): Promise<TestHost> {
  const t = await startTestHost({ sim: { autoTick: false }, ...options });
  open.push(t);
  return t;
}

describe('the webhook service in the daemon', () => {
  it('is off by default and says so in status and webhook_status', async () => {
    clearEnv();
    const t = await host();
    expect(await t.call('webhook_status')).toEqual({ enabled: false, off: OFF_MESSAGE, connected: false, receivers: [] });
    const status = (await t.client.call('status')) as Record<string, any>;
    expect(status['webhook:forwarder']).toMatchObject({ enabled: false, off: OFF_MESSAGE });
  });

  it('forwards chat from MC_AGENT_WEBHOOK_URL/SECRET through the built-in plugin, signed', async () => {
    clearEnv();
    const server = await startReceiver(SECRET);
    open.push(server);
    vi.stubEnv('MC_AGENT_WEBHOOK_URL', server.url());
    vi.stubEnv('MC_AGENT_WEBHOOK_SECRET', SECRET);
    const t = await host();
    t.sim.chat('Steve', 'hello hook');
    await server.hitsReached(1);
    const hit = server.hits[0]!;
    expect(hit.verified).toBe(true);
    expect(hit.json).toMatchObject({ event: 'chat', sender: 'Steve', data: { text: 'hello hook' } });
    expect(hit.json.eventId).toMatch(/^.+:\d+$/);
    const status = await t.call('webhook_status');
    expect(status).toMatchObject({ enabled: true, connected: true, receivers: [{ url: `http://127.0.0.1:${server.port}`, events: ['chat', 'game', 'mark', 'error'] }] });
    const text = JSON.stringify(await t.client.call('status'));
    for (const leak of [SECRET, 's3cr3t-path', 'querytoken']) expect(text).not.toContain(leak);
  });

  it('runs several receivers, each with its own filter; one that hangs does not hold up the other', async () => {
    clearEnv();
    const slow = await startReceiver(SECRET, [], 'hang');
    const fast = await startReceiver('other-secret');
    open.push(slow, fast);
    const dir = mkdtempSync(join(tmpdir(), 'mcbridge-webhook-'));
    writeFileSync(join(dir, 'fast-secret'), 'other-secret\n');
    vi.stubEnv('SLOW_URL', slow.url());
    vi.stubEnv('SLOW_SECRET', SECRET);
    vi.stubEnv('FAST_URL', fast.url('/fast'));
    const plugin = createWebhookPlugin();
    const t = await host({
      builtins: false,
      plugins: [
        [
          plugin,
          {
            receivers: [
              { urlEnv: 'SLOW_URL', secretEnv: 'SLOW_SECRET', events: '*', timeout: 60 },
              { urlEnv: 'FAST_URL', secretFile: join(dir, 'fast-secret'), events: ['chat'] },
            ],
          },
        ],
      ],
    });
    t.sim.chat('Steve', 'one');
    await slow.hitsReached(1); // the slow receiver now holds its first request open
    t.sim.emit({ type: 'mark', text: 'not for fast' });
    t.sim.chat('Steve', 'two');
    t.sim.chat('Steve', 'three');
    await fast.hitsReached(3);
    expect(fast.hits.map((h) => (h.json.data as { text: string }).text)).toEqual(['one', 'two', 'three']);
    expect(fast.hits.every((h) => h.verified)).toBe(true);
    expect(slow.hits).toHaveLength(1);
    const status = await t.call('webhook_status');
    expect(status.receivers[0]).toMatchObject({ delivered: 0, failed: 0 });
    expect(status.receivers[0].queued).toBeGreaterThanOrEqual(3); // '*' also takes the sim's other events
    expect(status.receivers[1]).toMatchObject({ delivered: 3, queued: 0, events: ['chat'] });
  });

  it('refuses a receiver with a URL but no secret, naming the missing variable; the daemon serves on', async () => {
    clearEnv();
    vi.stubEnv('MC_AGENT_WEBHOOK_URL', 'https://user:pw@hooks.example.com/h/abc?token=t');
    const t = await host();
    const info = t.plugins().find((p) => p.name === 'webhook');
    expect(info).toMatchObject({ state: 'failed' });
    expect(info!.error).toContain('MC_AGENT_WEBHOOK_SECRET is not set');
    expect(info!.error).not.toContain('abc');
    // Its status says it is not running, not that forwarding is merely off.
    expect(((await t.client.call('status')) as Record<string, unknown>)['webhook:forwarder']).toEqual({ enabled: false, off: 'the webhook service is not running', connected: false, receivers: [] });
    expect(await t.call('state')).toBeTruthy();
  });
});

describe('the webhook service with a spool', () => {
  const spooled = (url: string, spool: string) => {
    vi.stubEnv('SPOOL_HOOK_URL', url);
    vi.stubEnv('SPOOL_HOOK_SECRET', SECRET);
    return host({
      builtins: false,
      plugins: [[createWebhookPlugin(), { receivers: [{ urlEnv: 'SPOOL_HOOK_URL', secretEnv: 'SPOOL_HOOK_SECRET', events: ['mark'], timeout: 60 }], spool, spoolMaxBytes: 65536 }]],
    });
  };

  it('a stopped daemon spools what it owed, closed; the next one delivers it without a gap', async () => {
    clearEnv();
    const server = await startReceiver(SECRET, [], 'hang');
    open.push(server);
    const spool = join(mkdtempSync(join(tmpdir(), 'mcbridge-service-spool-')), 'w.spool');
    const first = await spooled(server.url(), spool);
    for (const text of ['one', 'two']) first.sim.emit({ type: 'mark', text });
    await server.hitsReached(1);
    await first.close();
    const left = parseSpool(readFileSync(spool, 'utf8')).state;
    expect(left).toMatchObject({ closed: true, streamId: expect.any(String) });
    expect(Object.values(left.queues)[0]!.map((d) => (JSON.parse(d.body).data as { text: string }).text)).toEqual(['one', 'two']);

    server.answer(200);
    const second = await spooled(server.url(), spool);
    await server.hitsReached(3);
    const status = await second.call('webhook_status');
    expect(status).toMatchObject({ enabled: true, spool, spoolStatus: { maxBytes: 65536, failing: false } });
    await waitUntil(() => JSON.stringify(server.accepted()).includes(JSON.parse(Object.values(left.queues)[0]![1]!.body).eventId));
    expect((await second.call('webhook_status')).receivers[0]).toMatchObject({ gaps: 0, failed: 0 });
  });

  it('a spool of another stream that did not stop cleanly counts a gap; a damaged one is reported', async () => {
    clearEnv();
    const server = await startReceiver(SECRET);
    open.push(server);
    const dir = mkdtempSync(join(tmpdir(), 'mcbridge-service-spool-'));
    const spool = join(dir, 'w.spool');
    writeFileSync(spool, Spool.render({ streamId: 'an-old-stream', lastSeq: 7, queues: {} }));
    const t = await spooled(server.url(), spool);
    expect((await t.call('webhook_status')).receivers[0]).toMatchObject({ gaps: 1 });
    // It carries on from this stream's present: a stop with nothing handled writes that down.
    await t.close();
    const left = parseSpool(readFileSync(spool, 'utf8')).state;
    expect(left).toMatchObject({ streamId: expect.any(String), lastSeq: expect.any(Number), closed: true });
    expect(left.streamId).not.toBe('an-old-stream');
    const damaged = join(dir, 'd.spool');
    const owed = buildDelivery({ type: 'mark', category: 'mark', seq: 1, streamId: 'x', eventId: 'x:1', text: 'owed' });
    writeFileSync(damaged, `${Spool.render({ streamId: 'x', lastSeq: 1, closed: true, queues: { '0:k': [owed] } })}{"torn":\n`);
    const d = await spooled(server.url(), damaged);
    const status = await d.call('webhook_status');
    expect(status.spoolStatus).toMatchObject({ damaged: { skipped: 1, movedTo: expect.stringContaining('d.spool.damaged-') } });
    expect(status.receivers[0]).toMatchObject({ gaps: 1 });
  });
});

/**
 * The webhook service stopped and started again while its daemon runs (`host.remove` and
 * `host.use`, what a config reload does to a plugin), in process so Stryker's mutants of
 * plugins/webhook/index.ts meet it: the drain at stop, the same stream resumed, a follower that fails.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestHost, type TestHost } from 'mcbridge/testing';
import { DEFAULT_SPOOL_MAX_BYTES } from '../../../plugins/webhook/config.js';
import { createWebhookPlugin } from '../../../plugins/webhook/index.js';
import { parseSpool, Spool } from '../../../plugins/webhook/spool.js';
import { waitUntil } from '../../support/wait-until.js';
import { startReceiver, type TestReceiver } from './test-receiver.js';

const SECRET = 'whsec-restart-secret';
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const x of open.splice(0).reverse()) await x.close();
});

const spoolIn = () => join(mkdtempSync(join(tmpdir(), 'mcbridge-webhook-restart-')), 'w.spool');
const texts = (server: TestReceiver) => server.hits.map((h) => (h.json.data as { text: string }).text);
const owed = (spool: string) => Object.values(parseSpool(readFileSync(spool, 'utf8')).state.queues).flatMap((q) => q.map((d) => (JSON.parse(d.body).data as { text: string }).text));

/** A daemon with only the webhook plugin (`started: false`: not yet, for `t.host.use` later), its log kept. */
async function hostWith(server: TestReceiver, options: Record<string, unknown>, receiver: Record<string, unknown> = {}, started = true, buffer?: number) {
  vi.stubEnv('RESTART_HOOK_URL', server.url());
  vi.stubEnv('RESTART_HOOK_SECRET', SECRET);
  const plugin = createWebhookPlugin();
  const config = { receivers: [{ urlEnv: 'RESTART_HOOK_URL', secretEnv: 'RESTART_HOOK_SECRET', events: ['mark'], timeout: 60, ...receiver }], ...options };
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const t: TestHost = await startTestHost({ sim: { autoTick: false }, builtins: false, plugins: started ? [[plugin, config]] : [], log, ...(buffer ? { config: { buffer } } : {}) });
  open.push(t);
  // The service's own status, readable after the host stopped it.
  const status = () => plugin.services![0]!.status!() as { connected: boolean; receivers: Array<Record<string, unknown>> };
  return { t, plugin, config, status, lines };
}

describe('the webhook service stopped and started within one daemon run', () => {
  it('at stop queues what the follower had not reached, spools it closed; started again it resumes the same stream, no gap, no repeat', async () => {
    const server = await startReceiver(SECRET, [], 'hang');
    open.push(server);
    const spool = spoolIn();
    const { t, plugin, config, status } = await hostWith(server, { spool, spoolMaxBytes: 65536 });
    t.host.events.record({ type: 'mark', text: 'one' });
    await server.hitsReached(1); // 'one' hangs in flight
    // Recorded and stopped in one tick: the follower is woken but has not run, so only the drain hands these over.
    t.host.events.record({ type: 'mark', text: 'two' });
    t.host.events.record({ type: 'mark', text: 'three' });
    await t.host.remove('webhook');
    expect(parseSpool(readFileSync(spool, 'utf8')).state).toMatchObject({ closed: true, streamId: t.host.events.streamId, lastSeq: t.host.events.lastSeq });
    expect(owed(spool)).toEqual(['one', 'two', 'three']);
    expect(status()).toMatchObject({ connected: false });

    t.host.events.record({ type: 'mark', text: 'four' }); // while no webhook service runs
    server.answer(200);
    await t.host.use(plugin, { options: config });
    t.host.events.record({ type: 'mark', text: 'five' });
    await waitUntil(() => texts(server).includes('five'));
    // Deliveries are in order: whatever a wrong cursor replays would come before 'five'.
    expect(texts(server)).toEqual(['one', 'one', 'two', 'three', 'four', 'five']);
    expect(status().receivers[0]).toMatchObject({ gaps: 0, failed: 0, dropped: 0 });
  });

  it('at stop drains every page of what the follower had not reached (over a thousand events)', async () => {
    const server = await startReceiver(SECRET, [], 'hang');
    open.push(server);
    const spool = spoolIn();
    const { t, status } = await hostWith(server, { spool, spoolMaxBytes: 4 << 20 }, { queueSize: 2000 }, true, 2000);
    t.host.events.record({ type: 'mark', text: 'first' });
    await server.hitsReached(1);
    for (let i = 0; i < 1100; i += 1) t.host.events.record({ type: 'mark', text: `m${i}` });
    await t.host.remove('webhook');
    const left = owed(spool);
    expect(left).toHaveLength(1101);
    expect(left.at(-1)).toBe('m1099');
    expect(status().receivers[0]).toMatchObject({ gaps: 0 });
  });

  it('at stop counts a gap for what the ring pushed out before the drain reached it', async () => {
    const server = await startReceiver(SECRET, [], 'hang');
    open.push(server);
    const spool = spoolIn();
    const { t, status, lines } = await hostWith(server, { spool, spoolMaxBytes: 4 << 20 }, { queueSize: 2000 }, true, 1000);
    t.host.events.record({ type: 'mark', text: 'first' });
    await server.hitsReached(1);
    // 1100 more in a ring of 1000: the 100 oldest are gone before the stop could hand them over.
    for (let i = 0; i < 1100; i += 1) t.host.events.record({ type: 'mark', text: `m${i}` });
    await t.host.remove('webhook');
    expect(owed(spool).slice(0, 2)).toEqual(['first', 'm100']);
    expect(status().receivers[0]).toMatchObject({ gaps: 1 });
    expect(lines.some((l) => l.includes('webhook: 100 event(s) were lost before they could be queued (evicted)'))).toBe(true);
  });

  it('without a spool nothing is drained at stop (it would only be lost); a service never started stops cleanly', async () => {
    const server = await startReceiver(SECRET, [], 'hang');
    open.push(server);
    const { t, status } = await hostWith(server, {});
    t.host.events.record({ type: 'mark', text: 'one' });
    await server.hitsReached(1);
    t.host.events.record({ type: 'mark', text: 'two' });
    await t.host.remove('webhook');
    expect(status().receivers[0]).toMatchObject({ received: 1 });
    await expect(createWebhookPlugin().services![0]!.stop!()).resolves.toBeUndefined();
  });

  it('with a fresh spool starts from now; after a spool of another stream not stopped cleanly, says why events may be lost', async () => {
    const server = await startReceiver(SECRET);
    open.push(server);
    const spool = spoolIn();
    const { t, plugin, config, status, lines } = await hostWith(server, { spool }, {}, false);
    t.host.events.record({ type: 'mark', text: 'before the service' });
    await t.host.use(plugin, { options: config });
    t.host.events.record({ type: 'mark', text: 'after' });
    await waitUntil(() => server.hits.length === 1);
    expect(texts(server)).toEqual(['after']);
    expect(status().receivers[0]).toMatchObject({ gaps: 0 });
    await t.host.remove('webhook');
    writeFileSync(spool, Spool.render({ streamId: 'an-old-stream', lastSeq: 3, queues: {} }));
    await t.host.use(plugin, { options: config });
    expect(status().receivers[0]).toMatchObject({ gaps: 1 });
    expect(lines.some((l) => l.includes('events may have been lost before they could be queued (stream-reset)'))).toBe(true);
  });

  it('describes webhook_status as a read-only, idempotent tool, and the plugin by what it does', async () => {
    const server = await startReceiver(SECRET);
    open.push(server);
    const { t } = await hostWith(server, {});
    const tool = (await t.tools()).tools.find((x) => x.name === 'webhook_status')!;
    expect(tool.description).toMatch(/^The webhook forwarder: per receiver its redacted URL .* Changes nothing\.$/);
    expect(tool.annotations).toMatchObject({ readOnly: true, idempotent: true });
    expect(t.plugins().find((p) => p.name === 'webhook')?.description).toBe('Forward game events to HTTP receivers as signed POSTs');
  });

  it('a spool without spoolMaxBytes is bounded by the default', async () => {
    const server = await startReceiver(SECRET);
    open.push(server);
    const spool = spoolIn();
    const { t } = await hostWith(server, { spool });
    expect(await t.call('webhook_status')).toMatchObject({ spool, spoolStatus: { maxBytes: DEFAULT_SPOOL_MAX_BYTES } });
  });

  it('a follower that fails (an event no body can hold) says the service is no longer connected; the daemon serves on', async () => {
    const server = await startReceiver(SECRET);
    open.push(server);
    const { t, status, lines } = await hostWith(server, {});
    expect(await t.call('webhook_status')).toMatchObject({ connected: true });
    // JSON has no BigInt: building the body throws inside the follower's loop.
    t.host.events.record({ type: 'mark', text: 'poison', n: 1n });
    await waitUntil(() => status().connected === false);
    expect(lines.filter((l) => l.includes('webhook: following the event log failed; nothing more is forwarded'))).toHaveLength(1);
    t.host.events.record({ type: 'mark', text: 'after' });
    expect(await t.available()).toContain('webhook_status');
    expect(server.hits).toHaveLength(0);
    expect(await t.call('webhook_status')).toMatchObject({ enabled: true, connected: false });
  });
});

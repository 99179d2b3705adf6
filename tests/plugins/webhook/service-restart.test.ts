/**
 * The webhook service stopped and started again while its daemon runs (`host.remove` and
 * `host.use`, what a config reload does to a plugin), in process so Stryker's mutants of
 * plugins/webhook/index.ts meet it: the drain at stop, the same stream resumed, a follower that fails.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestHost, type TestHost } from 'mcbridge/testing';
import { DEFAULT_SPOOL_MAX_BYTES } from '../../../plugins/webhook/config.js';
import { createWebhookPlugin } from '../../../plugins/webhook/index.js';
import { parseSpool } from '../../../plugins/webhook/spool.js';
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

async function hostWith(server: TestReceiver, options: Record<string, unknown>) {
  vi.stubEnv('RESTART_HOOK_URL', server.url());
  vi.stubEnv('RESTART_HOOK_SECRET', SECRET);
  const plugin = createWebhookPlugin();
  const config = { receivers: [{ urlEnv: 'RESTART_HOOK_URL', secretEnv: 'RESTART_HOOK_SECRET', events: ['mark'], timeout: 60 }], ...options };
  const t: TestHost = await startTestHost({ sim: { autoTick: false }, builtins: false, plugins: [[plugin, config]] });
  open.push(t);
  // The service's own status, readable after the host stopped it.
  const status = () => plugin.services![0]!.status!() as { connected: boolean; receivers: Array<Record<string, unknown>> };
  return { t, plugin, config, status };
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
    const { t, status } = await hostWith(server, {});
    expect(await t.call('webhook_status')).toMatchObject({ connected: true });
    // JSON has no BigInt: building the body throws inside the follower's loop.
    t.host.events.record({ type: 'mark', text: 'poison', n: 1n });
    await waitUntil(() => status().connected === false);
    t.host.events.record({ type: 'mark', text: 'after' });
    expect(await t.available()).toContain('webhook_status');
    expect(server.hits).toHaveLength(0);
    expect(await t.call('webhook_status')).toMatchObject({ enabled: true, connected: false });
  });
});

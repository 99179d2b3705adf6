/**
 * The in-daemon forwarder's spool, across real daemon processes: a clean stop, a restart, a
 * crash. Configured through the `webhook` entry of a config file, credentials named, not written.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ApiClient } from '../../../core/api/client.js';
import { CliProcesses } from '../../support/cli-process.js';
import { pollUntil, startDaemonProcess, type DaemonProcess } from '../../faults/support.js';
import { parseSpool } from '../../../plugins/webhook/spool.js';
import { startReceiver } from './test-receiver.js';

const SECRET = 'whsec-daemon-spool-secret';
const processes = new CliProcesses();
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  // The daemons first: one still stopping writes its spool into the directory being removed.
  await processes.stopAll();
  for (const x of open.splice(0).reverse()) await x.close();
});

async function client(daemon: DaemonProcess): Promise<ApiClient> {
  const c = await ApiClient.connect({ port: daemon.port });
  open.push(c);
  return c;
}

const texts = (server: Awaited<ReturnType<typeof startReceiver>>, ids: string[]) => ids.map((id) => (server.hits.find((h) => h.json.eventId === id)!.json.data as { text: string }).text);

it('a restarted daemon delivers what it had queued and what its log holds, once per eventId; a crash counts as a gap', async () => {
  const server = await startReceiver(SECRET, [], 'hang');
  open.push(server);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-daemon-spool-'));
  open.push({ close: () => fs.rmSync(dir, { recursive: true, force: true }) });
  fs.writeFileSync(path.join(dir, 'hook.secret'), `${SECRET}\n`);
  const config = path.join(dir, 'mcbridge.config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      webhook: {
        receivers: [{ urlEnv: 'HOOK_URL', secretFile: 'hook.secret', events: ['mark'], timeout: 120, backoff: 0.05, maxBackoff: 0.05 }],
        spool: 'state/webhook.spool',
      },
    }),
  );
  const spoolFile = path.join(dir, 'state', 'webhook.spool');
  const env = { HOOK_URL: server.url() };
  const start = () => startDaemonProcess(processes, ['--sim'], env, config);
  const status = async (c: ApiClient) => (await c.call('webhook_status')) as any;

  // Run 1: the receiver hangs on the first event, so all three stay owed; a clean stop spools them.
  const first = await start();
  const c1 = await client(first);
  for (const text of ['one', 'two', 'three']) await c1.call('mark', { text });
  await server.hitsReached(1);
  await pollUntil(async () => (await status(c1)).receivers[0].queued === 2);
  expect(await status(c1)).toMatchObject({ spool: spoolFile, receivers: [{ delivered: 0, gaps: 0 }] });
  await first.kill('SIGTERM');
  const spooled = fs.readFileSync(spoolFile, 'utf8');
  expect(parseSpool(spooled)).toMatchObject({ skipped: 0, state: { closed: true } });
  expect(Object.values(parseSpool(spooled).state.queues)[0]).toHaveLength(3);
  for (const leak of [SECRET, 's3cr3t-path', 'querytoken', String(server.port)]) expect(spooled).not.toContain(leak);

  // Run 2: the spooled three first, then this run's events; a clean stop before it means no gap.
  server.answer(200);
  const second = await start();
  const c2 = await client(second);
  await pollUntil(async () => (await status(c2)).receivers[0].delivered === 3);
  for (const text of ['four', 'five']) await c2.call('mark', { text });
  await pollUntil(async () => (await status(c2)).receivers[0].delivered === 5);
  expect(texts(server, server.accepted())).toEqual(['one', 'two', 'three', 'four', 'five']);
  expect(new Set(server.accepted()).size).toBe(5);
  expect((await status(c2)).receivers[0]).toMatchObject({ gaps: 0, failed: 0, dropped: 0, queued: 0 });
  expect(server.hits.every((h) => h.verified)).toBe(true);

  // Run 3, after a crash: whatever run 2 recorded in its last moments may be missing, so it says so.
  const written = () => parseSpool(fs.readFileSync(spoolFile, 'utf8')).state;
  await pollUntil(async () => written().closed === undefined && (written().lastSeq ?? 0) > 0 && Object.values(written().queues).every((q) => q.length === 0));
  await second.kill('SIGKILL');
  const third = await start();
  const c3 = await client(third);
  await c3.call('mark', { text: 'six' });
  await pollUntil(async () => (await status(c3)).receivers[0].delivered === 1);
  expect((await status(c3)).receivers[0]).toMatchObject({ gaps: 1, delivered: 1 });
  expect(third.out.stderr).toMatch(/events may have been lost before they could be queued \(stream-reset\)/);
  // Nothing delivered before was sent again: every accepted eventId is new.
  expect(texts(server, server.accepted())).toEqual(['one', 'two', 'three', 'four', 'five', 'six']);
}, 120_000);

/**
 * The webhook on a daemon of two targets: each target's forwarder delivers its own events, every
 * body naming its target, each with a spool file of its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ApiClient } from '../../../core/api/client.js';
import { CliProcesses } from '../../support/cli-process.js';
import { pollUntil, startDaemonProcess } from '../../faults/support.js';
import { startReceiver } from './test-receiver.js';

const SECRET = 'whsec-targets-secret-value';
const processes = new CliProcesses();
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  await processes.stopAll();
  for (const x of open.splice(0).reverse()) await x.close();
});

it('forwards every target’s events, each body naming its target, and spools per target', async () => {
  const server = await startReceiver(SECRET, []);
  open.push(server);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-webhook-targets-'));
  open.push({ close: () => fs.rmSync(dir, { recursive: true, force: true }) });
  fs.writeFileSync(path.join(dir, 'hook.secret'), `${SECRET}\n`);
  const config = path.join(dir, 'mcbridge.config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      targets: { live: { sim: true }, lab: { sim: true, default: true } },
      plugins: [['webhook', { receivers: [{ urlEnv: 'HOOK_URL', secretFile: 'hook.secret', events: ['mark'] }], spool: 'state/webhook.spool' }]],
    }),
  );
  const daemon = await startDaemonProcess(processes, [], { HOOK_URL: server.url() }, config);
  const client = await ApiClient.connect({ port: daemon.port });
  open.push(client);
  await client.call('mark', { text: 'from live', target: 'live' });
  await client.call('mark', { text: 'from lab' });
  await server.hitsReached(2);
  const bodies = server.hits.map((h) => h.json as { target: string; data: { text: string; target: string } });
  expect(bodies.map((b) => [b.target, b.data.text]).sort()).toEqual([
    ['lab', 'from lab'],
    ['live', 'from live'],
  ]);
  for (const body of bodies) expect(body.data.target).toBe(body.target);
  const spools = async (target: string) => ((await client.call('webhook_status', { target })) as { spool: string }).spool;
  expect(await spools('live')).toBe(path.join(dir, 'state', 'webhook.live.spool'));
  expect(await spools('lab')).toBe(path.join(dir, 'state', 'webhook.lab.spool'));
  await daemon.kill('SIGTERM');
  await pollUntil(async () => fs.existsSync(path.join(dir, 'state', 'webhook.live.spool')) && fs.existsSync(path.join(dir, 'state', 'webhook.lab.spool')));
}, 60_000);

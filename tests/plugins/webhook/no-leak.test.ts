/**
 * End to end, real processes: the daemon's forwarder and `mcbridge forward` against receivers
 * whose URLs carry credentials in the userinfo, the path and the query, failing every way (refused,
 * 5xx with a reason phrase quoting the request, a hang, a cut-short answer, a 302). Every stderr
 * line and every status output is scanned: none may hold the secret or any of those parts.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ApiClient } from '../../../core/api/client.js';
import { CliProcesses, runCli } from '../../support/cli-process.js';
import { pollUntil, startDaemonProcess } from '../../faults/support.js';
import { startReceiver, type Behaviour } from './test-receiver.js';

const SECRET = 'whsec-LEAKCHECK-secret-7f3a';
const LEAKS = [SECRET, 'hookuser', 'pw-LEAKCHECK', 'PATHTOKEN', 'QUERYTOKEN', '/hook'];
const processes = new CliProcesses();
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  await processes.stopAll();
  for (const x of open.splice(0).reverse()) await x.close();
});

const credentialed = (port: number) => `http://hookuser:pw-LEAKCHECK@127.0.0.1:${port}/hook/PATHTOKEN?token=QUERYTOKEN`;

/** A port nothing listens on: connections are refused. */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function expectNoLeak(what: string, text: string): void {
  for (const leak of LEAKS) expect(text.includes(leak), `${what} holds '${leak}': ${text.slice(Math.max(0, text.indexOf(leak) - 200), text.indexOf(leak) + 100)}`).toBe(false);
}

it('no log line, status or webhook_status output of the daemon or `mcbridge forward` holds the secret or the URL userinfo, path or query', async () => {
  const behaviours: Behaviour[] = ['echo-503', 'hang', 'truncate', 302];
  const servers = await Promise.all(behaviours.map((b) => startReceiver(SECRET, [], b)));
  open.push(...servers);
  const env: Record<string, string> = { HOOK_SECRET: SECRET, HOOK_0: credentialed(await deadPort()) };
  for (const [i, s] of servers.entries()) env[`HOOK_${i + 1}`] = credentialed(s.port);
  const receivers = Object.keys(env)
    .filter((k) => k.startsWith('HOOK_') && k !== 'HOOK_SECRET')
    .map((urlEnv) => ({ urlEnv, secretEnv: 'HOOK_SECRET', events: ['mark'], maxAttempts: 2, backoff: 0.01, maxBackoff: 0.01, timeout: 0.5 }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-noleak-'));
  open.push({ close: () => fs.rmSync(dir, { recursive: true, force: true }) });
  const config = path.join(dir, 'mcbridge.config.json');
  fs.writeFileSync(config, JSON.stringify({ webhook: { receivers } }));
  const forwardConfig = path.join(dir, 'forward.json');
  fs.writeFileSync(forwardConfig, JSON.stringify({ receivers }));

  const daemon = await startDaemonProcess(processes, ['--sim', '--log-level', 'info'], env, config);
  const forward = processes.start(['forward', '--api-port', String(daemon.port), '--config', forwardConfig, '--log-level', 'info'], { env });
  await pollUntil(async () => /webhook forwarder connected to the daemon/.test(forward.out.stderr));
  const client = await ApiClient.connect({ port: daemon.port });
  open.push(client);
  await client.call('mark', { text: 'one' });
  await client.call('mark', { text: 'two' });
  // Both forwarders end up failing each event at each receiver (given up, or refused for good).
  const failed = (s: any) => s.receivers.every((r: any) => r.failed === 2 && r.queued === 0);
  await pollUntil(async () => failed(await client.call('webhook_status')));
  await pollUntil(async () => (forward.out.stderr.match(/webhook (gave up on|receiver rejected) /g) ?? []).length >= 2 * receivers.length);

  const inDaemon = (await client.call('webhook_status')) as any;
  const status = await runCli(['call', 'status', '--api-port', String(daemon.port)]);
  const webhookStatus = await runCli(['call', 'webhook_status', '--api-port', String(daemon.port)]);
  const forwardStatus = await runCli(['forward', '--status', '--api-port', String(daemon.port), '--config', forwardConfig], { env });
  expect(forwardStatus.code).toBe(0);
  await processes.stopAll(); // forward prints its final status on stdout as it stops
  const outputs: Record<string, string> = {
    'daemon stderr': daemon.out.stderr,
    'forward stderr': forward.out.stderr,
    'forward stdout': forward.out.stdout,
    status: status.stdout + status.stderr,
    webhook_status: webhookStatus.stdout + webhookStatus.stderr,
    'forward --status': forwardStatus.stdout + forwardStatus.stderr,
  };
  for (const [what, text] of Object.entries(outputs)) expectNoLeak(what, text);
  expect(inDaemon.receivers.map((r: any) => r.lastError)).toEqual([
    expect.stringMatching(/network error: connect ECONNREFUSED/),
    expect.stringMatching(/HTTP 503 \(the receiver said: Unavailable: \[redacted\]/),
    expect.stringMatching(/no complete response within 500 ms/),
    expect.stringMatching(/truncated response/),
    expect.stringMatching(/HTTP 302 redirect was not followed/),
  ]);
  // The scan saw what it should have: the failures were logged, and the receivers named by host.
  for (const text of [daemon.out.stderr, forward.out.stderr]) {
    expect(text).toMatch(/the receiver said: Unavailable: \[redacted\]/);
    for (const s of servers) expect(text).toContain(`http://127.0.0.1:${s.port}`);
  }
  expect(JSON.parse(forward.out.stdout.trim().split('\n').at(-1)!).receivers).toHaveLength(receivers.length);
}, 120_000);

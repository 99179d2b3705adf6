/**
 * A real `mcbridge sim --control` process frozen with SIGSTOP (issue 35, item 5): the link in
 * front of it declares the session dead after its read deadline, answers its calls
 * `not_connected`, and is back on a new session once the process runs again. The deadlines are
 * the link's internal `liveness` option (the default is 25 s of silence).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../core/host/host.js';
import { CliProcesses } from '../support/cli-process.js';
import { waitUntil } from '../support/wait-until.js';

const processes = new CliProcesses();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  await processes.stopAll();
});

describe('a control server frozen by SIGSTOP', { timeout: 60_000 }, () => {
  it('is declared dead, its call answered not_connected, counted; after SIGCONT the link is back', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-frozen-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const { child, out } = processes.start(['sim', '--dir', dir, '--port', '0', '--control']);
    cleanups.push(() => void child.kill('SIGCONT'));
    await waitUntil(() => /\ntoken: \S+\n/.test(out.stdout) || child.exitCode !== null, 20_000, 'the control lines');
    const [, address, pin] = /control: (\S+) (sha256:[0-9a-f]{64})/.exec(out.stdout)!;
    const token = /token: (\S+)/.exec(out.stdout)![1]!;
    const host = new Host({ link: { transport: 'control', address: address!, pin: pin!, token, reconnectMinMs: 50, reconnectMaxMs: 200, liveness: { pingMs: 200, deadMs: 1_000 } } });
    await host.start();
    cleanups.push(() => host.stop());
    await waitUntil(() => host.link.connected, 10_000, 'the first session');
    const liveness = () => (host.link.status().control as { liveness: { silentSessions: number } }).liveness;

    child.kill('SIGSTOP');
    const call = host.link.request('PING', { timeoutMs: 15_000 }).catch((err: { code: string }) => err);
    await waitUntil(() => liveness().silentSessions >= 1, 10_000, 'the silence to be noticed');
    expect(await call).toMatchObject({ code: 'not_connected' });
    expect(host.link.connected).toBe(false);

    child.kill('SIGCONT');
    await waitUntil(() => host.link.connected && host.link.stats.connections >= 2, 20_000, 'a new session');
    expect(await host.link.request('PING')).toMatchObject({ type: expect.any(String) });
  });
});

/**
 * The daemon's write ledger outlives the daemon (issue 35, item 23): a real `mcbridge run`
 * process killed with SIGKILL after a write, or while one is in flight, and started again on
 * the same folder, still answers a resent id (duplicate, conflict, or refused: it may have run)
 * and `request_status` for it, from `<folder>/.mcbridge/write-ledger-default.json`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { CliProcesses, runCli } from '../support/cli-process.js';
import { startDaemonProcess, type DaemonProcess } from '../support/daemon-process.js';
import { failure } from '../support/errors.js';
import { ScriptedMod } from '../support/scripted-mod.js';
import { waitUntil } from '../support/wait-until.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A folder of its own, used as the daemon's working directory: the state folder is its `.mcbridge`. */
function folder(): { processes: CliProcesses; ledger: string; start(args: string[]): Promise<DaemonProcess> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-ledger-restart-'));
  const processes = new CliProcesses({ cwd: dir });
  cleanups.push(
    () => fs.rmSync(dir, { recursive: true, force: true }),
    () => processes.stopAll(),
  );
  // Not the test run's state folder (tests/support/state-dir.ts): the default, beside the working directory.
  const start = (args: string[]) => startDaemonProcess(processes, args, { MCBRIDGE_STATE_DIR: '' });
  return { processes, start, ledger: path.join(dir, '.mcbridge', 'write-ledger-default.json') };
}

async function client(d: DaemonProcess): Promise<ApiClient> {
  const c = await ApiClient.connect({ port: d.port });
  cleanups.push(() => c.close());
  return c;
}

/** The entry the file holds for `id`, or undefined (a file mid-replace reads as none). */
function stored(file: string, id: string): Record<string, unknown> | undefined {
  try {
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: Array<Record<string, unknown>> };
    return json.entries.find((e) => e.id === id);
  } catch {
    return undefined;
  }
}

describe('the write ledger across a daemon killed with SIGKILL', { timeout: 60_000 }, () => {
  it('a completed write, resent to the restarted daemon: its recorded answer marked duplicate; another payload is a conflict; request_status answers it', async () => {
    const { start, ledger } = folder();
    const first = await start(['--sim']);
    const api = await client(first);
    const answer = (await api.call('command', { command: 'say before the crash', request_id: 'done-1' })) as Record<string, unknown>;
    await waitUntil(() => stored(ledger, 'done-1')?.state === 'completed', 5_000, 'the completed entry on disk');
    await first.kill('SIGKILL');

    const second = await start(['--sim']);
    const again = await client(second);
    const resent = (await again.call('command', { command: 'say before the crash', request_id: 'done-1' })) as Record<string, unknown>;
    expect(resent).toMatchObject({ duplicate: true, requestId: 'done-1', detail: answer.detail });
    const reused = await failure(again.call('command', { command: 'say something else', request_id: 'done-1' }));
    expect(reused.code).toBe('conflict');
    expect(reused.outcome).toEqual({ retryable: false, resultUnknown: false, requestId: 'done-1' });
    expect(await again.call('request_status', { request_id: 'done-1' })).toMatchObject({ requestId: 'done-1', state: 'completed', source: 'daemon', operation: 'CMD' });
    const status = (await again.call('status', {})) as { link: { writes: { tracked: number; file: Record<string, unknown> } } };
    expect(status.link.writes.file).toMatchObject({ file: ledger, loaded: 1, failing: false, problem: null });
  });

  it('a write in flight when the daemon is killed: the restarted daemon refuses to resend it (it may have run) and request-status says so', async () => {
    const { start, ledger } = folder();
    // A mod that takes the command and never answers it.
    const mod = await ScriptedMod.start({ respond: (line) => (line.startsWith('CMD ') ? [] : undefined) });
    cleanups.push(() => mod.stop());
    const args = ['--mod-port', String(mod.port)];
    const first = await start(args);
    const api = await client(first);
    void api.call('command', { command: 'summon minecraft:pig 0 64 0', request_id: 'mid-1' }).catch(() => undefined);
    await waitUntil(() => mod.received.includes('CMD summon minecraft:pig 0 64 0'), 5_000, 'the command to reach the mod');
    // It left only once its entry was on disk.
    expect(stored(ledger, 'mid-1')).toMatchObject({ state: 'pending', operation: 'CMD' });
    await first.kill('SIGKILL');

    const second = await start(args);
    const again = await client(second);
    const refused = await failure(again.call('command', { command: 'summon minecraft:pig 0 64 0', request_id: 'mid-1' }));
    expect(refused.code).toBe('busy');
    expect(refused.outcome).toEqual({ retryable: false, resultUnknown: true, requestId: 'mid-1' });
    expect(refused.message).toMatch(/before the daemon restarted.*may have run.*mcbridge request-status mid-1/);
    expect(mod.received.filter((l) => l.startsWith('CMD ')).length).toBe(1);
    expect(await again.call('request_status', { request_id: 'mid-1' })).toMatchObject({ requestId: 'mid-1', state: 'unknown', sent: true, source: 'daemon' });
    const cli = await runCli(['request-status', 'mid-1', '--json', '--api-port', String(second.port)]);
    expect(JSON.parse(cli.stdout)).toMatchObject({ requestId: 'mid-1', state: 'unknown', sent: true, note: expect.stringMatching(/may have run/) });
  });
});

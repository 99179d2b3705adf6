/**
 * The daemon's write ledger file against real `mcbridge run` processes (issue 35, item 23): a
 * full disk (a small tmpfs, filled) and a disk that never finishes a write are counted and said
 * while every write still goes; a pipe in the file's place does not hang the start; two daemons
 * on one state folder never write over each other's ledger.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { DURABLE_WAIT_MS } from '../../core/host/link/ledger-file.js';
import { CliProcesses } from '../support/cli-process.js';
import { startDaemonProcess, type DaemonProcess } from '../support/daemon-process.js';
import { pollUntil } from './support.js';
import { waitUntil } from '../support/wait-until.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A working directory of its own: the state folder is its `.mcbridge` (MCBRIDGE_STATE_DIR unset). */
function folder() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-ledger-disk-'));
  const state = path.join(dir, '.mcbridge');
  fs.mkdirSync(state);
  const processes = new CliProcesses({ cwd: dir });
  cleanups.push(
    () => fs.rmSync(dir, { recursive: true, force: true }),
    () => processes.stopAll(),
  );
  const start = (args: string[] = ['--sim'], stateDir = '') => startDaemonProcess(processes, args, { MCBRIDGE_STATE_DIR: stateDir });
  return { dir, state, start, ledger: path.join(state, 'write-ledger-default.json') };
}

async function client(d: DaemonProcess): Promise<ApiClient> {
  const c = await ApiClient.connect({ port: d.port });
  cleanups.push(() => c.close());
  return c;
}

type FileStatus = Record<string, unknown> & { failing: boolean; unsafeSends: number; stuck: boolean; lastError: string | null };
async function fileStatus(api: ApiClient): Promise<FileStatus> {
  return ((await api.call('status', {})) as { link: { writes: { file: FileStatus } } }).link.writes.file;
}

function stored(file: string): Array<{ id: string; state: string }> {
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: Array<{ id: string; state: string }> }).entries;
}

function storedIds(file: string): string[] {
  return stored(file).map((e) => e.id);
}

/** `dir` as a 64 KiB tmpfs, filled up: real ENOSPC. Null where this process may not mount one. */
function fullDisk(dir: string): { free(): void } | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
  cleanups.push(() => void execFileSync('umount', ['-l', dir], { stdio: 'ignore' }));
  const filler = path.join(dir, 'filler');
  try {
    fs.writeFileSync(filler, Buffer.alloc(128 * 1024));
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
  }
  return { free: () => fs.rmSync(filler) };
}

const canMount = (() => {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', ['-l', probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
})();

describe('the write ledger file under a failing disk', () => {
  it.skipIf(!canMount)(
    'a full disk: every write goes and is answered, the failure is counted and said; with space back the ledger lands and outlives a SIGKILL',
    async () => {
      const { state, start, ledger } = folder();
      const disk = fullDisk(state)!;
      const first = await start();
      const api = await client(first);
      for (const n of [1, 2]) expect(await api.call('command', { command: `say full ${n}`, request_id: `full-${n}` })).toMatchObject({ type: 'cmd_ack' });
      // In memory the ledger holds: a resend in this run is answered, never run again.
      expect(await api.call('command', { command: 'say full 1', request_id: 'full-1' })).toMatchObject({ duplicate: true });
      const failing = await fileStatus(api);
      expect(failing).toMatchObject({ file: ledger, failing: true, unsafeSends: 2, writes: 0 });
      expect(failing.lastError).toMatch(/^ENOSPC/);
      expect(first.out.stderr).toContain(`cannot save the write ledger to ${ledger} (ENOSPC`);
      expect(first.alive()).toBe(true);

      disk.free();
      // The retry (every second while failing) saves what memory holds.
      await pollUntil(async () => (await fileStatus(api)).failing === false);
      await waitUntil(() => first.out.stderr.includes(`the write ledger is saved to ${ledger} again`), 5_000, 'the recovery said');
      expect(storedIds(ledger)).toEqual(['full-1', 'full-2']);
      await first.kill('SIGKILL');

      const second = await start();
      const again = await client(second);
      expect(await again.call('command', { command: 'say full 2', request_id: 'full-2' })).toMatchObject({ duplicate: true, requestId: 'full-2' });
    },
    60_000,
  );

  it(`a disk that never finishes a write: the first write goes after ${DURABLE_WAIT_MS} ms, the next at once, all said in status; once the disk answers, writes wait for it again`, async () => {
    const { ledger, start } = folder();
    // The temporary file is a pipe nobody reads: opening it to write waits until someone does.
    execFileSync('mkfifo', [`${ledger}.tmp`]);
    const daemon = await start();
    const api = await client(daemon);
    const t0 = Date.now();
    expect(await api.call('command', { command: 'say stuck 1', request_id: 'stuck-1' })).toMatchObject({ type: 'cmd_ack' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(DURABLE_WAIT_MS - 50);
    const t1 = Date.now();
    expect(await api.call('command', { command: 'say stuck 2', request_id: 'stuck-2' })).toMatchObject({ type: 'cmd_ack' });
    expect(Date.now() - t1).toBeLessThan(DURABLE_WAIT_MS / 2);
    expect(await fileStatus(api)).toMatchObject({ stuck: true, unsafeSends: 2 });
    await waitUntil(() => daemon.out.stderr.includes(`the write ledger ${ledger} has not reached the disk in ${DURABLE_WAIT_MS} ms: writes go on without waiting`), 5_000, 'the stuck disk said');

    await new Promise<void>((resolve) =>
      fs
        .createReadStream(`${ledger}.tmp`)
        .on('data', () => {})
        .on('end', resolve),
    );
    await pollUntil(async () => (await fileStatus(api)).stuck === false);
    await api.call('command', { command: 'say stuck 3', request_id: 'stuck-3' });
    await pollUntil(async () => (await fileStatus(api)).failing === false);
    expect(storedIds(ledger)).toEqual(['stuck-1', 'stuck-2', 'stuck-3']);
    expect((await fileStatus(api)).unsafeSends).toBe(2);
  }, 60_000);

  it('a pipe where the ledger file should be: the daemon starts (it is not opened to wait), sets it aside and writes its own', async () => {
    const { ledger, start } = folder();
    execFileSync('mkfifo', [ledger]);
    const daemon = await start();
    const api = await client(daemon);
    const status = await fileStatus(api);
    expect(status.problem).toMatch(/not a plain file \(a pipe, socket or device\)/);
    expect(fs.statSync(status.setAside as string).isFIFO()).toBe(true);
    await api.call('command', { command: 'say after the pipe', request_id: 'pipe-1' });
    await waitUntil(() => fs.existsSync(ledger) && storedIds(ledger).includes('pipe-1'), 5_000, 'the entry on disk');
  }, 60_000);
});

describe('MCBRIDGE_STATE_DIR=none', () => {
  it('keeps the ledger in memory only: no file, none in status, resends of this run still answered', async () => {
    const { ledger, state, start } = folder();
    const daemon = await start(['--sim'], 'none');
    const api = await client(daemon);
    await api.call('command', { command: 'say in memory', request_id: 'mem-1' });
    expect(await api.call('command', { command: 'say in memory', request_id: 'mem-1' })).toMatchObject({ duplicate: true });
    const writes = ((await api.call('status', {})) as { link: { writes: Record<string, unknown> } }).link.writes;
    expect(writes).toMatchObject({ tracked: 1 });
    expect(writes.file).toBeUndefined();
    await daemon.kill('SIGTERM');
    expect(fs.existsSync(ledger)).toBe(false);
    expect(fs.readdirSync(state)).toEqual([]);
    expect(fs.existsSync(path.join(path.dirname(state), 'none'))).toBe(false);
  }, 60_000);
});

describe('two daemons on one state folder', () => {
  it('the second keeps its ledger in memory and says so; the first one’s file is never written over; a SIGKILLed holder’s lock is taken over', async () => {
    const { ledger, start } = folder();
    const first = await start();
    const api1 = await client(first);
    await api1.call('command', { command: 'say first', request_id: 'one-1' });
    await waitUntil(() => fs.existsSync(ledger) && storedIds(ledger).includes('one-1'), 5_000, 'the first entry on disk');

    const second = await start();
    const api2 = await client(second);
    expect(await fileStatus(api2)).toMatchObject({ heldBy: `the process ${first.pid}`, loaded: 0 });
    await waitUntil(() => /is in use by the process \d+: this one is kept in memory only/.test(second.out.stderr), 5_000, 'the held file said');
    // Not the first one's answer: the first daemon's writes are not this one's.
    expect(await api2.call('command', { command: 'say first', request_id: 'one-1' })).not.toHaveProperty('duplicate');
    await api2.call('command', { command: 'say second', request_id: 'two-1' });
    await api1.call('command', { command: 'say first again', request_id: 'one-2' });
    await waitUntil(() => stored(ledger).find((e) => e.id === 'one-2')?.state === 'completed', 5_000, 'the first daemon saving its answer');
    expect(storedIds(ledger)).toEqual(['one-1', 'one-2']);

    await api1.close();
    await api2.close();
    await first.kill('SIGKILL');
    await second.kill('SIGTERM');
    expect(storedIds(ledger)).toEqual(['one-1', 'one-2']);
    const third = await start();
    const api3 = await client(third);
    expect(await fileStatus(api3)).toMatchObject({ heldBy: null, loaded: 2 });
    expect(await api3.call('command', { command: 'say first again', request_id: 'one-2' })).toMatchObject({ duplicate: true });
  }, 60_000);
});

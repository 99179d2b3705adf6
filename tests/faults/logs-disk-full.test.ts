/**
 * The logs' records file on a full disk (issue 36): a launched server floods its console while the
 * folder the records are written to (`<state>/logs`, a 256 KiB tmpfs) fills up. Writes fail and
 * are counted in `logs_summary`, the records stay readable from memory, the daemon serves on, and
 * the server is unaffected. Needs `mount -t tmpfs` (root with CAP_SYS_ADMIN, as the CI machine).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { CliProcesses } from '../support/cli-process.js';
import type { DaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/helpers.js';
import { configuredDaemon, FAKE_SERVER, serverFolder } from '../support/servers.js';

type Json = Record<string, any>;
const processes = new CliProcesses();
let root: string;
let logsDir: string;
let daemon: DaemonProcess;
let api: ApiClient;

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-logs-full-')));
  serverFolder(root, 'lab');
  logsDir = path.join(root, 'state', 'logs');
  fs.mkdirSync(logsDir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', logsDir]);
  const config = { targets: { lab: { launch: { command: [process.execPath, FAKE_SERVER, '--mod', '--run-after', '500', '--run', 'flood 8000; trace'], cwd: 'servers/lab' } } } };
  daemon = await configuredDaemon(processes, root, config);
  api = await ApiClient.connect({ port: daemon.port });
}, 60_000);

afterAll(async () => {
  api?.close();
  await processes.stopAll();
  execFileSync('umount', ['-l', logsDir]);
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the logs records file on a full disk', { timeout: 60_000 }, () => {
  it('counts the failed writes, keeps serving the records from memory, and the server runs on', async () => {
    await waitUntil(async () => ((await api.call('logs', { level: 'ERROR' })) as Json).records.length > 0, 30_000, 'the flood and the trace to be read');
    await waitUntil(async () => ((await api.call('logs_summary', {})) as Json).persist.writeErrors > 0, 30_000, 'a failed write to be counted');
    const summary = (await api.call('logs_summary', {})) as Json;
    expect(summary.persist.lastError).toMatch(/ENOSPC/);
    expect(summary.running).toBe(true);
    // In memory, all of it: the last flood line and the trace after it.
    expect(((await api.call('logs', { grep: 'flood line 7999' })) as Json).records).toHaveLength(1);
    expect(summary.traces).toHaveLength(1);
    expect(daemon.alive()).toBe(true);
    expect(((await api.call('state', {})) as Json).type).toBe('state');
    expect(((await api.call('server_status', {})) as Json).state).toBe('running');
  });
});

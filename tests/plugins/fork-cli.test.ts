import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FORK_MANIFEST } from '../../plugins/fork/run.js';
import { CliProcesses, runCli } from '../support/cli-process.js';
import { startDaemonProcess } from '../faults/support.js';

const processes = new CliProcesses();
afterEach(() => processes.stopAll());

describe('fork end to end (mcbridge run --sim, mcbridge call)', () => {
  it('forks the simulated world through the CLI, with the predecessor parameter names', async () => {
    const daemon = await startDaemonProcess(processes, ['--sim']);
    const port = String(daemon.port);
    const run = await runCli(['call', 'fork', JSON.stringify({ name: 'cli-fork', radius: 16 }), '--progress', '--api-port', port]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ name: 'cli-fork', tickState: { before: 'running', after: 'running', restored: true } });
    expect(fs.existsSync(path.join(result.snapshotDir, FORK_MANIFEST))).toBe(true);
    expect(fs.existsSync(path.join(result.forkDir, 'level.dat'))).toBe(true);
    const list = JSON.parse((await runCli(['call', 'snapshots', '--api-port', port])).stdout);
    expect(list.snapshots.map((s: { id: string }) => s.id)).toContain('cli-fork');
  });
});

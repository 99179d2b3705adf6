import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcesses, runCli } from '../support/cli-process.js';
import { waitUntil } from '../support/helpers.js';
import { useTemps } from '../support/restore.js';
import { startDaemonProcess } from '../faults/support.js';

/**
 * The README's workflow, as processes: a live server and a lab server (simulated mods), a daemon
 * for each, fork on the live one, restore (dry run, then applied with the endpoint proof) and
 * verify on the lab one, all through `mcbridge call`.
 */
const processes = new CliProcesses();
afterEach(() => processes.stopAll());
const tmp = useTemps('mcbridge-restore-cli-');

async function simProcess(dir: string): Promise<void> {
  const { child, out } = processes.start(['sim', '--dir', dir, '--port', '0']);
  await waitUntil(
    () => {
      if (child.exitCode !== null) throw new Error(`the sim exited: ${out.stderr}`);
      return out.stdout.includes('"portFile"');
    },
    30_000,
    'the simulated mod to listen',
  );
}

async function call(port: number, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const run = await runCli(['call', method, JSON.stringify(params), '--api-port', String(port)], { timeoutMs: 60_000 });
  expect(run.code, `${method}: ${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout);
}

describe('fork live -> restore into a lab server -> verify, through the CLI', () => {
  it('round trips the live world into the lab: dry run, apply with expect_world_dir, verify ok', async () => {
    const root = tmp();
    const live = path.join(root, 'live');
    const lab = path.join(root, 'lab');
    await simProcess(live);
    const liveDaemon = await startDaemonProcess(processes, ['--server-dir', live]);
    const fork = await call(liveDaemon.port, 'fork', { name: 'before' });
    expect(fork.snapshotDir).toBe(path.join(live, 'mc-agent-server', 'snapshots', 'before'));

    fs.mkdirSync(lab);
    fs.cpSync(fork.forkDir, path.join(lab, 'world'), { recursive: true });
    await simProcess(lab);
    const labDaemon = await startDaemonProcess(processes, ['--server-dir', lab]);

    const dry = await call(labDaemon.port, 'restore', { dir: fork.snapshotDir });
    expect(dry).toMatchObject({ verdict: 'dry-run', count: fork.entities, summonable: fork.entities });
    expect(dry.commands).toHaveLength(fork.entities);

    const refused = await runCli(['call', 'restore', JSON.stringify({ dir: fork.snapshotDir, dry_run: false }), '--api-port', String(labDaemon.port)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/apply requires an endpoint proof/);

    const applied = await call(labDaemon.port, 'restore', { dir: fork.snapshotDir, dry_run: false, expect_world_dir: path.join(lab, 'world') });
    expect(applied).toMatchObject({ verdict: 'ok', ok: true, issued: fork.entities, tick: { prior: 'running', restored: true, preserved: true } });

    const verified = await call(labDaemon.port, 'verify', { dir: fork.snapshotDir });
    expect(verified).toMatchObject({ ok: true, expected: { orderHash: fork.orderHash }, actual: { orderHash: fork.orderHash } });
    const order = await call(labDaemon.port, 'order', { dir: fork.snapshotDir });
    expect(order.match).toBe(true);
  }, 120_000);
});

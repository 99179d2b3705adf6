/**
 * A daemon SIGKILLed in the middle of a fork or a restore leaves the game frozen, chunks
 * forceloaded or a half-written fork folder; the next daemon on that game (same config folder)
 * undoes it from the world journal when it connects, and says so in `status`. Two world-changing
 * calls at once: the second is refused with `busy`, naming the first, and changes nothing.
 * Real daemon processes, the simulated mod in this process (it outlives the daemons).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { startSim, type SimulatedMod } from '../../core/sim/index.js';
import { CliProcesses } from '../support/cli-process.js';
import { startDaemonProcess, type DaemonProcess } from '../support/daemon-process.js';
import { failure } from '../support/errors.js';
import { waitUntil } from '../support/helpers.js';
import { CART_A, CART_A_POS, cart, writeRecording } from '../support/restore.js';

const dirs: string[] = [];
const sims: SimulatedMod[] = [];
const clients: ApiClient[] = [];
let processes = new CliProcesses();

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await processes.stopAll();
  for (const sim of sims.splice(0)) await sim.stop();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A game (the sim, running, with a world folder) and a project folder the daemons run in (their config folder). */
async function game(): Promise<{ sim: SimulatedMod; project: string }> {
  const sim = await startSim({ port: 0, dir: tempDir('mcbridge-journal-game-'), worldDisk: {}, entities: [] });
  sims.push(sim);
  const project = tempDir('mcbridge-journal-project-');
  processes = new CliProcesses({ cwd: project });
  return { sim, project };
}

async function daemonOn(sim: SimulatedMod): Promise<{ daemon: DaemonProcess; client: ApiClient }> {
  const daemon = await startDaemonProcess(processes, ['--mod-port', String(sim.port)]);
  const client = await ApiClient.connect({ port: daemon.port });
  clients.push(client);
  return { daemon, client };
}

const journals = (project: string) => {
  const dir = path.join(project, '.mcbridge');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
};

/** What `status` says was undone, once it says something. */
async function recovered(client: ApiClient): Promise<Record<string, any>[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const status = (await client.call('status')) as Record<string, any>;
    const reports: Record<string, any>[] = status['snapshot:journal']?.recovered ?? [];
    if (reports.length > 0) return reports;
    if (Date.now() > deadline) throw new Error(`status reported nothing undone: ${JSON.stringify(status['snapshot:journal'])}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Two daemon starts, a kill and a world copy each: slow on a loaded machine.
describe('a daemon killed mid-operation: the next one undoes what it left', { timeout: 60_000 }, () => {
  it('fork killed during the copy: the game is unfrozen and the half-written world/ removed', async () => {
    const { sim, project } = await game();
    // Many small files, so the copy is still under way when the daemon dies.
    const filler = path.join(sim.dir, 'world', 'data', 'filler');
    fs.mkdirSync(filler, { recursive: true });
    for (let i = 0; i < 2000; i++) fs.writeFileSync(path.join(filler, `f${i}.dat`), 'x'.repeat(512));
    const first = await daemonOn(sim);
    let copying = false;
    const forking = first.client.call('fork', { name: 'killed' }, { onProgress: (p: { progress: number }) => (copying ||= p.progress > 0) });
    forking.catch(() => undefined);
    await waitUntil(() => copying, 20_000, 'the copy to start');
    await first.daemon.kill('SIGKILL');

    const forkDir = path.join(sim.modDir, 'snapshots', 'killed', 'world');
    expect(sim.world.frozen).toBe(true);
    expect(fs.existsSync(forkDir)).toBe(true);
    expect(fs.existsSync(path.join(sim.modDir, 'snapshots', 'killed', 'fork-manifest.json'))).toBe(false);
    expect(journals(project)).toHaveLength(1);

    const second = await daemonOn(sim);
    const [report] = await recovered(second.client);
    expect(report).toMatchObject({ op: 'fork', pid: first.daemon.pid, failed: [] });
    expect(report!.undone).toEqual(['unfroze the game', `removed the half-written fork copy ${forkDir}`]);
    expect(sim.world.frozen).toBe(false);
    expect(fs.existsSync(forkDir)).toBe(false);
    expect(journals(project)).toEqual([]);
  });

  it('restore killed at its baseline snapshot: the game is unfrozen and the forceload released', async () => {
    const { sim, project } = await game();
    const recording = writeRecording(tempDir('mcbridge-journal-rec-'), [cart(CART_A, CART_A_POS)]);
    sim.fault('SNAPSHOT restore-pre', { noReply: true });
    const first = await daemonOn(sim);
    const restoring = first.client.call('restore', { dir: recording, dry_run: false, expect_world_dir: path.join(sim.dir, 'world') });
    restoring.catch(() => undefined);
    await waitUntil(() => sim.received.some((line) => line.startsWith('SNAPSHOT 0 restore-pre')), 20_000, 'the baseline snapshot to be sent');
    await first.daemon.kill('SIGKILL');
    expect(sim.world.frozen).toBe(true);
    expect(sim.world.forcedChunks.get('minecraft:overworld')?.size).toBeGreaterThan(0);

    const second = await daemonOn(sim);
    const [report] = await recovered(second.client);
    expect(report).toMatchObject({ op: 'restore', pid: first.daemon.pid, failed: [] });
    expect(report!.undone).toEqual(['unfroze the game', expect.stringMatching(/^forceload remove -?\d+ -?\d+ -?\d+ -?\d+$/)]);
    expect(sim.world.frozen).toBe(false);
    expect(sim.world.forcedChunks.get('minecraft:overworld')?.size).toBe(0);
    expect(journals(project)).toEqual([]);
  });

  it('a journal that is not one is reported and nothing is sent; a world-changing call is refused until it is dealt with', async () => {
    const { sim, project } = await game();
    fs.mkdirSync(path.join(project, '.mcbridge'));
    const file = path.join(project, '.mcbridge', `world-journal-127.0.0.1_${sim.port}.json`);
    fs.writeFileSync(file, JSON.stringify({ protocol: 1, op: 'fork', pid: 1, startedAt: 0, game: 'x', tick: null, forceloads: ['op @a'], forkDir: null }));
    const { client } = await daemonOn(sim);
    const [report] = await recovered(client);
    expect(report).toMatchObject({ op: null, undone: [], problem: expect.stringMatching(/not a journal this daemon wrote/) });
    expect(sim.received.some((line) => line.includes('op @a'))).toBe(false);
    const err = await failure(client.call('fork', { name: 'blocked' }));
    expect(err.code).toBe('busy');
    expect(err.message).toContain(file);
  });
});

describe('world-changing operations on one game run one at a time', { timeout: 60_000 }, () => {
  it('a second fork while one runs is refused with busy, naming the first; nothing of it reaches the game', async () => {
    const { sim } = await game();
    sim.fault('SNAPSHOT', { delayMs: 1_500 }, { times: 1 });
    const { client } = await daemonOn(sim);
    const first = client.call('fork', { name: 'one', regions: false });
    await waitUntil(() => sim.received.some((line) => line.startsWith('SNAPSHOT 0 one')), 10_000, 'the first fork to reach its snapshot');
    const sentBefore = sim.received.length;
    const err = await failure(client.call('fork', { name: 'two', regions: false }));
    expect(err.code).toBe('busy');
    expect(err.message).toMatch(/^a fork is changing this game \(127\.0\.0\.1:\d+\) since [\d.]+ s ago/);
    expect(err.details).toMatchObject({ running: { op: 'fork' } });
    expect(sim.received.slice(sentBefore)).toEqual([]);
    expect(await first).toMatchObject({ name: 'one', tickState: { froze: true, restored: true } });
    // Once the first has ended, the next one runs.
    expect(await client.call('fork', { name: 'two', regions: false })).toMatchObject({ name: 'two' });
    expect(sim.world.frozen).toBe(false);
  });
});

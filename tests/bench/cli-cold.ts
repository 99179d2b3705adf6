import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSim, type SimulatedMod } from '../../core/sim/index.js';
import { delay, freePort, guard, oneCall, readMemory, repoRoot, spawnChild, stopChild, withTimeout, type Child } from './children.js';
import { fmtNum, keepRows, median, round, table } from './stats.js';

/**
 * Part `cli` of `npm run bench`: how a command starts and what a daemon holds at rest.
 *
 *  - `mcbridge call state` against a running daemon, each a cold process, next to `node -e 0`:
 *    wall time from spawn to exit and peak RSS, BENCH_CLI_ROUNDS rounds (default 15) alternating
 *    which goes first; medians count. Targets: <= 1.5x node's wall time, <= 50 MB peak.
 *  - idle RSS of a daemon a few seconds after it connected (`run --mod-port P`, no config, no
 *    sim; and `run --sim`), next to an idle node process. Target: <= 50 MB without the sim. For
 *    scale: node after importing zod, and the floor of any daemon of ours (idle-floor.ts: pino,
 *    the event log and the link, connected; no plugin, no zod).
 *
 * Peak memory is read by `/usr/bin/time -f %M` where it exists, else by a preload that writes
 * `process.resourceUsage().maxRSS` at exit; either way both sides are measured the same way.
 */
export const CLI_WALL_TARGET = 1.5;
export const CLI_PEAK_TARGET_MB = 50;
export const IDLE_RSS_TARGET_MB = 50;
/** How long a daemon rests after connecting before its RSS is read. */
const SETTLE_MS = 3_000;
const MB = 1024 * 1024;

const BIN = path.join(repoRoot, 'bin', 'mcbridge.js');
const FLOOR_JS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'idle-floor.js');
const TIME = '/usr/bin/time';

interface Sample {
  ms: number;
  peakBytes: number;
}

/** One cold process: wall time from spawn to exit, and its peak RSS. */
function coldRun(args: string[], cwd: string, scratch: string): Promise<Sample> {
  const peakFile = path.join(scratch, 'peak');
  fs.rmSync(peakFile, { force: true });
  const useTime = fs.existsSync(TIME);
  const [cmd, argv] = useTime ? [TIME, ['-f', '%M', '-o', peakFile, process.execPath, ...args]] : [process.execPath, ['--import', preload(scratch), ...args]];
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const proc = spawn(cmd, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MCBRIDGE_PEAK_FILE: peakFile } });
    let stderr = '';
    proc.stdout!.resume();
    proc.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    proc.once('error', reject);
    proc.once('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.trim()}`));
      const kb = Number(fs.readFileSync(peakFile, 'utf8').trim().split('\n').pop());
      resolve({ ms, peakBytes: kb * 1024 });
    });
  });
}

/** The fallback's preload: the process's own peak RSS (kB), written when it exits. */
function preload(scratch: string): string {
  const file = path.join(scratch, 'peak-preload.mjs');
  fs.writeFileSync(file, "import fs from 'node:fs';\nprocess.on('exit', () => fs.writeFileSync(process.env.MCBRIDGE_PEAK_FILE, String(process.resourceUsage().maxRSS)));\n");
  return file;
}

async function waitConnected(child: Child, apiPort: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitedYet) throw new Error(`the ${child.name} exited: ${child.stderr.trim()}`);
    try {
      const frame = await oneCall(apiPort, 'ping');
      if ((frame.result as { connected?: boolean } | undefined)?.connected === true) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the ${child.name} did not connect within 20 s: ${child.stderr.trim()}`);
    await delay(50);
  }
}

async function startRunDaemon(name: string, args: string[]): Promise<{ child: Child; apiPort: number }> {
  const apiPort = await freePort();
  const child = spawnChild(name, [BIN, 'run', ...args, '--api-port', String(apiPort), '--no-config', '--log-level', 'warn']);
  child.proc.stdout!.resume();
  await waitConnected(child, apiPort);
  return { child, apiPort };
}

async function coldCalls(rounds: number, apiPort: number, cwd: string, scratch: string): Promise<Record<string, Sample[]>> {
  const sides: Record<string, string[]> = {
    'node -e 0': ['-e', '0'],
    'mcbridge call state': [BIN, 'call', 'state', '--api-port', String(apiPort)],
  };
  const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
  // One untimed run of each first: the files are then in the page cache for every timed round.
  for (const args of Object.values(sides)) await coldRun(args, cwd, scratch);
  for (let i = 0; i < rounds; i++) {
    const names = Object.keys(sides);
    for (const name of i % 2 === 0 ? names : names.reverse()) {
      const sample = await coldRun(sides[name]!, cwd, scratch);
      samples[name]!.push(sample);
      process.stderr.write(`  cli round ${i + 1} ${name.padEnd(20)} ${fmtNum(sample.ms, 0).padStart(5)} ms  ${fmtNum(sample.peakBytes / MB, 1)} MB\n`);
    }
  }
  return samples;
}

const ZOD_IDLE = "const { z } = await import('zod'); z.object({ a: z.string() }).parse({ a: 'x' }); setInterval(() => {}, 1e9);";

async function idleRss(name: string, child: Child): Promise<number> {
  await delay(SETTLE_MS);
  const { rss } = readMemory(child.proc.pid);
  if (rss === null) throw new Error(`no /proc/${child.proc.pid}/status for the ${name}`);
  return rss;
}

export async function cliColdPart(rounds: number): Promise<Record<string, unknown>> {
  // The client commands run where no config is found, as from a fresh directory.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-bench-cli-'));
  let sim: SimulatedMod | undefined;
  const started: Child[] = [];
  try {
    console.log('');
    console.log(
      `cli cold start and daemon idle memory: load average ${os
        .loadavg()
        .map((l) => fmtNum(l, 2))
        .join(' ')}, ${rounds} rounds alternating; medians count`,
    );
    sim = await startSim({ dir: scratch });
    const daemon = await startRunDaemon('daemon (no sim)', ['--mod-port', String(sim.port)]);
    started.push(daemon.child);
    const samples = await coldCalls(rounds, daemon.apiPort, scratch, scratch);
    const node = samples['node -e 0']!;
    const call = samples['mcbridge call state']!;
    const wall = median(call.map((s) => s.ms)) / median(node.map((s) => s.ms));
    const peakMb = median(call.map((s) => s.peakBytes)) / MB;

    const withSim = await startRunDaemon('daemon (--sim)', ['--sim']);
    started.push(withSim.child);
    const idleNode = spawnChild('idle node', ['-e', 'setInterval(() => {}, 1e9)']);
    started.push(idleNode);
    // For scale: what zod alone costs an idle process. Every plugin's schemas are zod's, so a
    // daemon holds it; no lazy loading takes it out.
    const idleZod = spawnChild('idle node + zod', ['--input-type=module', '-e', ZOD_IDLE]);
    started.push(idleZod);
    const floor = spawnChild('daemon floor', [FLOOR_JS, String(sim.port)]);
    started.push(floor);
    await guard(
      floor,
      withTimeout(
        new Promise<void>((resolve) => {
          floor.proc.stdout!.setEncoding('utf8').on('data', (s: string) => s.includes('"ready"') && resolve());
        }),
        10_000,
        'the daemon floor connecting to the sim',
      ),
    );
    const [daemonRss, simRss, nodeRss, zodRss, floorRss] = await Promise.all([
      idleRss('daemon', daemon.child),
      idleRss('daemon --sim', withSim.child),
      idleRss('idle node', idleNode),
      idleRss('idle node + zod', idleZod),
      idleRss('daemon floor', floor),
    ]);
    const loadAfter = os.loadavg()[0]!;

    const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
    console.log(
      table(
        ['cold process', 'median ms', 'median peak MB', 'vs node', 'target', 'verdict'],
        Object.entries(samples).map(([name, runs]) => {
          const own = name.startsWith('mcbridge');
          const ms = median(runs.map((s) => s.ms));
          return [
            name,
            fmtNum(ms, 0),
            fmtNum(median(runs.map((s) => s.peakBytes)) / MB, 1),
            `${fmtNum(ms / median(node.map((s) => s.ms)), 2)}x`,
            own ? `<= ${CLI_WALL_TARGET}x, <= ${CLI_PEAK_TARGET_MB} MB` : '',
            own ? verdict(wall <= CLI_WALL_TARGET && peakMb <= CLI_PEAK_TARGET_MB) : '',
          ];
        }),
      ),
    );
    console.log(
      table(
        ['idle process', `RSS MB after ${SETTLE_MS / 1000} s`, 'vs idle node', 'target', 'verdict'],
        [
          ['daemon: run --mod-port P', fmtNum(daemonRss / MB, 1), `${fmtNum(daemonRss / nodeRss, 2)}x`, `<= ${IDLE_RSS_TARGET_MB} MB`, verdict(daemonRss / MB <= IDLE_RSS_TARGET_MB)],
          ['daemon: run --sim', fmtNum(simRss / MB, 1), `${fmtNum(simRss / nodeRss, 2)}x`, '', ''],
          ['node -e "setInterval(...)"', fmtNum(nodeRss / MB, 1), '1.00x', '', ''],
          ['the same after importing zod and parsing with one schema', fmtNum(zodRss / MB, 1), `${fmtNum(zodRss / nodeRss, 2)}x`, '', ''],
          ['floor of any daemon: pino, event log, link connected; no plugin, no zod', fmtNum(floorRss / MB, 1), `${fmtNum(floorRss / nodeRss, 2)}x`, '', ''],
        ],
      ),
    );
    console.log(`load average after: ${fmtNum(loadAfter, 2)}`);
    const nodeMs = median(node.map((s) => s.ms));
    const nodePeakMb = median(node.map((s) => s.peakBytes)) / MB;
    keepRows('node -e 0', [
      ['`mcbridge call state`, cold process, wall ms', fmtNum(nodeMs * wall, 0), fmtNum(nodeMs, 0), fmtNum(wall, 2), `<= ${CLI_WALL_TARGET}`, verdict(wall <= CLI_WALL_TARGET)],
      ['same, peak memory MB', fmtNum(peakMb, 1), fmtNum(nodePeakMb, 1), fmtNum(peakMb / nodePeakMb, 2), `<= ${CLI_PEAK_TARGET_MB} MB`, verdict(peakMb <= CLI_PEAK_TARGET_MB)],
    ]);
    keepRows('idle node', [
      [
        'daemon RSS idle after start, MB',
        fmtNum(daemonRss / MB, 1),
        fmtNum(nodeRss / MB, 1),
        fmtNum(daemonRss / nodeRss, 2),
        `<= ${IDLE_RSS_TARGET_MB} MB`,
        verdict(daemonRss / MB <= IDLE_RSS_TARGET_MB),
      ],
      ['for scale: idle node after importing zod, MB', fmtNum(zodRss / MB, 1), fmtNum(nodeRss / MB, 1), fmtNum(zodRss / nodeRss, 2), 'info', ''],
      ['for scale: a daemon with no plugin and no zod, MB', fmtNum(floorRss / MB, 1), fmtNum(nodeRss / MB, 1), fmtNum(floorRss / nodeRss, 2), 'info', ''],
    ]);
    return {
      rounds,
      callMs: call.map((s) => round(s.ms, 1)),
      nodeMs: node.map((s) => round(s.ms, 1)),
      callPeakBytes: call.map((s) => s.peakBytes),
      nodePeakBytes: node.map((s) => s.peakBytes),
      wallRatio: round(wall, 3),
      peakMb: round(peakMb, 1),
      idleRssBytes: { daemon: daemonRss, daemonSim: simRss, node: nodeRss, nodeWithZod: zodRss, daemonFloor: floorRss },
      pass: { wall: wall <= CLI_WALL_TARGET, peak: peakMb <= CLI_PEAK_TARGET_MB, idle: daemonRss / MB <= IDLE_RSS_TARGET_MB },
      loadAvg: round(os.loadavg()[0]!, 2),
    };
  } finally {
    for (const child of started) await stopChild(child);
    await sim?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

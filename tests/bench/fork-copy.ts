import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { copyWorld } from '../../plugins/fork/copy-world.js';
import { startSim } from '../../core/sim/index.js';
import { median, round, table } from './stats.js';

/**
 * `npm run build && tsc -p tsconfig.bench.json && node dist/tests/bench/fork-copy.js`: the fork's
 * world copy (copyFile, and the stream pipeline) next to `cp -r` on a generated sim world
 * (BENCH_WORLD_BYTES, default 1.1e9). Rounds alternate the three, the median counts; target:
 * copyFile ≤ 1.2 × cp -r. A measurement, not a test: exits 0 whether or not the target is met.
 * The fork copies less than cp (no entity storage, players, session.lock), as it would in use.
 */
const bytes = Number(process.env.BENCH_WORLD_BYTES ?? 1.1e9);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const run = promisify(execFile);

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-bench-fork-'));
  try {
    const made = await timed(async () => {
      const sim = await startSim({ dir: root, autoTick: false, worldDisk: { bytes } });
      await sim.stop();
    });
    const src = path.join(root, 'world');
    const { stdout } = await run('du', ['-sb', src]);
    console.log(`sim world: ${stdout.split('\t')[0]} bytes, generated in ${round(made / 1000, 1)} s; ${rounds} rounds`);
    const times: Record<string, number[]> = { 'copyWorld (copyFile)': [], 'copyWorld (stream)': [], 'cp -r': [] };
    const dest = path.join(root, 'copy');
    for (let i = 0; i < rounds; i++) {
      for (const name of Object.keys(times)) {
        fs.rmSync(dest, { recursive: true, force: true });
        const ms = await timed(async () => {
          if (name === 'cp -r') await run('cp', ['-r', src, dest]);
          else await copyWorld(src, dest, { method: name.includes('stream') ? 'stream' : 'copyFile' });
        });
        times[name]!.push(ms);
      }
    }
    fs.rmSync(dest, { recursive: true, force: true });
    const cp = median(times['cp -r']!);
    console.log(
      table(
        ['copy', 'median ms', 'runs ms', 'vs cp -r'],
        Object.entries(times).map(([name, ms]) => [name, String(round(median(ms), 0)), ms.map((m) => round(m, 0)).join(' '), `${round(median(ms) / cp, 2)}x`]),
      ),
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { copyWorld } from '../../plugins/fork/copy-world.js';
import { startSim } from '../../core/sim/index.js';
import { fmtNum, keepRows, median, round, table } from './stats.js';

/**
 * Part 5 of `npm run bench`: the fork's world copy (copyWorld, copyFile file by file) next to
 * `cp -r` on a generated sim world of BENCH_WORLD_BYTES (default 1.1e9), BENCH_FORK_ROUNDS rounds
 * (default 5) alternating which goes first; the median counts. Target: ≤ 1.2 × cp -r.
 * Each copy starts after a `sync` (untimed), with the source in the page cache.
 * BENCH_FORK_STREAM=1 adds the read/write stream pipeline that copyFile replaced. The fork
 * copies less than cp (no entity storage, players, session.lock), as it would in use.
 */
const run = promisify(execFile);
export const FORK_COPY_TARGET = 1.2;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function forkCopyPart(bytes: number, rounds: number): Promise<Record<string, unknown>> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-bench-fork-'));
  try {
    const made = await timed(async () => {
      const sim = await startSim({ dir: root, autoTick: false, worldDisk: { bytes } });
      await sim.stop();
    });
    const src = path.join(root, 'world');
    const size = Number((await run('du', ['-sb', src])).stdout.split('\t')[0]);
    console.log('');
    console.log(`fork copy: a sim world of ${fmtNum(size / 1e9, 2)} GB (generated in ${fmtNum(made / 1000, 1)} s), ${rounds} rounds alternating, sync before each copy; median counts`);
    const methods: Record<string, () => Promise<unknown>> = {
      'fork copyWorld (copyFile)': () => copyWorld(src, dest, { method: 'copyFile' }),
      'cp -r': () => run('cp', ['-r', src, dest]),
      ...(process.env.BENCH_FORK_STREAM === '1' ? { 'copyWorld (stream)': () => copyWorld(src, dest, { method: 'stream' }) } : {}),
    };
    const dest = path.join(root, 'copy');
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(methods).map((name) => [name, []]));
    for (let i = 0; i < rounds; i++) {
      const names = Object.keys(methods);
      for (const name of i % 2 === 0 ? names : names.reverse()) {
        fs.rmSync(dest, { recursive: true, force: true });
        // The last copy's (or the generator's) dirty pages are written back first, untimed, so
        // neither side pays for the other's writeback.
        await run('sync', []);
        const ms = await timed(methods[name]!);
        times[name]!.push(ms);
        process.stderr.write(`  fork copy round ${i + 1} ${name.padEnd(26)} ${Math.round(ms)} ms\n`);
      }
    }
    fs.rmSync(dest, { recursive: true, force: true });
    const cp = median(times['cp -r']!);
    const ratio = median(times['fork copyWorld (copyFile)']!) / cp;
    console.log(
      table(
        ['copy', 'median ms', 'runs ms', 'vs cp -r', 'target', 'verdict'],
        Object.entries(times).map(([name, ms]) => {
          const own = name.startsWith('fork');
          return [
            name,
            fmtNum(median(ms), 0),
            ms.map((m) => Math.round(m)).join(' '),
            `${fmtNum(median(ms) / cp, 2)}x`,
            own ? `<= ${FORK_COPY_TARGET}` : '',
            own ? (ratio <= FORK_COPY_TARGET ? 'PASS' : 'MISS') : '',
          ];
        }),
      ),
    );
    const fork = median(times['fork copyWorld (copyFile)']!);
    keepRows('cp -r', [['fork world copy ms (median)', fmtNum(fork, 0), fmtNum(cp, 0), fmtNum(ratio, 2), `<= ${FORK_COPY_TARGET}`, ratio <= FORK_COPY_TARGET ? 'PASS' : 'MISS']]);
    return {
      worldBytes: size,
      rounds,
      generatedMs: round(made, 0),
      ms: Object.fromEntries(Object.entries(times).map(([name, ms]) => [name, ms.map((m) => round(m, 0))])),
      ratio: round(ratio, 3),
      target: FORK_COPY_TARGET,
      pass: ratio <= FORK_COPY_TARGET,
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Undo what a killed fork or restore left in the game (./journal.ts): the tick state it changed,
 * the forceloads it added, the fork folder it was writing. Run by the snapshot plugin's service
 * when the daemon starts and each time it connects to the mod, and reported in `status`.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ModReply, ServiceContext } from 'mcbridge';
import { outputLines } from 'mcbridge/kit';
import { FORK_MANIFEST } from './files.js';
import { isEmpty, readJournal, writeAtomically, type JournalRecord } from './journal.js';
import { tickStateOf } from './tick-state.js';

export interface RecoveryReport {
  at: number;
  file: string;
  /** The operation that left it. */
  op: JournalRecord['op'] | null;
  pid: number | null;
  startedAt: number | null;
  undone: string[];
  failed: string[];
  /** The journal could not be read or trusted; nothing was sent. */
  problem?: string;
}

/** A process other than this one still runs (its operation is not dead: leave its journal). */
function alive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A fork copy is removed only where one is written: `<snapshots>/<name>/world` beside a snapshot's
 * meta.json, with no fork manifest yet (that is written last, so with it the copy is complete).
 */
async function halfWrittenFork(dir: string, exists: (file: string) => Promise<boolean>): Promise<boolean> {
  const parent = path.dirname(dir);
  if (!path.isAbsolute(dir) || path.basename(dir) !== 'world' || path.basename(path.dirname(parent)) !== 'snapshots') return false;
  return (await exists(path.join(parent, 'meta.json'))) && !(await exists(path.join(parent, FORK_MANIFEST)));
}

/** Undo what the journal at `file` says; null when there is none (or its process lives on). */
export async function recoverJournal(file: string, ctx: Pick<ServiceContext, 'call' | 'log'>): Promise<RecoveryReport | null> {
  const read = await readJournal(file);
  if (read === null) return null;
  const report: RecoveryReport = { at: Date.now(), file, op: null, pid: null, startedAt: null, undone: [], failed: [] };
  if (!('record' in read)) {
    ctx.log.error({ file, problem: read.problem }, 'the world journal cannot be trusted; nothing was undone. Check the game and delete the file');
    return { ...report, problem: read.problem };
  }
  const record = read.record;
  if (alive(record.pid)) return null;
  Object.assign(report, { op: record.op, pid: record.pid, startedAt: record.startedAt });
  const command = async (text: string): Promise<string[]> => outputLines((await ctx.call('command', { command: text })) as ModReply);
  const left = { ...record };
  if (record.tick?.changed) {
    const want = record.tick.before;
    try {
      const lines = await command(want === 'running' ? 'tick unfreeze' : 'tick freeze');
      if (tickStateOf(lines) !== want) throw new Error(`the game answered ${JSON.stringify(lines)}`);
      report.undone.push(want === 'running' ? 'unfroze the game' : 'froze the game again');
      left.tick = null;
    } catch (err) {
      report.failed.push(`putting the tick state back to ${want}: ${(err as Error).message}`);
    }
  }
  const forceloads: string[] = [];
  for (const remove of record.forceloads) {
    try {
      await command(remove);
      report.undone.push(remove);
    } catch (err) {
      forceloads.push(remove);
      report.failed.push(`${remove}: ${(err as Error).message}`);
    }
  }
  left.forceloads = forceloads;
  const exists = (f: string) =>
    fsp.stat(f).then(
      () => true,
      () => false,
    );
  if (record.forkDir !== null && !(await exists(record.forkDir))) left.forkDir = null;
  else if (record.forkDir !== null) {
    if (await halfWrittenFork(record.forkDir, exists)) {
      try {
        await fsp.rm(record.forkDir, { recursive: true, force: true });
        report.undone.push(`removed the half-written fork copy ${record.forkDir}`);
        left.forkDir = null;
      } catch (err) {
        report.failed.push(`removing ${record.forkDir}: ${(err as Error).message}`);
      }
    } else {
      report.undone.push(`left ${record.forkDir} alone: not a fork copy under way`);
      left.forkDir = null;
    }
  }
  // What could not be undone stays in the journal for the next connect.
  if (isEmpty(left)) await fsp.rm(file, { force: true });
  else await writeAtomically(file, left);
  ctx.log.warn({ file, op: record.op, pid: record.pid, undone: report.undone, failed: report.failed }, `undid what a ${record.op} that did not finish left in the game`);
  return report;
}

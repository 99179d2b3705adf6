/**
 * One writer per ledger file. Two daemons on one state folder with a target of the same name
 * would each replace the file with their own entries, so each restart would read the other's
 * writes as its own (answering an id the other sent) and lose half of its own. The first one
 * holds `<file>.lock` (its pid); another finds it held and keeps its ledger in memory, saying so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readOwnFile } from '../../util/state-file.js';

/** A lock holds `{"pid":…,"at":…}`: anything longer is not one. */
const MAX_LOCK_BYTES = 256;

/** Ledger files this process holds: a second link on one file (two targets, a case-folding disk) is held too. */
const heldHere = new Set<string>();

export type LockResult = { held: true } | { held: false; by: string };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holder named by a lock file, or null when it is gone (a daemon killed with SIGKILL leaves its lock behind). */
function holderOf(lock: string, file: string): string | null {
  // Read as the ledger is: bounded, not through a link, and a pipe in its place must not hang the start.
  const read = readOwnFile(lock, MAX_LOCK_BYTES, 'a ledger lock');
  let pid: number;
  try {
    pid = read !== null && 'text' in read ? Number((JSON.parse(read.text) as { pid?: unknown }).pid) : Number.NaN;
  } catch {
    pid = Number.NaN;
  }
  // Unreadable, not ours or half-written (a creator killed between open and write): taken over.
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (pid === process.pid) return heldHere.has(file) ? `another target of this daemon (pid ${pid})` : null;
  return alive(pid) ? `the process ${pid}` : null;
}

/**
 * Take `<file>.lock`, or say who holds it. Never throws: a folder that cannot be written is no
 * holder (the ledger's own writes fail and report that), and two takers of one stale lock at
 * once may both go on (the window of a `rm` and an exclusive create).
 */
export function lockLedger(file: string): LockResult {
  const lock = `${file}.lock`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch {
    heldHere.add(file);
    return { held: true };
  }
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, at: Date.now() }), { flag: 'wx', mode: 0o600 });
      heldHere.add(file);
      return { held: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        heldHere.add(file);
        return { held: true };
      }
    }
    const by = holderOf(lock, file);
    if (by !== null) return { held: false, by };
    try {
      fs.rmSync(lock, { force: true });
    } catch {
      break;
    }
  }
  return { held: false, by: `a lock ${lock} that could not be taken over` };
}

/** Give the file up (a stopping link). */
export function unlockLedger(file: string): void {
  if (!heldHere.delete(file)) return;
  try {
    fs.rmSync(`${file}.lock`, { force: true });
  } catch {
    // Never made (the folder could not be written): nothing to give up.
  }
}

/**
 * What /proc says about processes (Linux): which run in a process group, which carry a launch
 * marker in their environment, and when one started (so a reused pid is not taken for ours).
 * Elsewhere only the group test `kill(-pgid, 0)` is available, and marked processes go unseen.
 */
import fs from 'node:fs';

export const MARKER_ENV = 'MCBRIDGE_LAUNCH_ID';

interface ProcStat {
  state: string;
  pgrp: number;
  start: string;
}

function stat(pid: number): ProcStat | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', pgrp: Number(fields[2]), start: fields[19] ?? '' };
  } catch {
    return null;
  }
}

/** Running (a zombie is dead: in a container whose pid 1 never reaps, orphans stay zombies). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return stat(pid)?.state !== 'Z';
}

/** The kernel's start time of `pid` (clock ticks since boot), null when unknown. */
export function startTime(pid: number): string | null {
  return stat(pid)?.start ?? null;
}

function hasMarker(pid: number, marker: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${MARKER_ENV}=${marker}`);
  } catch {
    return false;
  }
}

/**
 * The live processes of group `pgid` and those carrying `marker` (grandchildren that left the
 * group keep the environment they inherited). With `trustGroup` false, the group counts only if
 * one of its members carries the marker (a journal entry of an earlier run: the pgid may be reused).
 */
export function findProcesses(pgid: number | null, marker: string, trustGroup: boolean): { group: number[]; marked: number[] } {
  const group: number[] = [];
  const marked: number[] = [];
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    if (pgid !== null && trustGroup && groupExists(pgid)) group.push(pgid);
    return { group, marked };
  }
  let groupMarked = false;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const s = stat(pid);
    if (s === null || s.state === 'Z') continue;
    const mine = hasMarker(pid, marker);
    if (pgid !== null && s.pgrp === pgid) {
      group.push(pid);
      groupMarked ||= mine;
    } else if (mine) marked.push(pid);
  }
  return { group: trustGroup || groupMarked ? group : [], marked };
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Signal a group and single processes; gone ones are skipped. */
export function signalAll(pgid: number | null, pids: number[], signal: NodeJS.Signals): void {
  if (pgid !== null) {
    try {
      process.kill(-pgid, signal);
    } catch {
      // gone already
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  }
}

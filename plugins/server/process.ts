/**
 * A server mcbridge launches: its own process group (detached), an argv (never a shell), output
 * handed on in chunks as they come (never gathered), and a stop that asks (`stop` on stdin),
 * then terminates and at last kills the group and every process carrying its launch marker.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { JournalEntry, ProcessJournal } from './journal.js';
import { findProcesses, MARKER_ENV, signalAll } from './procfs.js';

export interface OutputChunk {
  stream: 'stdout' | 'stderr' | 'mcbridge';
  data: Buffer;
}
export interface ExitInfo {
  code: number | null;
  signal: string | null;
  at: number;
  uptimeMs: number;
  requested: boolean;
  lastLines: string[];
}
export interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
export interface ServerProcessOptions {
  target: string;
  command: string[];
  cwd: string;
  /** Added to the daemon's environment. */
  env?: Record<string, string>;
  stopTimeoutMs: number;
  killGraceMs?: number;
  journal: ProcessJournal | null;
  /** Recorded in the journal: the next daemon adopts it if this one is killed. */
  adopt?: boolean;
  onOutput(chunk: OutputChunk): void;
  log: Log;
}

/** A launch that failed; `code` says which kind, the message what to fix. */
export class ServerProcessError extends Error {
  constructor(
    readonly code: 'spawn_failed' | 'journal_failed' | 'already_started' | 'not_started',
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ServerProcessError';
  }
}

const LAST_LINES = 50;
const LINE_BYTES = 1024;
const POLL_MS = 25;
const TAIL_BYTES = LAST_LINES * LINE_BYTES;

/** The last lines of the output, each cut to LINE_BYTES, a partial line never held past that. */
class LastLines {
  readonly lines: string[] = [];
  private partial = new Map<string, string>();

  add(stream: string, data: Buffer): void {
    // Only the tail of a big chunk can hold the last lines; a chunk's first line may be cut.
    const tail = data.length > TAIL_BYTES ? data.subarray(data.length - TAIL_BYTES) : data;
    const lines = ((data.length > TAIL_BYTES ? '' : (this.partial.get(stream) ?? '')) + tail.toString('utf8')).split('\n');
    this.partial.set(stream, lines.pop()!.slice(0, LINE_BYTES));
    for (const line of lines.slice(-LAST_LINES)) this.push(line);
  }

  flush(): void {
    for (const text of this.partial.values()) if (text) this.push(text);
    this.partial.clear();
  }

  private push(line: string): void {
    this.lines.push(line.length > LINE_BYTES ? `${line.slice(0, LINE_BYTES)}…` : line);
    if (this.lines.length > LAST_LINES) this.lines.shift();
  }
}

function spawnProblem(err: NodeJS.ErrnoException, command: string[]): string {
  const exe = JSON.stringify(command[0]);
  if (err.code === 'ENOENT') return `the command ${exe} was not found: give its full path, or put it on PATH`;
  if (err.code === 'EACCES') return `the command ${exe} may not be run: make it executable (chmod +x) or run it through its interpreter`;
  return `the command ${exe} could not be started: ${err.message}`;
}

/** Until nothing of group `pgid` or carrying `marker` runs, or `ms` passed; whether all are gone. */
export async function goneWithin(pgid: number | null, marker: string, trustGroup: boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { group, marked } = findProcesses(pgid, marker, trustGroup);
    if (group.length + marked.length === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** SIGTERM to the group and the marked, `graceMs`, then SIGKILL; whether anything was running. */
export async function terminate(pgid: number | null, marker: string, trustGroup: boolean, graceMs: number): Promise<boolean> {
  const first = findProcesses(pgid, marker, trustGroup);
  if (first.group.length + first.marked.length === 0) return false;
  signalAll(first.group.length > 0 ? pgid : null, first.marked, 'SIGTERM');
  if (await goneWithin(pgid, marker, trustGroup, graceMs)) return true;
  const rest = findProcesses(pgid, marker, trustGroup);
  signalAll(rest.group.length > 0 ? pgid : null, rest.marked, 'SIGKILL');
  await goneWithin(pgid, marker, trustGroup, 5_000);
  return true;
}

/** Kill (SIGTERM, then SIGKILL) every process carrying `marker`; whether there was any. */
export function killMarked(marker: string, graceMs = 2_000): Promise<boolean> {
  return terminate(null, marker, false, graceMs);
}

/** Stop what a gone daemon's journal lists (but what `keep` keeps, for a target to adopt), and clear its entries. */
export async function reapLeftovers(
  journal: ProcessJournal,
  log: Log,
  graceMs = 2_000,
  keep: (entry: JournalEntry) => boolean = () => false,
): Promise<Array<{ pid: number | null; command: string[]; target: string; killed: boolean }>> {
  const found = [];
  for (const entry of journal.orphaned()) {
    if (keep(entry)) continue;
    const killed = await terminate(entry.pgid, entry.marker, false, graceMs);
    if (killed) log.warn({ target: entry.target, pid: entry.pid, command: entry.command }, 'stopped a server left running by an earlier daemon');
    found.push({ pid: entry.pid, command: entry.command, target: entry.target, killed });
    await journal.remove(entry.id);
  }
  return found;
}

export class ServerProcess {
  private child: ChildProcess | null = null;
  private readonly marker = randomUUID();
  private readonly last = new LastLines();
  private requested = false;
  private startedAt = 0;
  private leaderExited: Promise<void> | null = null;
  private resolveExit!: (info: ExitInfo) => void;
  readonly exited: Promise<ExitInfo> = new Promise((resolve) => (this.resolveExit = resolve));

  constructor(private readonly opts: ServerProcessOptions) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  async start(): Promise<{ pid: number }> {
    const { command, cwd, journal, target } = this.opts;
    if (this.child) throw new ServerProcessError('already_started', `the server of '${target}' was started already; stop it first`);
    if (command.length === 0) throw new ServerProcessError('spawn_failed', `the launch command of '${target}' is empty: give the program and its arguments`);
    if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
      throw new ServerProcessError('spawn_failed', `the launch folder ${JSON.stringify(cwd)} of '${target}' is not a folder: create it or fix cwd`, { cwd });
    }
    const id = `${target}-${this.marker.slice(0, 8)}`;
    // Intent first: a daemon killed between this write and the spawn still leaves the marker to look for.
    await journal?.record({ id, target, command, cwd, startedAt: Date.now(), marker: this.marker, ...(this.opts.adopt ? { adopt: true } : {}) }).catch((err: Error) => {
      throw new ServerProcessError('journal_failed', `the process journal ${journal.file} cannot be written (${err.message}): nothing was launched; free the disk or fix the state folder`);
    });
    const child = spawn(command[0]!, command.slice(1), {
      cwd,
      env: { ...process.env, ...this.opts.env, [MARKER_ENV]: this.marker },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    } catch (err) {
      await journal?.remove(id).catch(() => undefined);
      throw new ServerProcessError('spawn_failed', spawnProblem(err as NodeJS.ErrnoException, command), { errno: (err as NodeJS.ErrnoException).code, command });
    }
    this.child = child;
    child.on('error', (err) => this.opts.log.warn({ target, err: String(err) }, 'the server process reported an error'));
    this.startedAt = Date.now();
    const pid = child.pid!;
    child.stdin!.on('error', () => undefined);
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream]!.on('data', (data: Buffer) => this.output(stream, data));
    }
    this.leaderExited = this.watch(child, id);
    await journal?.update(id, { pid, pgid: pid }).catch((err) => this.opts.log.warn({ err: String(err) }, 'the process journal could not record the pid'));
    this.opts.log.info({ target, pid, command }, 'server started');
    return { pid };
  }

  /** One console line on its stdin (a command of the server's own); false when it is not running. */
  send(line: string): boolean {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || this.child!.exitCode !== null) return false;
    stdin.write(`${line.replace(/[\r\n]/g, ' ')}\n`);
    return true;
  }

  /** Ask, then terminate, then kill; resolves once nothing of it runs. */
  async stop(reason = 'asked'): Promise<ExitInfo> {
    const child = this.child;
    if (!child || !this.leaderExited) throw new ServerProcessError('not_started', `the server of '${this.opts.target}' was never started`);
    if (child.exitCode === null && child.signalCode === null && !this.requested) {
      this.requested = true;
      this.note(`stopping (${reason}): sending stop`);
      this.send('stop');
      const { stopTimeoutMs, killGraceMs = 5_000 } = this.opts;
      if (!(await this.within(stopTimeoutMs))) {
        this.note(`no exit ${stopTimeoutMs} ms after stop: SIGTERM to its process group`);
        signalAll(child.pid!, [], 'SIGTERM');
        if (!(await this.within(killGraceMs))) {
          this.note(`no exit ${killGraceMs} ms after SIGTERM: SIGKILL to its process group`);
          signalAll(child.pid!, [], 'SIGKILL');
        }
      }
    }
    return this.exited;
  }

  private within(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([this.leaderExited!.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))]).finally(() => clearTimeout(timer));
  }

  private async watch(child: ChildProcess, id: string): Promise<void> {
    const closed = new Promise<void>((r) => child.once('close', () => r()));
    const [code, signal] = await new Promise<[number | null, string | null]>((r) => child.once('exit', (c, s) => r([c, s])));
    const at = Date.now();
    // The leader is gone; what it left (its group, escaped grandchildren) goes too.
    const leftover = await terminate(child.pid!, this.marker, true, this.opts.killGraceMs ?? 5_000);
    if (leftover) this.note('stopped processes the server left running');
    // Its last output may still be in the pipes; bounded, in case something unmarked holds them open.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise((r) => (timer = setTimeout(r, 2_000)))]).finally(() => clearTimeout(timer));
    this.last.flush();
    await this.opts.journal?.remove(id).catch(() => undefined);
    const info: ExitInfo = { code, signal, at, uptimeMs: at - this.startedAt, requested: this.requested, lastLines: [...this.last.lines] };
    const fields = { target: this.opts.target, code, signal };
    if (this.requested) this.opts.log.info(fields, 'server exited');
    else this.opts.log.warn(fields, 'server exited');
    this.resolveExit(info);
  }

  private output(stream: OutputChunk['stream'], data: Buffer): void {
    this.last.add(stream, data);
    try {
      this.opts.onOutput({ stream, data });
    } catch (err) {
      this.opts.log.error({ err: String(err) }, 'an output reader threw');
    }
  }

  private note(text: string): void {
    this.output('mcbridge', Buffer.from(`[mcbridge] ${text}\n`));
  }
}

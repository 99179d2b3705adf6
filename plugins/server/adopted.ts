/**
 * A server a killed daemon left running, taken over instead of stopped (`launch.adopt`). It is
 * nobody's child any more: no stdin (a stop is SIGTERM, which a Minecraft server answers by saving
 * and stopping), no console (its log comes from `logFile`, if configured), and its exit is seen by
 * polling for its process group and launch marker. It is recorded again as this daemon's, so a
 * second kill leaves it for the next daemon in turn.
 */
import type { JournalEntry, ProcessJournal } from './journal.js';
import { type ExitInfo, goneWithin, type Log, terminate } from './process.js';

const WATCH_MS = 250;

export class AdoptedProcess {
  private requested = false;
  private resolveExit!: (info: ExitInfo) => void;
  readonly exited: Promise<ExitInfo> = new Promise((resolve) => (this.resolveExit = resolve));

  constructor(
    private readonly entry: JournalEntry,
    private readonly opts: { stopTimeoutMs: number; journal: ProcessJournal; log: Log },
  ) {}

  get pid(): number | null {
    return this.entry.pid;
  }

  /** Recorded as this daemon's, then watched until nothing of it runs. */
  async adopt(): Promise<void> {
    const { journal } = this.opts;
    const { daemonPid: _d, daemonStart: _s, pid, pgid, ...rest } = this.entry;
    await journal.record(rest);
    await journal.update(rest.id, { pid, pgid });
    void this.watch();
  }

  /** SIGTERM to its group and marked processes, then SIGKILL after stopTimeout. */
  async stop(reason = 'asked'): Promise<ExitInfo> {
    if (!this.requested) {
      this.requested = true;
      this.opts.log.info({ target: this.entry.target, pid: this.entry.pid, reason }, 'stopping an adopted server: SIGTERM to its process group');
      await terminate(this.entry.pgid, this.entry.marker, false, this.opts.stopTimeoutMs);
    }
    return this.exited;
  }

  send(): boolean {
    return false;
  }

  private async watch(): Promise<void> {
    while (!(await goneWithin(this.entry.pgid, this.entry.marker, false, WATCH_MS))) {
      // Still running: look again.
    }
    const at = Date.now();
    await this.opts.journal.remove(this.entry.id).catch(() => undefined);
    this.resolveExit({ code: null, signal: null, at, uptimeMs: at - this.entry.startedAt, requested: this.requested, lastLines: [] });
  }
}

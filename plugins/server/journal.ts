/**
 * The launched children of this daemon, on disk: an entry is written (with a unique marker)
 * before a spawn, given its pid right after, and removed once its process group is gone. A
 * daemon that was SIGKILLed leaves its entries behind; the next run finds them (`leftovers`).
 */
import fs from 'node:fs';
import { readOwnFile, writeFileAtomic } from 'mcbridge/kit';
import { z } from 'zod';
import { alive, findProcesses, startTime } from './procfs.js';

const MAX_BYTES = 256 * 1024;
const MAX_ENTRIES = 256;

const entrySchema = z.object({
  id: z.string().max(128),
  target: z.string().max(256),
  command: z.array(z.string().max(4096)).max(256),
  cwd: z.string().max(4096),
  pid: z.number().int().positive().nullable(),
  pgid: z.number().int().positive().nullable(),
  startedAt: z.number(),
  daemonPid: z.number().int().positive(),
  /** The daemon's kernel start time: a pid reused since then is not that daemon. */
  daemonStart: z.string().max(32).nullable(),
  marker: z.string().min(8).max(128),
  /** Its target adopts it if a daemon dies (launch.adopt): the next run keeps it for that target. */
  adopt: z.boolean().optional(),
});
const fileSchema = z.object({ version: z.literal(1), entries: z.array(entrySchema).max(MAX_ENTRIES) });

export type JournalEntry = z.infer<typeof entrySchema>;
export interface Leftover {
  entry: JournalEntry;
  /** Its live processes: the group's (when a member carries the marker) and the marked ones. */
  pids: number[];
}
interface JournalLog {
  warn(obj: object, msg?: string): void;
}

const SELF_START = startTime(process.pid);

export class ProcessJournal {
  /** Why the file found was not used, and where it was moved; null when it read. */
  problem: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly log?: JournalLog,
  ) {}

  /** Every entry on disk (a corrupt file is set aside and reads as empty). */
  entries(): JournalEntry[] {
    const read = readOwnFile(this.file, MAX_BYTES, 'a process journal');
    if (read === null) return [];
    let problem: string;
    if ('text' in read) {
      try {
        const parsed = fileSchema.safeParse(JSON.parse(read.text));
        if (parsed.success) return parsed.data.entries;
        problem = `it is not a process journal: ${parsed.error.issues[0]?.path.join('.') || 'top'}: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
      } catch {
        problem = 'it is not JSON (cut short, or not written by mcbridge)';
      }
    } else problem = read.problem;
    const aside = `${this.file}.corrupt-${Date.now()}`;
    try {
      fs.renameSync(this.file, aside);
      this.problem = `${problem}; moved to ${aside}`;
    } catch {
      this.problem = problem;
    }
    this.log?.warn({ file: this.file, problem: this.problem }, 'the process journal was not usable; processes it listed are not reaped');
    return [];
  }

  /** Record the intent to launch, before the spawn: a crash between the two still leaves the marker to look for. */
  record(entry: Omit<JournalEntry, 'daemonPid' | 'daemonStart' | 'pid' | 'pgid'>): Promise<JournalEntry> {
    const full: JournalEntry = { ...entry, pid: null, pgid: null, daemonPid: process.pid, daemonStart: SELF_START };
    return this.change((all) => [...all.filter((e) => e.id !== full.id), full]).then(() => full);
  }

  update(id: string, patch: Partial<Pick<JournalEntry, 'pid' | 'pgid'>>): Promise<void> {
    return this.change((all) => all.map((e) => (e.id === id ? { ...e, ...patch } : e)));
  }

  remove(id: string): Promise<void> {
    return this.change((all) => all.filter((e) => e.id !== id));
  }

  /** Entries of daemons that are gone (or of an earlier run of this pid) whose processes still run. */
  leftovers(): Leftover[] {
    const found: Leftover[] = [];
    for (const entry of this.entries()) {
      if (!daemonGone(entry)) continue;
      const { group, marked } = findProcesses(entry.pgid, entry.marker, false);
      if (group.length + marked.length > 0) found.push({ entry, pids: [...group, ...marked] });
    }
    return found;
  }

  /** Entries of gone daemons (running or not). */
  orphaned(): JournalEntry[] {
    return this.entries().filter(daemonGone);
  }

  /** Read, change and write whole, one change at a time (several servers share the file). */
  private change(fn: (all: JournalEntry[]) => JournalEntry[]): Promise<void> {
    const next = this.queue.then(async () => {
      const entries = fn(this.entries()).slice(-MAX_ENTRIES);
      await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, entries }, null, 1)}\n`);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function daemonGone(entry: JournalEntry): boolean {
  if (entry.daemonPid === process.pid) return entry.daemonStart !== SELF_START;
  if (!alive(entry.daemonPid)) return true;
  const start = startTime(entry.daemonPid);
  return start !== null && entry.daemonStart !== null && start !== entry.daemonStart;
}

/**
 * The world journal: what a running fork or restore has changed in the game and not yet put
 * back (the tick state, forceloads, a fork folder being written), recorded BEFORE each change.
 * A daemon killed mid-operation leaves it behind; the next one (on start, and on each connect to
 * the mod) undoes what it says (./recovery.ts). Written atomically (temp file, rename); read back
 * as hostile input: bounded, validated, and only commands of the shapes written here are replayed.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { McbridgeError } from 'mcbridge';

/** The folder beside the config (ctx.configDir) that holds journals. */
const JOURNAL_DIR = '.mcbridge';
/** A journal is a few hundred bytes; anything much larger is not one. */
const MAX_JOURNAL_BYTES = 64 * 1024;
/** `forceload remove <x1> <z1> <x2> <z2>`, block coordinates: nothing else is ever sent from a journal. */
const FORCELOAD_REMOVE = /^forceload remove -?\d{1,8} -?\d{1,8} -?\d{1,8} -?\d{1,8}$/;

const journalSchema = z
  .object({
    protocol: z.literal(1),
    op: z.enum(['fork', 'restore']),
    pid: z.number().int().positive(),
    startedAt: z.number().int().nonnegative(),
    game: z.string().max(300),
    tick: z
      .object({ before: z.enum(['frozen', 'running']), changed: z.boolean() })
      .strict()
      .nullable(),
    forceloads: z.array(z.string().regex(FORCELOAD_REMOVE)).max(16),
    forkDir: z.string().min(1).max(4096).nullable(),
  })
  .strict();
export type JournalRecord = z.infer<typeof journalSchema>;
export type JournalChange = Partial<Pick<JournalRecord, 'tick' | 'forceloads' | 'forkDir'>>;

/** The journal of the game at `game` (`host:port` of its mod), under the config's folder. */
export function journalFile(configDir: string, game: string): string {
  return path.join(configDir, JOURNAL_DIR, `world-journal-${game.replace(/[^A-Za-z0-9.-]/g, '_')}.json`);
}

/** Temp file and rename: a reader sees the old journal or the new one, never half of one. */
export async function writeAtomically(file: string, record: JournalRecord): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(temp, `${JSON.stringify(record)}\n`);
  await fsp.rename(temp, file);
}

/** Nothing left to undo. */
export const isEmpty = (r: Pick<JournalRecord, 'tick' | 'forceloads' | 'forkDir'>) => !r.tick?.changed && r.forceloads.length === 0 && r.forkDir === null;

/** One operation's journal: each change is written before the game or disk is touched. */
export class WorldJournal {
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    readonly file: string,
    private record: JournalRecord,
  ) {}

  /** Start a journal; refuses the operation (nothing changed yet) when it cannot be written. */
  static async begin(file: string, op: JournalRecord['op'], game: string): Promise<WorldJournal> {
    const journal = new WorldJournal(file, { protocol: 1, op, pid: process.pid, startedAt: Date.now(), game, tick: null, forceloads: [], forkDir: null });
    try {
      await writeAtomically(file, journal.record);
    } catch (err) {
      throw new McbridgeError(
        'unavailable',
        `cannot write the world journal ${file} (${(err as Error).message}); nothing was changed. ` +
          "The journal lets a restarted daemon undo what a killed one left; free the disk or fix the folder's permissions and retry",
        { file },
      );
    }
    return journal;
  }

  /** Record a change (or an undo); writes are kept in order. */
  update(change: JournalChange): Promise<void> {
    this.record = { ...this.record, ...change };
    const snapshot = this.record;
    const write = this.writes.then(() => writeAtomically(this.file, snapshot));
    this.writes = write.catch(() => undefined);
    return write;
  }

  /** The operation is over: the journal goes, unless something is left to undo (recovery will). */
  async end(): Promise<void> {
    await this.writes;
    if (isEmpty(this.record)) await fsp.rm(this.file, { force: true });
  }
}

export type JournalRead = { record: JournalRecord } | { problem: string } | null;

/** The journal at `file`, checked; null when there is none. */
export async function readJournal(file: string): Promise<JournalRead> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { problem: `cannot open it: ${(err as Error).message}` };
  }
  try {
    const buffer = Buffer.alloc(MAX_JOURNAL_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_JOURNAL_BYTES) return { problem: `it is over ${MAX_JOURNAL_BYTES} bytes, so it is not a journal` };
    let json: unknown;
    try {
      json = JSON.parse(buffer.subarray(0, bytesRead).toString('utf8'));
    } catch {
      return { problem: 'it is not JSON' };
    }
    const parsed = journalSchema.safeParse(json);
    if (!parsed.success) return { problem: `it is not a journal this daemon wrote: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
    return { record: parsed.data };
  } finally {
    await handle.close();
  }
}

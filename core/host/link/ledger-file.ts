/**
 * The write ledger on disk: one file per target in the daemon's state folder, so a restarted
 * daemon still knows which writes may have run (docs/control.md, "Writes whose result is
 * unknown"). Replaced whole and atomically (StateFile); read back bounded and checked, and a
 * file that is not one this daemon wrote is set aside, never a reason not to start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { StateFile, type StateFileStatus } from '../../util/state-file.js';
import { isErrorCode } from '../errors.js';
import { exceedsJsonDepth, MAX_MOD_LINE_DEPTH } from '../../util/json-depth.js';
import type { Logger } from '../../util/log.js';

/** The daemon's state folder, beside its config (the working directory without one). */
export const STATE_DIR = '.mcbridge';
const FORMAT = 'mcbridge-write-ledger';
/** Entries the file may list: the ledger's 1024 settled ones and writes still in flight. */
export const MAX_FILE_ENTRIES = 8192;
/** The ledger's 16 MiB of answers, its entries' overhead and room for JSON's escapes. */
export const MAX_FILE_BYTES = 48 * 1024 * 1024;
/** A reply's own nesting as a mod line may have it, and the file's envelope around it. */
const MAX_FILE_DEPTH = MAX_MOD_LINE_DEPTH + 8;
/** How long a write waits for its `pending` entry to reach the disk before it goes unsafe. */
export const DURABLE_WAIT_MS = 5_000;

export function ledgerFileOf(stateDir: string, target: string): string {
  return path.join(stateDir, `write-ledger-${target.replace(/[^A-Za-z0-9.-]/g, '_')}.json`);
}

const common = { id: z.string().min(1).max(128), at: z.number().int().nonnegative(), fingerprint: z.string().regex(/^[0-9a-f]{32}$/), operation: z.string().max(64) };
const storedError = z.object({ code: z.string().refine(isErrorCode, 'not an error code'), message: z.string().max(65_536), details: z.record(z.string(), z.unknown()).optional() });
const storedEntry = z.union([
  z.object({ ...common, state: z.literal('pending') }),
  z.object({ ...common, state: z.literal('completed'), reply: z.looseObject({ type: z.string().max(128) }) }),
  z.object({ ...common, state: z.enum(['failed', 'unknown']), error: storedError }),
]);
const fileSchema = z.object({ format: z.literal(FORMAT), version: z.literal(1), savedAt: z.number(), entries: z.array(storedEntry).max(MAX_FILE_ENTRIES) });

export type StoredEntry = z.infer<typeof storedEntry>;

export type LedgerRead = { entries: StoredEntry[] } | { problem: string } | null;

/** The ledger at `file`, checked; null when there is none. Synchronous: it is read once, before the first write. */
export function readLedgerFile(file: string): LedgerRead {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { problem: `cannot open it: ${(err as Error).message}` };
  }
  let text: string;
  try {
    const size = fs.fstatSync(fd).size;
    if (size > MAX_FILE_BYTES) return { problem: `it is ${size} bytes, over the ${MAX_FILE_BYTES} a write ledger can take` };
    const buffer = Buffer.alloc(size);
    const read = fs.readSync(fd, buffer, 0, size, 0);
    text = buffer.subarray(0, read).toString('utf8');
  } catch (err) {
    return { problem: `cannot read it: ${(err as Error).message}` };
  } finally {
    fs.closeSync(fd);
  }
  if (exceedsJsonDepth(text, MAX_FILE_DEPTH)) return { problem: `it nests deeper than ${MAX_FILE_DEPTH} levels` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: 'it is not JSON (cut short, or not written by mcbridge)' };
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { problem: `it is not a write ledger this daemon wrote: ${issue?.path.join('.') || 'top'}: ${issue?.message ?? 'invalid'}` };
  }
  return { entries: parsed.data.entries };
}

export interface LedgerFileStatus extends StateFileStatus {
  /** Entries read back at start. */
  loaded: number;
  /** Why the file found at start was not used, and where it was moved. */
  problem: string | null;
  setAside: string | null;
  /** Writes sent although their `pending` entry could not be put on disk first. */
  unsafeSends: number;
}

/**
 * The file side of a ledger: each entry's JSON kept as it changes, so a write renders a join,
 * not the whole ledger again; `durable()` before a write is sent, `changed()` when one settles.
 */
export class LedgerFile {
  readonly file: string;
  private readonly encoded = new Map<string, string>();
  private readonly state: StateFile;
  private readonly log: Logger;
  private loadedCount = 0;
  private problem: string | null = null;
  private setAside: string | null = null;
  private unsafe = 0;

  constructor(file: string, log: Logger) {
    this.file = file;
    this.log = log;
    this.state = new StateFile(file, {
      render: () => `{"format":"${FORMAT}","version":1,"savedAt":${Date.now()},"entries":[${[...this.encoded.values()].join(',')}]}`,
      onFailure: (err) =>
        log.warn(
          { file, code: err.code },
          `cannot save the write ledger to ${file} (${err.message}): writes still go, but a daemon restart will not know which may have run. Free the disk or fix the folder's permissions`,
        ),
      onRecovery: () => log.info({ file }, `the write ledger is saved to ${file} again`),
    });
  }

  /** What the file held at start; a bad file is moved aside (and said in the log and `status`). */
  load(): StoredEntry[] {
    const read = readLedgerFile(this.file);
    if (read === null) return [];
    if ('entries' in read) {
      this.loadedCount = read.entries.length;
      return read.entries;
    }
    this.problem = read.problem;
    const aside = `${this.file}.bad-${Date.now()}`;
    try {
      fs.renameSync(this.file, aside);
      this.setAside = aside;
    } catch {
      // Unmovable: the next write replaces it.
    }
    this.log.warn(
      { file: this.file, setAside: this.setAside },
      `the write ledger ${this.file} was not used: ${read.problem}${this.setAside ? `; moved to ${this.setAside}` : ''}. Writes of the previous run are not known`,
    );
    return [];
  }

  put(id: string, stored: StoredEntry): void {
    this.encoded.set(id, JSON.stringify(stored));
  }

  remove(id: string): void {
    this.encoded.delete(id);
  }

  changed(): void {
    this.state.changed();
  }

  /** Until what was put is on disk, or plainly cannot be (a full disk, a stuck one): never rejects. */
  async durable(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), DURABLE_WAIT_MS);
    });
    const saved = await Promise.race([this.state.durable(), stuck]);
    clearTimeout(timer);
    if (!saved) this.unsafe += 1;
  }

  /** The last state written, then no more writes on schedule. */
  async close(): Promise<void> {
    await this.state.flush();
    this.state.close();
  }

  status(): LedgerFileStatus {
    return { ...this.state.status(), loaded: this.loadedCount, problem: this.problem, setAside: this.setAside, unsafeSends: this.unsafe };
  }
}

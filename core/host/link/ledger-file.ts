/**
 * The write ledger on disk: one file per target in the daemon's state folder, so a restarted
 * daemon still knows which writes may have run (docs/control.md, "Writes whose result is
 * unknown"). Replaced whole and atomically (StateFile); read back bounded and checked, and a
 * file that is not one this daemon wrote is set aside, never a reason not to start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readOwnFile, StateFile, type StateFileStatus } from '../../util/state-file.js';
import { isErrorCode } from '../errors.js';
import { exceedsJsonDepth, MAX_MOD_LINE_DEPTH } from '../../util/json-depth.js';
import type { Logger } from '../../util/log.js';
import { lockLedger, unlockLedger } from './ledger-lock.js';

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
  z.object({ ...common, state: z.literal('completed'), reply: z.looseObject({ type: z.string().max(65_536) }) }),
  z.object({ ...common, state: z.enum(['failed', 'unknown']), error: storedError }),
]);
/** The envelope is checked whole; its entries one by one, so one bad entry costs itself, not the file (as the webhook spool reads). */
const fileSchema = z.object({ format: z.literal(FORMAT), version: z.literal(1), target: z.string().max(64), savedAt: z.number(), entries: z.array(z.unknown()).max(MAX_FILE_ENTRIES) });

export type StoredEntry = z.infer<typeof storedEntry>;

/** `skipped`: entries that did not read (wrong shape or type) and were left out, the rest used. */
export type LedgerRead = { entries: StoredEntry[]; skipped: number } | { problem: string } | null;

/** The target a ledger file is named for (ledgerFileOf: a target name is letters, digits, `.`, `_`, `-`, kept as it is). */
export function targetOfFile(file: string): string {
  const name = path.basename(file);
  return /^write-ledger-(.+)\.json$/.exec(name)?.[1] ?? name;
}

/**
 * The read entries as a restore may trust them: a time in the future (a clock set back, a hand
 * edit) taken as now, so it neither outlives the 30 minutes nor stops the pruning of older ones;
 * oldest first; an id listed twice with different contents kept as a write that may have run.
 */
function trusted(entries: StoredEntry[], now: number): StoredEntry[] {
  const byId = new Map<string, StoredEntry>();
  for (const raw of entries) {
    const entry = raw.at > now ? { ...raw, at: now } : raw;
    const seen = byId.get(entry.id);
    if (seen === undefined || JSON.stringify(seen) === JSON.stringify(entry)) {
      byId.set(entry.id, entry);
      continue;
    }
    byId.set(entry.id, {
      id: entry.id,
      at: Math.max(seen.at, entry.at),
      fingerprint: entry.fingerprint,
      operation: entry.operation,
      state: 'unknown',
      error: { code: 'unavailable', message: 'the write ledger file listed it twice, with different contents' },
    });
  }
  return [...byId.values()].sort((a, b) => a.at - b.at);
}

/** The ledger of `target` at `file`, checked; null when there is none. Synchronous: it is read once, before the first write. */
export function readLedgerFile(file: string, target = targetOfFile(file)): LedgerRead {
  const read = readOwnFile(file, MAX_FILE_BYTES, 'a write ledger');
  if (read === null || 'problem' in read) return read;
  const { text } = read;
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
  // Another target's writes answered here would cross two games' data.
  if (parsed.data.target !== target) return { problem: `it is the write ledger of target '${parsed.data.target.slice(0, 64)}', not of '${target}'` };
  const entries: StoredEntry[] = [];
  for (const raw of parsed.data.entries) {
    const entry = storedEntry.safeParse(raw);
    if (entry.success) entries.push(entry.data);
  }
  return { entries: trusted(entries, Date.now()), skipped: parsed.data.entries.length - entries.length };
}

export interface LedgerFileStatus extends StateFileStatus {
  /** Entries read back at start. */
  loaded: number;
  /** Entries of that file that did not read and were left out (the file was copied aside as `setAside`). */
  skipped: number;
  /** Why the file found at start was not used (or only in part), and where it was moved or copied. */
  problem: string | null;
  setAside: string | null;
  /** Another daemon (or target) writes this file: this ledger is kept in memory only. */
  heldBy: string | null;
  /** The disk has not finished a write for DURABLE_WAIT_MS: writes go without waiting until it does. */
  stuck: boolean;
  /** Writes sent although their `pending` entry could not be put on disk first. */
  unsafeSends: number;
}

/**
 * The file side of a ledger: each entry's JSON kept as it changes, so a write renders a join,
 * not the whole ledger again; `durable()` before a write is sent, `changed()` when one settles.
 */
export class LedgerFile {
  readonly file: string;
  readonly target: string;
  private readonly encoded = new Map<string, string>();
  private readonly state: StateFile;
  private readonly log: Logger;
  private loadedCount = 0;
  private skipped = 0;
  private problem: string | null = null;
  private setAside: string | null = null;
  private heldBy: string | null = null;
  private stuck = false;
  private locked = false;
  private unsafe = 0;

  constructor(file: string, log: Logger) {
    this.file = file;
    this.target = targetOfFile(file);
    this.log = log;
    this.state = new StateFile(file, {
      render: () => `{"format":"${FORMAT}","version":1,"target":${JSON.stringify(this.target)},"savedAt":${Date.now()},"entries":[${[...this.encoded.values()].join(',')}]}`,
      onFailure: (err) =>
        log.warn(
          { file, code: err.code },
          `cannot save the write ledger to ${file} (${err.message}): writes still go, but a daemon restart will not know which may have run. Free the disk or fix the folder's permissions`,
        ),
      onRecovery: () => log.info({ file }, `the write ledger is saved to ${file} again`),
    });
  }

  /** What the file held at start; a bad file is moved aside (and said in the log and `status`). A file another daemon holds is not touched. */
  load(): StoredEntry[] {
    const lock = lockLedger(this.file);
    if (!lock.held) {
      this.heldBy = lock.by;
      this.log.warn(
        { file: this.file, heldBy: lock.by },
        `the write ledger ${this.file} is in use by ${lock.by}: this one is kept in memory only, so a restart of this daemon will not know which of its writes may have run. Give each daemon a state folder of its own (MCBRIDGE_STATE_DIR)`,
      );
      return [];
    }
    this.locked = true;
    const read = readLedgerFile(this.file, this.target);
    if (read === null) return [];
    if ('entries' in read) {
      this.loadedCount = read.entries.length;
      if (read.skipped > 0) this.damaged(read.skipped);
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

  /** Some entries did not read: the rest are used, the file as found is copied aside for a look, and rewritten soon. */
  private damaged(skipped: number): void {
    this.skipped = skipped;
    this.problem = `${skipped} of its entries did not read and were left out`;
    const aside = `${this.file}.bad-${Date.now()}`;
    try {
      fs.copyFileSync(this.file, aside, fs.constants.COPYFILE_EXCL);
      this.setAside = aside;
    } catch {
      // Nothing to keep it in: the next write replaces it.
    }
    this.log.warn(
      { file: this.file, skipped, setAside: this.setAside },
      `the write ledger ${this.file}: ${this.problem}${this.setAside ? ` (the file as found is copied to ${this.setAside})` : ''}; their writes are not known`,
    );
    this.state.changed();
  }

  put(id: string, stored: StoredEntry): void {
    this.encoded.set(id, JSON.stringify(stored));
  }

  remove(id: string): void {
    this.encoded.delete(id);
  }

  changed(): void {
    if (this.heldBy === null) this.state.changed();
  }

  /**
   * Until what was put is on disk, or plainly cannot be: a failed write (a full disk) at once, a
   * write not done in DURABLE_WAIT_MS (a stuck disk) after it, and then at once until one is
   * done. Never rejects: the write goes, counted in `unsafeSends` (docs/control.md).
   */
  async durable(): Promise<void> {
    if (this.heldBy !== null || this.stuck) {
      this.unsafe += 1;
      return;
    }
    const saved = this.state.durable();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), DURABLE_WAIT_MS);
    });
    const outcome = await Promise.race([saved, late]);
    clearTimeout(timer);
    if (outcome === true) return;
    this.unsafe += 1;
    if (outcome !== 'late') return;
    this.stuck = true;
    this.log.warn(
      { file: this.file },
      `the write ledger ${this.file} has not reached the disk in ${DURABLE_WAIT_MS} ms: writes go on without waiting for it until a save ends, and a daemon restart meanwhile will not know which may have run`,
    );
    void saved.then(() => {
      this.stuck = false;
      this.log.info({ file: this.file }, `the write ledger ${this.file} reaches the disk again`);
    });
  }

  /** The last state written, then no more writes on schedule, and the file given up for the next daemon. */
  async close(): Promise<void> {
    if (this.heldBy === null && !this.stuck) await this.state.flush();
    this.state.close();
    if (this.locked) unlockLedger(this.file);
    this.locked = false;
  }

  status(): LedgerFileStatus {
    return {
      ...this.state.status(),
      loaded: this.loadedCount,
      skipped: this.skipped,
      problem: this.problem,
      setAside: this.setAside,
      heldBy: this.heldBy,
      stuck: this.stuck,
      unsafeSends: this.unsafe,
    };
  }
}

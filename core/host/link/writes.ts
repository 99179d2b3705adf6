/**
 * Writes (verbs declared `write: true`): their request ids, what an error says of them, and the
 * ledger that keeps a write's answer by id, so that sending one id again never runs it twice
 * (docs/control.md, "Writes whose result is unknown").
 */
import { createHash, randomBytes } from 'node:crypto';
import { McbridgeError, type ErrorCode } from '../errors.js';
import type { Logger } from '../../util/log.js';
import { LedgerFile, type LedgerFileStatus, type StoredEntry } from './ledger-file.js';
import type { ModReply } from './replies.js';

/** What a caller may give as a request id: what control protocol 1 takes (1..128 characters), printable, no spaces. */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** `<16 hex nonce>-<counter>`: a new nonce per link, so ids never repeat across daemon runs. */
export class RequestIds {
  private readonly nonce = randomBytes(8).toString('hex');
  private counter = 0;

  constructor(private readonly prefix = '') {}

  next(): string {
    this.counter += 1;
    return `${this.prefix}${this.nonce}-${this.counter}`;
  }
}

export function checkRequestId(id: string): string {
  if (!REQUEST_ID.test(id)) {
    throw new McbridgeError('invalid_params', `request id '${id.slice(0, 40)}' is not usable: 1 to 128 letters, digits or . _ : -`);
  }
  return id;
}

/** Refusals that prove the game did not run the write: sending it again does the same. */
const DEFINITE: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['mod_error', 'invalid_params', 'unsupported_capability', 'forbidden', 'conflict', 'not_found', 'unauthorized']);

/**
 * A write's error with its outcome: refused outright, never sent (safe to send again), or sent
 * with no answer (it may have run: resolve it, never send it blindly again). An outcome the error
 * already has (the control protocol's own) stays.
 */
export function withWriteOutcome(err: McbridgeError, sent: boolean, requestId: string): McbridgeError {
  if (err.outcome) return err;
  if (DEFINITE.has(err.code)) return err.withOutcome({ retryable: false, resultUnknown: false, requestId });
  return err.withOutcome(sent ? { retryable: false, resultUnknown: true, requestId } : { retryable: true, resultUnknown: false, requestId });
}

type Settled = { state: 'completed'; reply: ModReply } | { state: 'unknown' | 'failed'; error: McbridgeError };
/** `previous`: sent by an earlier daemon run (read back from the file) whose answer it never had. */
type Entry = { at: number; fingerprint: string; bytes: number; operation: string; previous?: true } & ({ state: 'pending' } | Settled);

export const LEDGER_ENTRIES = 1024;
export const LEDGER_MS = 30 * 60_000;
/** All kept answers together (a count bound alone let 254 answers of 8 MiB take the daemon down). */
export const LEDGER_BYTES = 16 * 1024 * 1024;
/** An answer bigger than this is kept as a cut: its small fields, its size and digest, said as such. */
export const KEEP_WHOLE_BYTES = 64 * 1024;
/** A field of a cut answer is kept when its JSON is at most this long. */
const SMALL_FIELD_BYTES = 512;
const ENTRY_OVERHEAD = 256;
/** Writes in flight (admitted, not answered) one ledger tracks: each is kept until it settles, so the file stays readable. */
export const MAX_IN_FLIGHT = 4096;
/** A kept error's message and details: an answer repeated to a resend, not a log (a mod's error may echo megabytes). */
export const KEEP_ERROR_CHARS = 4096;

/** What a write asked (its verb and arguments), so an id reused for another payload is told apart. */
export function fingerprintOf(line: string): string {
  return createHash('sha256').update(line).digest('hex').slice(0, 32);
}

/** A reply as the ledger keeps it, and its size: whole when small, else a cut that says it is one. */
export function keptReply(reply: ModReply): { reply: ModReply; bytes: number } {
  const json = JSON.stringify(reply) ?? 'null';
  const size = Buffer.byteLength(json);
  if (size <= KEEP_WHOLE_BYTES) return { reply, bytes: size };
  const cut: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(reply)) {
    if ((JSON.stringify(value)?.length ?? 0) <= SMALL_FIELD_BYTES) cut[key] = value;
    else dropped.push(key);
  }
  const kept = {
    ...cut,
    type: reply.type,
    truncated: true,
    originalBytes: size,
    sha256: createHash('sha256').update(json).digest('hex'),
    droppedFields: dropped.slice(0, 32),
    note: `the stored answer was ${size} bytes; only its small fields were kept (the first answer had it whole)`,
  } as ModReply;
  return { reply: kept, bytes: Buffer.byteLength(JSON.stringify(kept)) };
}

/** An error as the ledger keeps it: its message and details bounded, a cut said as such, its code and outcome whole. */
export function keptError(error: McbridgeError): McbridgeError {
  const long = error.message.length > KEEP_ERROR_CHARS;
  const details = error.details === undefined || (JSON.stringify(error.details)?.length ?? 0) <= KEEP_ERROR_CHARS ? error.details : { detailsCut: true };
  if (!long && details === error.details) return error;
  // The cut and its note within the bound: read back, it is not cut again.
  const message = long ? `${error.message.slice(0, KEEP_ERROR_CHARS - 40)}… (cut: ${error.message.length} characters)` : error.message;
  const kept = new McbridgeError(error.code, message, details);
  return error.outcome ? kept.withOutcome(error.outcome) : kept;
}

/** A failure's share of the ledger's bytes. */
function errorBytes(error: McbridgeError): number {
  return ENTRY_OVERHEAD + Buffer.byteLength(error.message) + Buffer.byteLength(JSON.stringify(error.details ?? null) ?? '');
}

/** The verb a write line starts with, which `request_status` names as its operation. */
function operationOf(line: string): string {
  return (line.split(' ', 1)[0] ?? '').toUpperCase().slice(0, 64);
}

/** An entry as the file holds it. */
function toStored(id: string, entry: Entry): StoredEntry {
  const base = { id, at: entry.at, fingerprint: entry.fingerprint, operation: entry.operation };
  if (entry.state === 'completed') return { ...base, state: 'completed', reply: entry.reply };
  if (entry.state === 'pending') return { ...base, state: 'pending' };
  const { code, message, details } = entry.error;
  return { ...base, state: entry.state, error: { code, message, ...(details === undefined ? {} : { details }) } };
}

/**
 * The answers of this link's recent writes by request id, bounded like the mod's own (1024
 * entries, 30 minutes) and by bytes. The legacy mod keeps none, so this is what makes a resent
 * id safe there. With a file (the daemon's state folder), it outlives the daemon: each write's
 * `pending` entry is on disk before the write is sent, and a restarted daemon reads it back.
 */
export class WriteLedger {
  private readonly entries = new Map<string, Entry>();
  private bytesHeld = 0;
  private inFlight = 0;
  private readonly file: LedgerFile | null;

  constructor(
    private readonly maxBytes = LEDGER_BYTES,
    persist?: { file: string; log: Logger },
  ) {
    this.file = persist ? new LedgerFile(persist.file, persist.log) : null;
    if (this.file) this.restore(this.file.load());
  }

  /**
   * Before sending `id`: null when it is new (now pending), else the answer that stands:
   * the stored reply marked `duplicate`, or an error saying why it is not sent again
   * (`conflict` when the id was used for another payload).
   */
  admit(id: string, line: string, resendUnknown = false): ModReply | McbridgeError | null {
    this.prune();
    const known = this.entries.get(id);
    const fingerprint = fingerprintOf(line);
    if (known && known.fingerprint !== fingerprint) {
      return new McbridgeError(
        'conflict',
        `request id ${id} was already used for another write, so '${line.slice(0, 120)}' was not sent. Use a new request id for a new write`,
        { requestId: id },
        { retryable: false, resultUnknown: false, requestId: id },
      );
    }
    // The server's own ledger answers an unknown id sent again, but only within its run: one of an earlier daemon's is never resent.
    if (!known || (resendUnknown && known.state === 'unknown' && !known.previous)) {
      if (this.inFlight >= MAX_IN_FLIGHT) {
        return new McbridgeError(
          'busy',
          `${this.inFlight} writes are in flight on this target, the most the daemon tracks, so '${line.slice(0, 120)}' was not sent. Wait for some to be answered, then send it again (with the same request id: it is safe)`,
          { requestId: id, inFlight: this.inFlight },
          { retryable: true, resultUnknown: false, requestId: id },
        );
      }
      this.put(id, { state: 'pending', at: Date.now(), fingerprint, operation: operationOf(line), bytes: ENTRY_OVERHEAD });
      return null;
    }
    if (known.state === 'completed') return { ...known.reply, duplicate: true, requestId: id };
    if (known.state === 'pending') {
      return new McbridgeError(
        'busy',
        `request ${id} is still in flight; wait for its answer instead of sending '${line}' again`,
        { requestId: id },
        { retryable: false, resultUnknown: true, requestId: id },
      );
    }
    if (known.state === 'failed') return known.error;
    const when = known.previous ? 'before the daemon restarted' : '';
    return new McbridgeError(
      'busy',
      `request ${id} was sent ${when ? `${when} ` : ''}and its answer never came, so it may have run: it is not sent again. ` +
        `Resolve it with \`mcbridge request-status ${id}\` (the request_status tool) or check the game (state, events), then use a new request id if it did not run`,
      { requestId: id, previous: known.error.message },
      { retryable: false, resultUnknown: true, requestId: id },
    );
  }

  /** Until the entries admitted so far are on disk (or cannot be put there): null without a file. */
  durable(): Promise<void> | null {
    return this.file ? this.file.durable() : null;
  }

  /** What became of `id`; a write this ledger never admitted is left alone (a stray answer resolves nothing). */
  settle(id: string, reply: ModReply | null, error: McbridgeError | null): void {
    const known = this.entries.get(id);
    if (!known) return;
    const at = Date.now();
    const { fingerprint, operation } = known;
    if (error === null) {
      const kept = keptReply(reply ?? { type: 'result' });
      this.put(id, { state: 'completed', at, fingerprint, operation, bytes: ENTRY_OVERHEAD + kept.bytes, reply: kept.reply });
    } else if (error.outcome?.retryable) this.remove(id);
    else {
      const kept = keptError(error);
      this.put(id, { state: error.outcome?.resultUnknown ? 'unknown' : 'failed', at, fingerprint, operation, bytes: errorBytes(kept), error: kept });
    }
    this.prune();
  }

  /** What this daemon knows of `id`, as `request_status` answers it (`source: 'daemon'`). */
  statusOf(id: string): ModReply {
    this.prune();
    const entry = this.entries.get(id);
    const base = { type: 'result', requestId: id, source: 'daemon' };
    if (!entry) {
      return { ...base, state: 'unknown', note: 'this daemon has no record of it (never sent through it, or older than its last 1024 writes or 30 minutes): check the game itself' };
    }
    const known = { ...base, operation: entry.operation, updatedAtMillis: entry.at };
    if (entry.state === 'completed') return { ...known, state: 'completed', result: entry.reply };
    if (entry.state === 'pending') return { ...known, state: 'pending' };
    const error = { code: entry.error.code, message: entry.error.message };
    if (entry.state === 'failed') return { ...known, state: 'failed', error };
    return {
      ...known,
      state: 'unknown',
      sent: true,
      error,
      note: `it was sent ${entry.previous ? 'before the daemon restarted ' : ''}and its answer never came, so it may have run: check the game (state, events) and do not send it again blindly`,
    };
  }

  /** Writes whose answer never came, oldest first. */
  unknownIds(): string[] {
    return [...this.entries].filter(([, e]) => e.state === 'unknown').map(([id]) => id);
  }

  isUnknown(id: string): boolean {
    return this.entries.get(id)?.state === 'unknown';
  }

  get size(): number {
    return this.entries.size;
  }

  /** The bytes its entries hold (bounded by `maxBytes`, besides writes still in flight). */
  get bytes(): number {
    return this.bytesHeld;
  }

  /** For `status`: how many it holds, how many are unknown, their bytes, and its file's health. */
  summary(): { tracked: number; unknown: number; bytes: number; file?: LedgerFileStatus } {
    return { tracked: this.entries.size, unknown: this.unknownIds().length, bytes: this.bytesHeld, ...(this.file ? { file: this.file.status() } : {}) };
  }

  /** Its last state on disk (a stopping link). */
  async close(): Promise<void> {
    await this.file?.close();
  }

  /** A previous run's entries: bounded as new ones are, and those it never had an answer for may have run. */
  private restore(stored: StoredEntry[]): void {
    for (const s of stored) {
      if (!REQUEST_ID.test(s.id)) continue;
      const base = { at: s.at, fingerprint: s.fingerprint, operation: s.operation };
      if (s.state === 'completed') {
        const kept = keptReply(s.reply);
        this.put(s.id, { ...base, state: 'completed', reply: kept.reply, bytes: ENTRY_OVERHEAD + kept.bytes });
        continue;
      }
      const cause =
        s.state === 'pending' ? new McbridgeError('unavailable', 'the daemon stopped before its answer came') : new McbridgeError(s.error.code as ErrorCode, s.error.message, s.error.details);
      const state = s.state === 'failed' ? 'failed' : 'unknown';
      const error = keptError(cause.withOutcome({ retryable: false, resultUnknown: state === 'unknown', requestId: s.id }));
      this.put(s.id, { ...base, state, error, bytes: errorBytes(error), ...(state === 'unknown' ? { previous: true as const } : {}) });
    }
    this.prune();
  }

  private put(id: string, entry: Entry): void {
    const before = this.entries.get(id);
    this.inFlight += (entry.state === 'pending' ? 1 : 0) - (before?.state === 'pending' ? 1 : 0);
    this.bytesHeld += entry.bytes - (before?.bytes ?? 0);
    this.entries.set(id, entry);
    this.file?.put(id, toStored(id, entry));
    this.file?.changed();
  }

  private remove(id: string): void {
    const before = this.entries.get(id);
    if (before?.state === 'pending') this.inFlight -= 1;
    this.bytesHeld -= before?.bytes ?? 0;
    this.entries.delete(id);
    this.file?.remove(id);
    this.file?.changed();
  }

  private prune(): void {
    const oldest = Date.now() - LEDGER_MS;
    for (const [id, entry] of this.entries) {
      if (entry.at >= oldest && this.entries.size <= LEDGER_ENTRIES && this.bytesHeld <= this.maxBytes) break;
      // Never forget a write still in flight: it is settled later.
      if (entry.state !== 'pending') this.remove(id);
    }
  }
}

/**
 * Send a write through `send`: admitted by its id first, and its error saying whether it left.
 * `sentOnError` says how to read an error that does not say (a side connection: assume it did).
 * `resendUnknown`: the server keeps its own ledger (control protocol 1), so an id whose answer
 * was lost goes out again and the server answers it without running it twice.
 */
export function sendWrite(
  ledger: WriteLedger,
  id: string,
  line: string,
  send: () => Promise<ModReply>,
  { sentOnError = false, resendUnknown = false }: { sentOnError?: boolean; resendUnknown?: boolean } = {},
): Promise<ModReply> {
  const known = ledger.admit(id, line, resendUnknown);
  if (known instanceof McbridgeError) return Promise.reject(known);
  if (known !== null) return Promise.resolve(known);
  const go = (): Promise<ModReply> => {
    try {
      return send();
    } catch (err) {
      return Promise.reject(err);
    }
  };
  // With a file, nothing leaves before its `pending` entry is on disk (writes of one tick share one disk write).
  const durable = ledger.durable();
  const sent = durable === null ? go() : durable.then(go);
  return sent.then(
    (reply) => {
      ledger.settle(id, reply, null);
      return reply;
    },
    (err: unknown) => {
      const error = withWriteOutcome(err as McbridgeError, sentOnError, id);
      ledger.settle(id, null, error);
      throw error;
    },
  );
}

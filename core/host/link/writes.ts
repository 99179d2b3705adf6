/**
 * Writes (verbs declared `write: true`): their request ids, what an error says of them, and the
 * ledger that keeps a write's answer by id, so that sending one id again never runs it twice
 * (docs/control.md, "Writes whose result is unknown").
 */
import { createHash, randomBytes } from 'node:crypto';
import { McbridgeError, type ErrorCode } from '../errors.js';
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
type Entry = { at: number; fingerprint: string; bytes: number } & ({ state: 'pending' } | Settled);

export const LEDGER_ENTRIES = 1024;
export const LEDGER_MS = 30 * 60_000;
/** All kept answers together (a count bound alone let 254 answers of 8 MiB take the daemon down). */
export const LEDGER_BYTES = 16 * 1024 * 1024;
/** An answer bigger than this is kept as a cut: its small fields, its size and digest, said as such. */
export const KEEP_WHOLE_BYTES = 64 * 1024;
/** A field of a cut answer is kept when its JSON is at most this long. */
const SMALL_FIELD_BYTES = 512;
const ENTRY_OVERHEAD = 256;

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

/**
 * The answers of this link's recent writes by request id, bounded like the mod's own (1024
 * entries, 30 minutes) and by bytes. The legacy mod keeps none, so this is what makes a resent
 * id safe there.
 */
export class WriteLedger {
  private readonly entries = new Map<string, Entry>();
  private bytesHeld = 0;

  constructor(private readonly maxBytes = LEDGER_BYTES) {}

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
    if (!known || (resendUnknown && known.state === 'unknown')) {
      this.put(id, { state: 'pending', at: Date.now(), fingerprint, bytes: ENTRY_OVERHEAD });
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
    return new McbridgeError(
      'busy',
      `request ${id} was sent and its answer never came, so it may have run: it is not sent again. Check the game (state, events), then use a new request id if it did not run`,
      { requestId: id, previous: known.error.message },
      { retryable: false, resultUnknown: true, requestId: id },
    );
  }

  /** What became of `id`; a write this ledger never admitted is left alone (a stray answer resolves nothing). */
  settle(id: string, reply: ModReply | null, error: McbridgeError | null): void {
    const known = this.entries.get(id);
    if (!known) return;
    const at = Date.now();
    const { fingerprint } = known;
    if (error === null) {
      const kept = keptReply(reply ?? { type: 'result' });
      this.put(id, { state: 'completed', at, fingerprint, bytes: ENTRY_OVERHEAD + kept.bytes, reply: kept.reply });
    } else if (error.outcome?.retryable) this.remove(id);
    else {
      const bytes = ENTRY_OVERHEAD + Buffer.byteLength(error.message) + Buffer.byteLength(JSON.stringify(error.details ?? null) ?? '');
      this.put(id, { state: error.outcome?.resultUnknown ? 'unknown' : 'failed', at, fingerprint, bytes, error });
    }
    this.prune();
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

  /** For `status`: how many it holds, how many are unknown, and their bytes. */
  summary(): { tracked: number; unknown: number; bytes: number } {
    return { tracked: this.entries.size, unknown: this.unknownIds().length, bytes: this.bytesHeld };
  }

  private put(id: string, entry: Entry): void {
    this.bytesHeld += entry.bytes - (this.entries.get(id)?.bytes ?? 0);
    this.entries.set(id, entry);
  }

  private remove(id: string): void {
    this.bytesHeld -= this.entries.get(id)?.bytes ?? 0;
    this.entries.delete(id);
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
  let sent: Promise<ModReply>;
  try {
    sent = send();
  } catch (err) {
    sent = Promise.reject(err);
  }
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

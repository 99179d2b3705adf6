/**
 * Writes (verbs declared `write: true`): their request ids, what an error says of them, and the
 * ledger that keeps a write's answer by id, so that sending one id again never runs it twice
 * (docs/control.md, "Writes whose result is unknown").
 */
import { randomBytes } from 'node:crypto';
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

type Entry = { state: 'pending'; at: number } | { state: 'completed'; at: number; reply: ModReply } | { state: 'unknown' | 'failed'; at: number; error: McbridgeError };

export const LEDGER_ENTRIES = 1024;
export const LEDGER_MS = 30 * 60_000;

/**
 * The answers of this link's recent writes by request id, bounded like the mod's own (1024
 * entries, 30 minutes). The legacy mod keeps none, so this is what makes a resent id safe there.
 */
export class WriteLedger {
  private readonly entries = new Map<string, Entry>();

  /**
   * Before sending `id`: null when it is new (now pending), else the answer that stands:
   * the stored reply marked `duplicate`, or an error saying why it is not sent again.
   */
  admit(id: string, line: string, resendUnknown = false): ModReply | McbridgeError | null {
    this.prune();
    const known = this.entries.get(id);
    if (!known || (resendUnknown && known.state === 'unknown')) {
      this.entries.set(id, { state: 'pending', at: Date.now() });
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

  settle(id: string, reply: ModReply | null, error: McbridgeError | null): void {
    const at = Date.now();
    if (error === null) this.entries.set(id, { state: 'completed', at, reply: reply as ModReply });
    else if (error.outcome?.retryable) this.entries.delete(id);
    else this.entries.set(id, { state: error.outcome?.resultUnknown ? 'unknown' : 'failed', at, error });
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

  private prune(): void {
    const oldest = Date.now() - LEDGER_MS;
    for (const [id, entry] of this.entries) {
      if (entry.at >= oldest && this.entries.size <= LEDGER_ENTRIES) break;
      // Never forget a write still in flight: it is settled later.
      if (entry.state !== 'pending') this.entries.delete(id);
      else break;
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

import type { ModMessage } from './connection.js';
import { matchesReply } from './replies.js';

/**
 * What the link still expects a reply to on its main connection:
 * - `request`: sent, its caller waiting;
 * - `owed`: sent, its caller gone (timeout, cancel); the reply is still coming and is discarded;
 * - `barrier`: a PING sent just before a request to a mod that answers twice; what arrives
 *   before its pong was written before the mod read the request.
 */
export type EntryKind = 'request' | 'owed' | 'barrier';

export interface Entry<J> {
  line: string;
  /** Reply types that answer it; empty: any reply (a verb nobody declared). */
  replies: readonly string[];
  /** Answered at once on the mod's reader thread (VerbSpec.immediate). */
  immediate: boolean;
  sentAt: number;
  kind: EntryKind;
  /** The waiting caller while `kind` is 'request'. */
  job: J | null;
  /** How long an owed reply or a barrier's pong may take before the connection is reset. */
  timer?: NodeJS.Timeout;
  /** The barrier sent before it: until its pong arrives, nothing can be this entry's reply. */
  after?: Entry<J>;
  /** A byte-equal copy of the previous reply of its type, kept back until it is known not to be a duplicate. */
  held?: { reply: ModMessage; line: string; type: string | undefined; at: number; timer: NodeJS.Timeout };
}

/** Replies to `a` and `b` can be told apart by their type alone. */
export function distinct(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0 || a.includes('error') || b.includes('error')) return false;
  return !a.some((t) => b.includes(t));
}

export function overlaps(a: readonly string[], b: readonly string[]): boolean {
  return a.some((t) => b.includes(t));
}

/** The mod's own text for a line no verb matched (docs/protocol.md#replies-and-errors); it repeats the line. */
const UNKNOWN_COMMAND = /^unknown command: ([\s\S]*)$/;

/**
 * The table of what is outstanding on the main connection, in the order it was sent, and the
 * rule that gives each reply to one entry (docs/decisions.md, "Reader-thread verbs overtake").
 * Replies carry no ids, so several entries are outstanding at once only when their reply types
 * are pairwise distinct: a success reply then has exactly one entry that expects it.
 */
export class InFlight<J> {
  readonly entries: Entry<J>[] = [];

  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  /** A request expecting `replies` may join what is outstanding: no entry could take its replies, nor it theirs. */
  admits(replies: readonly string[]): boolean {
    return this.entries.every((e) => distinct(e.replies, replies));
  }

  /** Something outstanding is answered on the server thread, so it may take long. */
  hasSlow(): boolean {
    return this.entries.some((e) => !e.immediate);
  }

  /** The mod has not read this entry's line yet: its barrier is still unanswered. */
  behindBarrier(entry: Entry<J>): boolean {
    return entry.after !== undefined && this.entries.includes(entry.after);
  }

  add(entry: Entry<J>): Entry<J> {
    this.entries.push(entry);
    return entry;
  }

  has(entry: Entry<J>): boolean {
    return this.entries.includes(entry);
  }

  remove(entry: Entry<J>): void {
    const index = this.entries.indexOf(entry);
    if (index !== -1) this.entries.splice(index, 1);
  }

  clear(): Entry<J>[] {
    return this.entries.splice(0);
  }

  /**
   * The entry a reply answers. By type (`matchesReply`), that is at most one entry. An `error` may answer any of
   * them: `unknown command: <line>` names its line, and answers nothing when no entry sent that
   * line (a reply nobody asked for); any other error comes from a server-thread
   * verb (an immediate verb can fail only as an unknown command), so it goes to the oldest slow
   * entry, or, with only immediate ones outstanding, to the oldest, which the reader thread
   * answers first. A barrier (PING) never fails, and an entry behind one was not read yet.
   */
  targetOf(type: string | undefined, reply: ModMessage): Entry<J> | undefined {
    if (type !== 'error') {
      return this.entries.find((e) => matchesReply(e.replies, type));
    }
    const candidates = this.entries.filter((e) => e.kind !== 'barrier' && !this.behindBarrier(e));
    const named = typeof reply.message === 'string' ? UNKNOWN_COMMAND.exec(reply.message)?.[1] : undefined;
    if (named !== undefined) return candidates.find((e) => asModReadsIt(e.line) === named);
    return candidates.find((e) => !e.immediate) ?? candidates[0];
  }
}

/**
 * A request line as the mod repeats it in `unknown command: <line>`: trimmed the way Java's
 * `String.trim` does, and with lone surrogates (sent as invalid UTF-8) read as U+FFFD
 * (docs/protocol.md#lines-and-framing).
 */
function asModReadsIt(line: string): string {
  const text = Buffer.from(line, 'utf8').toString('utf8');
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start += 1;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end -= 1;
  return text.slice(start, end);
}

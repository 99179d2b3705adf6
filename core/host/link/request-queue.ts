import { McbridgeError } from '../errors.js';
import { withWriteOutcome } from './writes.js';
import type { AbortLike } from '../cancel.js';
import type { Logger } from '../../util/log.js';
import type { ModConnection, ModMessage } from './connection.js';
import { InFlight, overlaps, type Entry } from './in-flight.js';
import { keepReplyText } from './reply-text.js';
import { cancelledError, loggable, modErrorOf, queueTimeoutError, replyType, timeoutError, type LinkStats, type ModReply } from './replies.js';

/** The barrier before each request to a mod that answers twice: PING, answered at once and never with an error. */
const BARRIER = { line: 'PING', replies: ['pong'], immediate: true } as const;

/**
 * A mod that answers twice does so from its first replies. For this many replies on a new
 * connection, a reply byte-equal to the previous one of its type is kept back as a possible copy;
 * after that the mod is trusted, and only copies that arrive with nothing waiting give it away.
 */
export const PROBATION_REPLIES = 64;

interface Job {
  line: string;
  replies: readonly string[];
  immediate: boolean;
  timeoutMs: number;
  /** When the caller asked: the deadline counts from here, time in the queue included. */
  arrivedAt: number;
  resolve(reply: ModReply): void;
  reject(err: McbridgeError): void;
  timer?: NodeJS.Timeout;
  /** The caller's cancel, and what listens to it until the job settles. */
  signal?: AbortLike;
  onAbort?: () => void;
  settled: boolean;
  /** Its place among the outstanding entries once sent. */
  entry: Entry<Job> | null;
  /** A write's id: its errors then say whether it was sent (writes.ts). */
  requestId?: string;
}

/** How the link expects a verb to be answered (verbs.ts). */
export interface Expectation {
  replies: readonly string[];
  immediate: boolean;
  requestId?: string | undefined;
}

export interface RequestQueueOptions {
  stats: LinkStats;
  log: Logger;
  /** How long an abandoned request's reply may stay owed before the connection is reset. */
  owedGraceMs: number;
  /** How long a reply byte-equal to the previous one of its type is kept back as a possible copy (docs/decisions.md). */
  echoWindowMs: number;
  /** An owed reply never came: close this connection so a fresh one starts clean. */
  onOwedExpired(conn: ModConnection): void;
}

export interface QueueStatus {
  /** Sent, callers waiting, oldest first. */
  inFlight: Array<{ line: string; ageMs: number }>;
  queued: number;
  /** How long the longest-waiting queued request has waited; null when none is queued. */
  oldestQueuedMs: number | null;
  /** Replies still expected with nobody waiting: abandoned requests, and barriers on a mod that answers twice. */
  owed: Array<{ line: string; ageMs: number; why: 'abandoned' | 'barrier' }>;
  /** This connection has sent a reply twice: each request goes out behind a PING barrier. */
  doubleAnswering: boolean;
}

/**
 * The main connection's requests. Replies carry no ids, so each is recognised by its type:
 * requests go out one at a time, except that a reader-thread verb overtakes a slow one when no
 * outstanding request expects its reply types (InFlight). An abandoned request's reply stays
 * owed, so it is never handed to a later request. Every request answers within its own timeout
 * from the moment it was asked; one whose deadline passes in the queue is never sent.
 */
export class RequestQueue {
  private conn: ModConnection | null = null;
  private queue: Job[] = [];
  private readonly out = new InFlight<Job>();
  private stopped = false;
  private pumpScheduled = false;
  /** The last reply of each type on this connection, as sent (a second copy is byte-equal), and how long it took. */
  private readonly lastSeen = new Map<string, { line: string; tookMs: number }>();
  /** Replies delivered on this connection, up to PROBATION_REPLIES. */
  private answered = 0;
  private doubleAnswering = false;

  constructor(private readonly opts: RequestQueueOptions) {}

  status(): QueueStatus {
    const now = Date.now();
    const age = (e: Entry<Job>) => ({ line: e.line, ageMs: now - e.sentAt });
    const oldest = this.queue.reduce((min, job) => Math.min(min, job.arrivedAt), Infinity);
    return {
      inFlight: this.out.entries.filter((e) => e.kind === 'request').map(age),
      queued: this.queue.length,
      oldestQueuedMs: this.queue.length > 0 ? now - oldest : null,
      owed: this.out.entries.filter((e) => e.kind !== 'request').map((e) => ({ ...age(e), why: e.kind === 'owed' ? ('abandoned' as const) : ('barrier' as const) })),
      doubleAnswering: this.doubleAnswering,
    };
  }

  /** Requests may go out on `conn` now (it is being negotiated, or ready). */
  attach(conn: ModConnection): void {
    this.conn = conn;
    this.pump();
  }

  /** The connection closed: what was in flight or queued fails with `reason`; nothing is owed any more. */
  detach(reason: string): void {
    this.conn = null;
    for (const entry of this.out.clear()) {
      this.clearTimers(entry);
      if (entry.job) this.settle(entry.job, new McbridgeError('not_connected', `${reason} while waiting for the reply to '${entry.line}'`));
    }
    for (const job of this.queue.splice(0)) {
      this.settle(job, new McbridgeError('not_connected', `${reason} before '${job.line}' was sent`));
    }
    this.lastSeen.clear();
    this.answered = 0;
    this.doubleAnswering = false;
  }

  /** Nothing more is sent; queued requests fail. Those in flight fail when their connection closes. */
  stop(): void {
    this.stopped = true;
    for (const job of this.queue.splice(0)) this.settle(job, new McbridgeError('unavailable', `the daemon stopped before '${job.line}' was sent`));
  }

  enqueue(line: string, expect: Expectation, timeoutMs: number, arrivedAt: number, signal: AbortLike | undefined): Promise<ModReply> {
    return new Promise<ModReply>((resolve, reject) => {
      if (signal?.aborted) {
        reject(cancelledError(line));
        return;
      }
      if (this.stopped) {
        reject(new McbridgeError('unavailable', `the daemon stopped before '${line}' was sent`));
        return;
      }
      const job: Job = { line, replies: expect.replies, immediate: expect.immediate, timeoutMs, arrivedAt, resolve, reject, settled: false, entry: null };
      if (expect.requestId !== undefined) job.requestId = expect.requestId;
      if (signal) {
        job.signal = signal;
        job.onAbort = () => this.cancel(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      job.timer = setTimeout(() => this.expire(job), Math.max(0, arrivedAt + timeoutMs - Date.now()));
      this.queue.push(job);
      this.pump();
    });
  }

  onReply(conn: ModConnection, reply: ModMessage, line: string): void {
    if (conn !== this.conn) return;
    const type = replyType(reply);
    const entry = this.out.targetOf(type, reply);
    if (!entry || this.out.behindBarrier(entry)) {
      // Nothing waits for it, or it was written before the mod read the request that would take it.
      this.stray(type, line);
      return;
    }
    if (entry.kind === 'barrier') {
      this.forget(entry);
      this.seen(entry, type, line);
      return;
    }
    if (entry.kind === 'owed') {
      // A late reply was stamped long after the reply before it: one byte-equal to that is a copy.
      if (this.isCopy(type, line)) {
        this.duplicate(type);
        return;
      }
      this.forget(entry);
      this.seen(entry, type, line);
      this.opts.stats.lateReplies += 1;
      this.opts.log.info({ request: entry.line, type }, 'discarded the late reply of an abandoned request');
      return;
    }
    if (entry.held) {
      // A second reply for the same request: the one kept back was a copy of an earlier reply.
      if (line === entry.held.line) {
        this.duplicate(type);
        return;
      }
      clearTimeout(entry.held.timer);
      entry.held = undefined;
      this.duplicate(type);
    } else if ((this.answered < PROBATION_REPLIES || this.doubleAnswering) && this.isCopy(type, line)) {
      // Byte-equal to the last reply of its type: a copy, or (same millisecond) a genuine twin.
      // Only another reply for this request tells: wait for one about as long as the last took.
      const window = Math.max(this.opts.echoWindowMs, 2 * this.lastSeen.get(type ?? '')!.tookMs);
      entry.held = { reply, line, type, at: Date.now(), timer: setTimeout(() => this.releaseHeld(entry), window) };
      return;
    }
    this.deliver(entry, reply, type, line);
  }

  /** `at`: when the reply arrived (it may have been kept back since). */
  private deliver(entry: Entry<Job>, reply: ModMessage, type: string | undefined, line: string, at = Date.now()): void {
    const job = entry.job!;
    if (this.opts.log.isLevelEnabled('debug')) this.opts.log.debug({ request: loggable(job.line), type, ms: at - entry.sentAt }, `mod replied ${type ?? '(no type)'} to ${loggable(job.line)}`);
    this.forget(entry);
    this.seen(entry, type, line, at);
    if (this.answered < PROBATION_REPLIES) this.answered += 1;
    if (type !== 'error') keepReplyText(reply, line);
    this.settle(job, type === 'error' ? modErrorOf(job.line, reply) : null, reply as ModReply);
  }

  private releaseHeld(entry: Entry<Job>): void {
    const held = entry.held;
    if (!held || !this.out.has(entry)) return;
    entry.held = undefined;
    this.deliver(entry, held.reply, held.type, held.line, held.at);
  }

  private seen(entry: Entry<Job>, type: string | undefined, line: string, at = Date.now()): void {
    const last = this.lastSeen.get(type ?? '');
    if (last) {
      last.line = line;
      last.tookMs = at - entry.sentAt;
    } else {
      this.lastSeen.set(type ?? '', { line, tookMs: at - entry.sentAt });
    }
  }

  /** Byte-equal to the last reply of its type. */
  private isCopy(type: string | undefined, line: string): boolean {
    return this.lastSeen.get(type ?? '')?.line === line;
  }

  private duplicate(type: string | undefined): void {
    this.opts.stats.strayReplies += 1;
    this.opts.stats.duplicateReplies += 1;
    if (!this.doubleAnswering) this.opts.log.warn({ type }, 'the mod sent a reply twice; dropped the copy, and from now on sends each request behind a PING');
    this.doubleAnswering = true;
  }

  private stray(type: string | undefined, line: string): void {
    if (this.isCopy(type, line)) {
      this.duplicate(type);
      return;
    }
    this.opts.stats.strayReplies += 1;
    this.opts.log.warn({ type, inFlight: this.out.entries.map((e) => e.line) }, 'discarded a reply that matches no request');
  }

  /** The entry is answered or given up: it leaves the table, and what waited behind it may go. */
  private forget(entry: Entry<Job>): void {
    this.out.remove(entry);
    this.clearTimers(entry);
    this.schedulePump();
  }

  private clearTimers(entry: Entry<Job>): void {
    if (entry.timer) clearTimeout(entry.timer);
    if (entry.held) clearTimeout(entry.held.timer);
  }

  /**
   * Never send from inside the handling of a read: the rest of that read (a second copy of the
   * reply just delivered, say) is routed first, while nothing new waits for it.
   */
  private schedulePump(): void {
    if (this.pumpScheduled || this.queue.length === 0) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    const conn = this.conn;
    if (!conn || this.stopped) return;
    const passed: Job[] = [];
    for (let i = 0; i < this.queue.length; ) {
      const job = this.queue[i]!;
      if (this.mayGo(job, passed)) {
        this.queue.splice(i, 1);
        this.send(conn, job);
      } else {
        passed.push(job);
        i += 1;
      }
    }
  }

  /** `passed`: the requests queued before `job` that cannot go yet. */
  private mayGo(job: Job, passed: readonly Job[]): boolean {
    if (this.needsBarrier(job) && !this.out.admits(BARRIER.replies)) return false;
    if (this.out.isEmpty) return true;
    if (!job.immediate || !this.out.admits(job.replies)) return false;
    // Requests that expect the same reply types keep their order.
    if (passed.some((p) => overlaps(p.replies, job.replies))) return false;
    // Overtaking is for while a slow verb is out anyway; with only quick ones out, the slow one queued is next.
    return !passed.some((p) => !p.immediate) || this.out.hasSlow();
  }

  /** On a mod that answers twice, a copy of an earlier reply must not pass for this request's. */
  private needsBarrier(job: Job): boolean {
    return this.doubleAnswering && !overlaps(job.replies, BARRIER.replies);
  }

  private send(conn: ModConnection, job: Job): void {
    if (!this.out.isEmpty) this.opts.stats.overtakes += 1;
    if (this.opts.log.isLevelEnabled('debug'))
      this.opts.log.debug({ request: loggable(job.line), queuedMs: Date.now() - job.arrivedAt, inFlight: this.out.entries.length }, `sent ${loggable(job.line)}`);
    const sentAt = Date.now();
    const barrier = this.needsBarrier(job) ? this.out.add({ ...BARRIER, sentAt, kind: 'barrier', job: null }) : undefined;
    job.entry = this.out.add({ line: job.line, replies: job.replies, immediate: job.immediate, sentAt, kind: 'request', job, after: barrier });
    if (barrier) {
      barrier.timer = this.graceTimer(barrier, 'a barrier PING');
      conn.write(`${barrier.line}\n${job.line}`);
    } else {
      conn.write(job.line);
    }
  }

  /** An expected reply that never comes means the mod stopped answering: reset the connection. */
  private graceTimer(entry: Entry<Job>, what: string): NodeJS.Timeout {
    const conn = this.conn;
    return setTimeout(
      () => {
        if (!this.out.has(entry) || !conn) return;
        this.opts.log.warn({ request: entry.line }, `${what} stayed unanswered; resetting the mod connection`);
        this.opts.onOwedExpired(conn);
      },
      Math.max(this.opts.owedGraceMs, 1),
    );
  }

  private expire(job: Job): void {
    if (job.settled) return;
    if (job.entry) {
      this.abandon(job, 'timeout');
      return;
    }
    const index = this.queue.indexOf(job);
    if (index === -1) return;
    this.queue.splice(index, 1);
    this.opts.stats.timeouts += 1;
    this.opts.stats.queueTimeouts += 1;
    const now = Date.now();
    const inFlight = this.out.entries.filter((e) => e.kind !== 'barrier').map((e) => ({ line: e.line, ageMs: now - e.sentAt }));
    this.settle(job, queueTimeoutError(job.line, job.timeoutMs, { inFlight, queued: index }));
    this.pump();
  }

  private cancel(job: Job): void {
    if (job.settled) return;
    if (job.entry) {
      this.abandon(job, 'cancel');
      return;
    }
    const index = this.queue.indexOf(job);
    if (index === -1) return;
    this.queue.splice(index, 1);
    if (this.opts.log.isLevelEnabled('debug')) this.opts.log.debug({ request: loggable(job.line), why: 'cancel' }, `cancelled ${loggable(job.line)} before it was sent`);
    this.opts.stats.cancelled += 1;
    this.settle(job, cancelledError(job.line));
    this.pump();
  }

  /** Give up on a sent request: its reply is now owed, and nothing expecting its types is sent until it comes. */
  private abandon(job: Job, why: 'timeout' | 'cancel'): void {
    const entry = job.entry!;
    if (this.opts.log.isLevelEnabled('debug'))
      this.opts.log.debug(
        { request: loggable(job.line), why, ms: Date.now() - entry.sentAt },
        `${why === 'cancel' ? 'cancelled' : 'timed out'} ${loggable(job.line)}; its reply is now owed and will be discarded`,
      );
    if (entry.held) {
      // The reply kept back is this request's, or a copy whose original it no longer needs: either way nothing is owed.
      this.opts.stats.lateReplies += 1;
      this.forget(entry);
    } else {
      entry.kind = 'owed';
      entry.job = null;
      entry.timer = this.graceTimer(entry, 'an abandoned request');
    }
    if (why === 'timeout') {
      this.opts.stats.timeouts += 1;
      this.settle(job, timeoutError(job.line, job.timeoutMs, entry.sentAt - job.arrivedAt));
    } else {
      this.opts.stats.cancelled += 1;
      this.settle(job, cancelledError(job.line));
    }
    this.pump();
  }

  private settle(job: Job, error: McbridgeError | null, reply?: ModReply): void {
    if (job.settled) return;
    job.settled = true;
    if (job.timer) clearTimeout(job.timer);
    if (job.onAbort) job.signal!.removeEventListener('abort', job.onAbort);
    if (error) job.reject(job.requestId === undefined ? error : withWriteOutcome(error, job.entry !== null, job.requestId));
    else job.resolve(reply as ModReply);
  }
}

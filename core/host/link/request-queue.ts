import { McbridgeError } from '../errors.js';
import type { Logger } from '../../util/log.js';
import type { ModConnection, ModMessage } from './connection.js';
import { cancelledError, matchesReply, modErrorOf, replyType, timeoutError, type LinkStats, type ModReply } from './replies.js';

interface Job {
  line: string;
  replies: readonly string[];
  timeoutMs: number;
  resolve(reply: ModReply): void;
  reject(err: McbridgeError): void;
  timer?: NodeJS.Timeout;
  detach?: () => void;
  settled: boolean;
}

interface Owed {
  line: string;
  replies: readonly string[];
  timer: NodeJS.Timeout;
}

export interface RequestQueueOptions {
  stats: LinkStats;
  log: Logger;
  /** How long an abandoned request's reply may stay owed before the connection is reset. */
  owedGraceMs: number;
  /** An owed reply never came: close this connection so a fresh one starts clean. */
  onOwedExpired(conn: ModConnection): void;
}

/**
 * The main connection's requests, one in flight at a time: replies carry no ids, so the
 * in-flight request's reply is recognised by type. When a request is abandoned (timeout or
 * cancel) its reply is still owed: nothing else is sent until that reply has arrived and been
 * discarded, or the connection is reset. So a late reply is never handed to a later request.
 */
export class RequestQueue {
  private conn: ModConnection | null = null;
  private queue: Job[] = [];
  private inFlight: Job | null = null;
  private owed: Owed | null = null;
  private stopped = false;

  constructor(private readonly opts: RequestQueueOptions) {}

  status(): { inFlight: string | null; queued: number; owed: string | null } {
    return { inFlight: this.inFlight?.line ?? null, queued: this.queue.length, owed: this.owed?.line ?? null };
  }

  /** Requests may go out on `conn` now (it is being negotiated, or ready). */
  attach(conn: ModConnection): void {
    this.conn = conn;
    this.pump();
  }

  /** The connection closed: what was in flight or queued fails with `reason`; an owed reply is owed no more. */
  detach(reason: string): void {
    this.conn = null;
    if (this.inFlight) {
      const job = this.inFlight;
      this.inFlight = null;
      this.settle(job, new McbridgeError('not_connected', `${reason} while waiting for the reply to '${job.line}'`));
    }
    for (const job of this.queue.splice(0)) {
      this.settle(job, new McbridgeError('not_connected', `${reason} before '${job.line}' was sent`));
    }
    if (this.owed) {
      clearTimeout(this.owed.timer);
      this.owed = null;
    }
  }

  /** Nothing more is sent; queued requests fail. The one in flight fails when its connection closes. */
  stop(): void {
    this.stopped = true;
    for (const job of this.queue.splice(0)) this.settle(job, new McbridgeError('unavailable', `the daemon stopped before '${job.line}' was sent`));
  }

  enqueue(line: string, replies: readonly string[], timeoutMs: number, signal: AbortSignal | undefined): Promise<ModReply> {
    return new Promise<ModReply>((resolve, reject) => {
      if (signal?.aborted) {
        reject(cancelledError(line));
        return;
      }
      if (this.stopped) {
        reject(new McbridgeError('unavailable', `the daemon stopped before '${line}' was sent`));
        return;
      }
      const job: Job = { line, replies, timeoutMs, resolve, reject, settled: false };
      if (signal) {
        const onAbort = () => this.cancel(job);
        signal.addEventListener('abort', onAbort, { once: true });
        job.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(job);
      this.pump();
    });
  }

  onReply(conn: ModConnection, reply: ModMessage): void {
    if (conn !== this.conn) return;
    const type = replyType(reply);
    const job = this.inFlight;
    if (job && matchesReply(job.replies, type)) {
      this.inFlight = null;
      this.settle(job, type === 'error' ? modErrorOf(job.line, reply) : null, reply as ModReply);
      this.pump();
      return;
    }
    const owed = this.owed;
    if (!job && owed && matchesReply(owed.replies, type)) {
      clearTimeout(owed.timer);
      this.owed = null;
      this.opts.stats.lateReplies += 1;
      this.opts.log.info({ request: owed.line, type }, 'discarded the late reply of an abandoned request');
      this.pump();
      return;
    }
    this.opts.stats.strayReplies += 1;
    this.opts.log.warn({ type, inFlight: job?.line ?? null }, 'discarded a reply that matches no request');
  }

  private pump(): void {
    const conn = this.conn;
    if (!conn || this.stopped || this.inFlight || this.owed) return;
    const job = this.queue.shift();
    if (!job) return;
    this.inFlight = job;
    job.timer = setTimeout(() => this.abandon(job, 'timeout'), job.timeoutMs);
    conn.write(job.line);
  }

  private cancel(job: Job): void {
    if (job.settled) return;
    const index = this.queue.indexOf(job);
    if (index !== -1) {
      this.queue.splice(index, 1);
      this.opts.stats.cancelled += 1;
      this.settle(job, cancelledError(job.line));
      return;
    }
    if (this.inFlight === job) this.abandon(job, 'cancel');
  }

  /** Give up on the in-flight request; its reply is now owed and blocks the next send. */
  private abandon(job: Job, why: 'timeout' | 'cancel'): void {
    if (this.inFlight !== job) return;
    this.inFlight = null;
    const conn = this.conn;
    const timer = setTimeout(() => {
      if (this.owed?.timer !== timer || !conn) return;
      this.opts.log.warn({ request: job.line }, 'an abandoned request stayed unanswered; resetting the mod connection');
      this.opts.onOwedExpired(conn);
    }, Math.max(this.opts.owedGraceMs, 1));
    this.owed = { line: job.line, replies: job.replies, timer };
    if (why === 'timeout') {
      this.opts.stats.timeouts += 1;
      this.settle(job, timeoutError(job.line, job.timeoutMs));
    } else {
      this.opts.stats.cancelled += 1;
      this.settle(job, cancelledError(job.line));
    }
  }

  private settle(job: Job, error: McbridgeError | null, reply?: ModReply): void {
    if (job.settled) return;
    job.settled = true;
    if (job.timer) clearTimeout(job.timer);
    job.detach?.();
    if (error) job.reject(error);
    else job.resolve(reply as ModReply);
  }
}

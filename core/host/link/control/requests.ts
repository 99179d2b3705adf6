/**
 * Requests of one control link: many in flight at once (up to the server's
 * `maxPendingRequests`), replies matched by id, the rest waiting here in order. A slow operation
 * holds up nothing but itself (docs/control.md, "Requests").
 */
import type { AbortLike } from '../../cancel.js';
import { McbridgeError, type ErrorCode } from '../../errors.js';
import { cancelledError, timeoutError, type ModReply } from '../replies.js';
import { withWriteOutcome } from '../writes.js';

export interface ControlRequest {
  id: string;
  op: string;
  params: Record<string, unknown>;
  /** What goes on the wire, for messages: the op and its params (`wireName`). */
  line: string;
  timeoutMs: number;
  arrivedAt: number;
  signal?: AbortLike;
  /** Its errors then say whether it left (writes.ts); the server's own say it already. */
  write: boolean;
}

interface Job extends ControlRequest {
  resolve(reply: ModReply): void;
  reject(err: McbridgeError): void;
  timer: NodeJS.Timeout;
  onAbort?: () => void;
  sentAt: number | null;
  graced?: boolean;
}

/** How long a sent write is awaited past the deadline the server was sent. */
export const WRITE_GRACE_MS = 1_000;

/** Server error codes (docs/control.md) in mcbridge's closed set. */
const CODE_OF: Record<string, ErrorCode> = {
  bad_request: 'invalid_params',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  capability_not_supported: 'unsupported_capability',
  game_error: 'mod_error',
  timeout: 'timeout',
  request_in_flight: 'busy',
  too_many_pending: 'busy',
  frame_too_large: 'invalid_params',
  protocol_version: 'unsupported_capability',
  conflict: 'conflict',
  not_found: 'not_found',
};

/** A reply's error: its code mapped, the server's own code and details kept, its outcome as the server said it. */
export function replyError(job: Pick<ControlRequest, 'id' | 'line'>, raw: unknown, write: boolean): McbridgeError {
  const e = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const serverCode = typeof e.code === 'string' ? e.code.slice(0, 64) : 'error';
  const message = typeof e.message === 'string' ? e.message.slice(0, 2000) : 'the server gave no message';
  const details: Record<string, unknown> = { request: job.line, serverCode };
  if (e.details && typeof e.details === 'object') details.server = e.details;
  const line = job.line.length > 120 ? `${job.line.slice(0, 120)}…` : job.line;
  // Own keys only: a server's code 'toString' must not find Object.prototype's function.
  const error = new McbridgeError(Object.hasOwn(CODE_OF, serverCode) ? CODE_OF[serverCode]! : 'mod_error', `${line}: ${message}`, details);
  if (!write) return error;
  const resultUnknown = e.resultUnknown === true;
  return error.withOutcome({ retryable: e.retryable === true && !resultUnknown, resultUnknown, requestId: job.id });
}

/** A request as messages name it: the op and params sent on the control wire, not the legacy verb. */
export function wireName(op: string, params: Record<string, unknown>): string {
  const text = Object.keys(params).length === 0 ? op : `${op} ${JSON.stringify(params)}`;
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** A `request_status` answer about another id than the one asked is the server's mistake: never passed on as the answer. */
export function checkStatusReply(reply: ModReply, asked: unknown, line: string): ModReply {
  if (reply.requestId === undefined || reply.requestId === asked) return reply;
  const named = typeof reply.requestId === 'string' ? `'${reply.requestId.slice(0, 128)}'` : `a ${typeof reply.requestId}`;
  throw new McbridgeError('mod_error', `the server answered '${line}' about ${named}, not the id asked; its answer was dropped. Ask again, and check the server`, {
    request: line,
    askedId: asked,
  });
}

/** A success's result (a reply frame's, a ledger status's) as a reply: an object as it is, anything else (null included) as its `value`. */
export function resultOf(frame: Record<string, unknown>): ModReply {
  const result = frame.result;
  return result !== null && typeof result === 'object' && !Array.isArray(result) ? (result as ModReply) : { type: 'result', value: result ?? null };
}

export class ControlRequests {
  private readonly out = new Map<string, Job>();
  private readonly waiting: Job[] = [];
  private limit = 32;
  private send: ((job: ControlRequest) => void) | null = null;

  constructor(
    private readonly maxWaiting: number,
    /** A reply came after its caller gave up: (id, the reply of a success or null, the error of a failure). */
    private readonly onLate: (id: string, reply: ModReply | null, error: unknown) => void,
    /** A deadline passed: `sent` false when it had not left yet. */
    private readonly onExpire: (sent: boolean) => void = () => {},
  ) {}

  /** A session is up: send through `send`, at most `limit` at a time. */
  attach(send: (job: ControlRequest) => void, limit: number): void {
    this.send = send;
    this.limit = Math.max(1, limit);
    this.pump();
  }

  /** The session ended: what was sent fails as sent, what waits fails as never sent. */
  detach(reason: string): void {
    this.send = null;
    for (const job of [...this.out.values()]) this.settle(job, new McbridgeError('not_connected', `${reason} while waiting for the reply to '${job.line}'`));
    // A copy: settle() finds each in the queue and takes it out (taken out first, it would count as settled and never answer).
    for (const job of [...this.waiting]) this.settle(job, new McbridgeError('not_connected', `${reason} before '${job.line}' was sent`));
  }

  get inFlight(): number {
    return this.out.size;
  }

  get queued(): number {
    return this.waiting.length;
  }

  has(id: string): boolean {
    return this.out.has(id) || this.waiting.some((j) => j.id === id);
  }

  status(now = Date.now()): { inFlight: Array<{ line: string; ageMs: number }>; queued: number; oldestQueuedMs: number | null } {
    return {
      inFlight: [...this.out.values()].map((j) => ({ line: j.line, ageMs: now - (j.sentAt ?? now) })),
      queued: this.waiting.length,
      oldestQueuedMs: this.waiting.length > 0 ? now - this.waiting[0]!.arrivedAt : null,
    };
  }

  enqueue(request: ControlRequest): Promise<ModReply> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length >= this.maxWaiting) {
        reject(new McbridgeError('busy', `${this.waiting.length} requests already wait for the server; '${request.line}' was not sent. Retry when fewer are pending`));
        return;
      }
      const job: Job = { ...request, resolve, reject, sentAt: null, timer: setTimeout(() => this.expire(job), Math.max(0, request.arrivedAt + request.timeoutMs - Date.now())) };
      if (request.signal) {
        job.onAbort = () => this.settle(job, cancelledError(job.line));
        request.signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.waiting.push(job);
      this.pump();
    });
  }

  /** A reply frame; false when no request waits for its id (late, or never asked). */
  onReply(frame: Record<string, unknown>): boolean {
    const id = typeof frame.id === 'string' ? frame.id : '';
    const job = this.out.get(id);
    if (!job) {
      if (id) this.onLate(id, frame.ok === true ? resultOf(frame) : null, frame.error);
      return false;
    }
    if (frame.ok === true) this.settle(job, null, resultOf(frame));
    else this.settle(job, replyError(job, frame.error, job.write));
    return true;
  }

  private pump(): void {
    while (this.send && this.waiting.length > 0 && this.out.size < this.limit) {
      const job = this.waiting.shift()!;
      job.sentAt = Date.now();
      this.out.set(job.id, job);
      // The server stops at the same deadline as the caller (what is left of it).
      this.send({ ...job, timeoutMs: Math.max(1, job.arrivedAt + job.timeoutMs - job.sentAt) });
    }
  }

  private expire(job: Job): void {
    // A sent write waits a little past the deadline the server was given: the server's own answer
    // (done, or `resultUnknown`) then settles it, not a guess made 2 ms before it came.
    if (job.write && job.sentAt !== null && !job.graced) {
      job.graced = true;
      job.timer = setTimeout(() => this.expire(job), WRITE_GRACE_MS);
      return;
    }
    this.onExpire(job.sentAt !== null);
    this.settle(job, timeoutError(job.line, job.timeoutMs, (job.sentAt ?? Date.now()) - job.arrivedAt));
  }

  private settle(job: Job, error: McbridgeError | null, reply?: ModReply): void {
    const wasOut = this.out.delete(job.id);
    const at = this.waiting.indexOf(job);
    if (at >= 0) this.waiting.splice(at, 1);
    else if (!wasOut) return; // settled already
    clearTimeout(job.timer);
    if (job.onAbort) job.signal!.removeEventListener('abort', job.onAbort);
    if (error) job.reject(job.write ? withWriteOutcome(error, wasOut, job.id) : error);
    else job.resolve(reply as ModReply);
    this.pump();
  }
}

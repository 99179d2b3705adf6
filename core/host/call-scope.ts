/**
 * The per-call parts of a tool's context: deferred clean-ups, the cursor `ctx.waitFor` keeps,
 * and the end of the call that followers started in it stop at. Plugin tools and config
 * composites both get these from here (one context, one meaning: docs/plugins.md).
 */
import type { AbortLike } from './cancel.js';
import { McbridgeError, toMcbridgeError } from './errors.js';
import type { Cursor, EventLog, RecordedEvent } from './events/event-log.js';
import type { DeferredCleanup, ToolContext } from './plugin-api.js';
import type { Logger } from '../util/log.js';

/** `ctx.waitFor`'s timeout when the tool gives none. */
const DEFAULT_WAIT_FOR_MS = 30_000;
/** How long all of a call's clean-ups together may take after it ended (or was cancelled). */
const CLEANUP_MS = 10_000;
/** setTimeout fires at once beyond this; a longer wait has no timer at all. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const EXPIRED = Symbol('expired');

interface Deferred {
  cleanup: (ctx: ToolContext) => unknown;
  /** Its run, once started (early by `now()`, or at the end of the call). */
  ran: Promise<void> | null;
}

export class CallScope {
  private deferred: Deferred[] | undefined;
  private readonly startSeq: number;
  /** Just after the previous `waitFor` match, or the start of the call. */
  private cursor: number;
  private ended: AbortController | undefined;

  constructor(
    private readonly events: EventLog,
    private readonly tool: string,
    private readonly log: Logger,
    private readonly cleanupMs = CLEANUP_MS,
  ) {
    this.startSeq = events.lastSeq;
    this.cursor = this.startSeq;
  }

  get startCursor(): Cursor {
    return { streamId: this.events.streamId, seq: this.startSeq };
  }

  /** Aborted when the call (clean-ups included) is over; followers started in it end there. */
  get endSignal(): AbortSignal {
    return (this.ended ??= new AbortController()).signal;
  }

  /**
   * Queue `cleanup` for the end of the call. The handle runs it early (`now()`, once, with a
   * context of its own and the same 10 s bound) or disarms it (`cancel()`); either takes it off
   * the queue, so it never runs twice.
   */
  defer(cleanup: (ctx: ToolContext) => unknown, contextFor: (signal: AbortSignal) => ToolContext): DeferredCleanup {
    if (typeof cleanup !== 'function') {
      throw new McbridgeError('invalid_params', `tool '${this.tool}': defer() needs a function, e.g. defer((ctx) => ctx.call('command', { command: 'tick unfreeze' }))`);
    }
    const entry: Deferred = { cleanup, ran: null };
    (this.deferred ??= []).push(entry);
    const takeOff = () => {
      const at = this.deferred?.indexOf(entry) ?? -1;
      if (at >= 0) this.deferred!.splice(at, 1);
      return at >= 0;
    };
    return {
      now: () => {
        if (takeOff())
          entry.ran = this.runBounded([entry], contextFor).then((errors) => {
            if (errors[0]) throw errors[0];
          });
        return entry.ran ?? Promise.resolve();
      },
      cancel: () => void takeOff(),
    };
  }

  async waitFor(match: (event: RecordedEvent) => boolean, options: { timeoutMs?: number; since?: number | Cursor } = {}, signal: AbortSignal): Promise<RecordedEvent> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_FOR_MS;
    if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) {
      throw new McbridgeError('invalid_params', `tool '${this.tool}': waitFor's timeoutMs must be a positive number of milliseconds (Infinity: no timeout), got ${timeoutMs}`);
    }
    const since = options.since ?? this.cursor;
    try {
      const event = await this.events.waitFor(match, {
        since: typeof since === 'number' ? { seq: since } : since,
        timeoutMs: timeoutMs > MAX_TIMER_MS ? undefined : timeoutMs,
        signal,
      });
      this.cursor = Math.max(this.cursor, event.seq);
      return event;
    } catch (err) {
      const e = toMcbridgeError(err);
      if (e.code !== 'timeout') throw e;
      throw new McbridgeError('timeout', `tool '${this.tool}': no matching event within ${timeoutMs} ms`, { tool: this.tool, timeoutMs });
    }
  }

  /** Whether `close` has anything to do: clean-ups deferred, or followers to end. */
  get open(): boolean {
    return (this.deferred !== undefined && this.deferred.length > 0) || this.ended !== undefined;
  }

  /**
   * After the call's body: run its clean-ups (newest first), each with a context from
   * `contextFor` whose signal is not the call's, and end its followers. Throws what the caller
   * should hear: the body's failure (`failed`), with failing clean-ups appended, or a clean-up's.
   */
  async close(contextFor: (signal: AbortSignal) => ToolContext, signal: AbortLike, failed: boolean, failure?: unknown): Promise<void> {
    let errors: McbridgeError[] = [];
    try {
      if (this.deferred !== undefined && this.deferred.length > 0) errors = await this.runBounded(this.deferred, contextFor);
    } finally {
      this.ended?.abort();
    }
    if (errors.length === 0) {
      if (failed) throw failure;
      return;
    }
    if (failed) {
      // The caller hears of both, whatever the body threw; a cancelled call stays `cancelled`.
      let f = toMcbridgeError(failure);
      if (signal.aborted && f.code !== 'cancelled') f = new McbridgeError('cancelled', `the call to '${this.tool}' was cancelled`);
      throw new McbridgeError(f.code, `${f.message} (and its clean-up failed: ${errors.map((e) => e.message).join('; ')})`, f.details);
    }
    const first = errors[0]!;
    throw new McbridgeError(first.code, `tool '${this.tool}' finished, but its clean-up failed: ${first.message}`, { tool: this.tool });
  }

  /** Run and empty `queue` (newest first; one queued by a clean-up runs next), all within the bound. */
  private async runBounded(queue: Deferred[], contextFor: (signal: AbortSignal) => ToolContext): Promise<McbridgeError[]> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.cleanupMs);
    const expired = new Promise<typeof EXPIRED>((resolve) => controller.signal.addEventListener('abort', () => resolve(EXPIRED), { once: true }));
    const ctx = contextFor(controller.signal);
    const errors: McbridgeError[] = [];
    try {
      for (let entry = queue.pop(); entry !== undefined; entry = queue.pop()) {
        let settle: (() => void) | undefined;
        entry.ran ??= new Promise<void>((resolve) => (settle = resolve));
        try {
          const pending = entry.cleanup(ctx);
          if (isThenable(pending)) {
            const done = Promise.resolve(pending);
            // A clean-up cut off by the bound may still fail later; nobody is left to hear it.
            done.catch(() => undefined);
            if ((await Promise.race([done, expired])) === EXPIRED) {
              throw new McbridgeError('timeout', `a clean-up did not finish within ${this.cleanupMs} ms after the call ended`);
            }
          }
        } catch (err) {
          const e = toMcbridgeError(err);
          errors.push(e);
          this.log.error({ tool: this.tool, err: e.message }, `tool '${this.tool}': a deferred clean-up failed`);
        } finally {
          settle?.();
        }
      }
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
    return errors;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

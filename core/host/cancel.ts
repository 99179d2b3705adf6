/**
 * Cancelling a call: the signal the kernel's waits listen to, the cheap Cancellation every call
 * carries, and what a wait (`sleep`) and a call (`settleOnCancel`) do when it fires.
 */
import { McbridgeError } from './errors.js';
import type { Logger } from '../util/log.js';

/**
 * What the kernel's waits need from a cancel: whether it happened and a way to hear of it.
 * An AbortSignal is one; so is a Cancellation, which costs next to nothing until used.
 */
export interface AbortLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * One call's cancel. Every API call has one and almost none is ever cancelled, while an
 * AbortController and its listeners were a measurable part of each call (Node 20): this keeps
 * a plain list, and makes the real AbortSignal a tool may ask for (`ctx.signal`) only when
 * asked. Listeners run once, on the first `abort`, like an AbortSignal's with `{ once: true }`.
 */
export class Cancellation implements AbortLike {
  aborted = false;
  /** Most calls have one or two listeners at a time (the request's, the call's): fields, not an array. */
  private first: (() => void) | null = null;
  private second: (() => void) | null = null;
  private more: Array<() => void> | null = null;
  private controller: AbortController | null = null;

  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    // As an AbortSignal: a listener added after the abort is never called.
    if (this.aborted) return;
    if (this.first === null && this.second === null && this.more === null) this.first = listener;
    else if (this.second === null && this.more === null) this.second = listener;
    else (this.more ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const more = this.more;
    if (more !== null) {
      const at = more.lastIndexOf(listener);
      if (at !== -1) {
        more.splice(at, 1);
        return;
      }
    }
    if (this.second === listener) this.second = null;
    else if (this.first === listener) this.first = null;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const { first, second, more } = this;
    this.first = this.second = null;
    this.more = null;
    first?.();
    second?.();
    if (more !== null) for (const listener of more) listener();
    this.controller?.abort();
  }
}

/** A call's signal as a tool sees it: always a real AbortSignal. */
export function signalOf(cancel: AbortSignal | Cancellation): AbortSignal {
  return cancel instanceof Cancellation ? cancel.signal : cancel;
}

/**
 * Wait `ms` milliseconds unless `signal` aborts first; then reject with `cancelled`. For tools
 * that poll (a STATE value, a file) between checks: never a bare setTimeout that outlives a cancel.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new McbridgeError('cancelled', 'the wait was cancelled'));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new McbridgeError('cancelled', 'the wait was cancelled'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A tool's `work`, unless `signal` aborts and `work` has still not settled `graceMs` later: then a
 * `cancelled` error, so a tool that ignores its signal cannot keep a cancelled call from being
 * answered. The work is left to finish on its own, and the log says so. Every call goes through
 * here, so nothing is built for the cancel (message, timer) until one comes.
 */
export function settleOnCancel<T>(work: Promise<T>, signal: AbortLike, graceMs: number, tool: string, log: Logger): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      timer = setTimeout(() => {
        log.warn({ tool }, `tool '${tool}' ignored its cancel; answered without it`);
        reject(new McbridgeError('cancelled', `the call to '${tool}' was cancelled; it did not stop within ${graceMs / 1000} s and was left to finish on its own`));
      }, graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

import type { AbortLike } from './cancel.js';
import { McbridgeError } from './errors.js';
import type { Logger } from '../util/log.js';

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
    work.then((value) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    }, (err: unknown) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
  });
}

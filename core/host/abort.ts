import { McbridgeError } from './errors.js';

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
 * `work`, unless `signal` aborts and `work` has still not settled `graceMs` later: then a
 * `cancelled` error, so a tool that ignores its signal cannot keep a cancelled call from being
 * answered. The work is left to finish on its own; `onAbandon` says so.
 */
export function settleOnCancel<T>(work: Promise<T>, signal: AbortSignal, graceMs: number, what: string, onAbandon: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      timer = setTimeout(() => {
        onAbandon();
        reject(new McbridgeError('cancelled', `${what} was cancelled; it did not stop within ${graceMs / 1000} s and was left to finish on its own`));
      }, graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    work.then((v) => { done(); resolve(v); }, (e: unknown) => { done(); reject(e); });
  });
}

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

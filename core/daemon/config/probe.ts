/**
 * A config is code, and code can spin forever or wait on a promise that never settles. Before the
 * daemon evaluates a config on its own event loop, it is evaluated once in a worker thread that
 * can be stopped: a config that does not finish in time (or runs the worker out of memory) is
 * refused with a message, and the daemon, its reloads and SIGHUP keep working.
 */
import { createRequire } from 'node:module';
import { ConfigError } from './errors.js';
import { runningPackageAliases } from './self-alias.js';

/** How long a config may take to evaluate; MCBRIDGE_CONFIG_TIMEOUT (seconds) overrides it. */
export const DEFAULT_CONFIG_TIMEOUT_MS = 10_000;
/** Heap the probe may use: a config that allocates without end fails here, not in the daemon. */
const PROBE_HEAP_MB = 256;

export function configTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.MCBRIDGE_CONFIG_TIMEOUT);
  return env.MCBRIDGE_CONFIG_TIMEOUT && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_CONFIG_TIMEOUT_MS;
}

// Plain CommonJS, so the same text runs whether mcbridge runs from its sources or its build.
const PROBE_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
import(pathToFileURL(workerData.jiti).href)
  .then(({ createJiti }) => createJiti(workerData.file, { moduleCache: false, interopDefault: true, alias: workerData.alias }).import(workerData.file, { default: true }))
  .then(() => parentPort.postMessage('done'), () => parentPort.postMessage('done'));
`;

const jitiEntry = createRequire(import.meta.url).resolve('jiti');

function hangMessage(ms: number): string {
  return `did not finish loading within ${ms / 1000} s: look for an endless loop or a top-level await that never settles ` + '(set MCBRIDGE_CONFIG_TIMEOUT=<seconds> if it is only slow)';
}

/**
 * Evaluate `file` in a worker and wait for it to finish. Errors are left for the real load to
 * report in its own words; only a hang or a runaway heap is refused here.
 */
export async function probeConfig(file: string, timeoutMs: number): Promise<void> {
  // Loaded here: a daemon without a config never starts a worker.
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(PROBE_SOURCE, {
    eval: true,
    workerData: { file, jiti: jitiEntry, alias: runningPackageAliases() },
    resourceLimits: { maxOldGenerationSizeMb: PROBE_HEAP_MB },
    // stdout is data (MCP stdio): whatever the config prints goes to stderr.
    stdout: true,
    stderr: true,
  });
  worker.stdout.pipe(process.stderr);
  worker.stderr.pipe(process.stderr);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new ConfigError(file, [{ path: '', message: hangMessage(timeoutMs) }])), timeoutMs);
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        fn();
      };
      worker.once('message', () => settle(resolve));
      worker.once('error', (err: Error & { code?: string }) =>
        settle(() => {
          if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
            reject(new ConfigError(file, [{ path: '', message: `ran out of memory while loading (over ${PROBE_HEAP_MB} MB)` }]));
          } else {
            resolve();
          }
        }),
      );
      worker.once('exit', () => settle(resolve));
    });
  } finally {
    await worker.terminate();
  }
}

/** The same bound for the daemon's own evaluation, in case the config behaves differently the second time. */
export function withinConfigTimeout<T>(file: string, promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ConfigError(file, [{ path: '', message: hangMessage(timeoutMs) }])), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

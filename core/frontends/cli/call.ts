import { ApiClient, callTimeoutError } from '../../api/client.js';
import { McbridgeError } from '../../host/errors.js';
import { EXIT, outcomeHint, UsageError } from './exit.js';
import type { GlobalOptions } from './options.js';
import { describeCall, isLongCall, seconds, Spinner } from './spinner.js';
import { withTarget } from '../target-param.js';
import { singleTarget } from './target.js';

export function parseParams(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`params must be a JSON object, e.g. '{"radius": 16}': ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`params must be a JSON object, e.g. '{"radius": 16}', not ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

/**
 * How long a call given up on (--timeout, Ctrl-C) waits for the daemon's answer to its cancel.
 * That answer says what became of a write: its request id, and whether it was sent (it may have
 * run) or not (safe to send again). Bounded: a daemon that does not answer cannot hold the CLI.
 */
export const GIVE_UP_GRACE_MS = 2_000;

/** The answer, or, once `signal` fires, the daemon's answer within the grace; null when none came. */
function answerWithinGrace(answer: Promise<unknown>, signal: AbortSignal): Promise<{ result: unknown } | null> {
  return new Promise((resolve, reject) => {
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => (grace = setTimeout(() => resolve(null), GIVE_UP_GRACE_MS));
    signal.addEventListener('abort', onAbort, { once: true });
    answer
      .then((result) => resolve({ result }), reject)
      .finally(() => {
        clearTimeout(grace);
        signal.removeEventListener('abort', onAbort);
      });
  });
}

/** What the daemon's answer to a cancel says of the call: its write's outcome, if it was one. */
function outcomeOf(err: unknown): McbridgeError['outcome'] {
  return err instanceof McbridgeError && err.code === 'cancelled' ? err.outcome : undefined;
}

/**
 * `mcbridge call <method> [params]`: one call, the result as JSON on stdout. A long call on a
 * terminal shows a spinner line; Ctrl-C cancels the call in the daemon and says so in words, as
 * does `--timeout`. A write given up on is named by its request id, with whether it may have run.
 */
export async function callCommand(method: string, paramsText: string | undefined, opts: { progress?: boolean }, global: GlobalOptions): Promise<void> {
  const params = withTarget(parseParams(paramsText), singleTarget(global.target, 'call'));
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  const controller = new AbortController();
  const started = Date.now();
  let gaveUp: 'timeout' | 'interrupt' | undefined;
  const giveUp = (why: 'timeout' | 'interrupt') => {
    gaveUp ??= why;
    controller.abort();
  };
  const onSigint = () => giveUp('interrupt');
  process.once('SIGINT', onSigint);
  const timeoutMs = global.timeout !== undefined ? global.timeout * 1000 : undefined;
  const timer = timeoutMs !== undefined ? setTimeout(() => giveUp('timeout'), timeoutMs) : undefined;
  // --progress prints lines for scripts; the spinner is for a person at a terminal.
  const spinner = !opts.progress && process.stderr.isTTY && isLongCall(method) ? new Spinner(describeCall(method, params)) : undefined;
  try {
    const call = client.call(method, params, {
      signal: controller.signal,
      onProgress: opts.progress
        ? (p) => process.stderr.write(`progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? ` ${p.message}` : ''}\n`)
        : spinner
          ? (p) => spinner.update(p)
          : undefined,
    });
    const answered = await answerWithinGrace(call, controller.signal).catch((err: unknown) => {
      // Only the daemon's word on the cancel is ours to read; any other error says what it says.
      if (gaveUp === undefined || !(err instanceof McbridgeError) || err.code !== 'cancelled') throw err;
      return { cancelled: err };
    });
    spinner?.stop();
    if (answered === null || 'cancelled' in answered) {
      const outcome = answered === null ? undefined : outcomeOf(answered.cancelled);
      const unconfirmed = answered === null ? `; the daemon did not confirm the cancel within ${seconds(GIVE_UP_GRACE_MS)}: if ${method} writes, it may have run` : '';
      if (gaveUp === 'timeout') throw callTimeoutError(method, timeoutMs!, outcome, unconfirmed);
      process.stderr.write(`cancelled ${describeCall(method, params)} after ${seconds(Date.now() - started)}${unconfirmed}\n${outcome ? outcomeHint(outcome) + '\n' : ''}`);
      process.exitCode = EXIT.interrupted;
      return;
    }
    printResult(method, answered.result);
  } catch (err) {
    spinner?.stop();
    throw err;
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSigint);
    client.close();
  }
}

/** The result on stdout; a refused command or a wait without its match also exits 1. */
function printResult(method: string, result: unknown): void {
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  // The call worked but the game did not run the command (`refused`, kit/command-refusal.ts): a script must see it.
  const refused = result as { refused?: unknown; refusal?: unknown; timedOut?: unknown; waitedMs?: unknown } | null;
  if (refused?.refused === true) {
    process.stderr.write(`error: the game refused the command: ${String(refused.refusal ?? '').replaceAll('\n', ' | ')}\n`);
    process.exitCode = EXIT.failed;
  }
  // A wait that ended without its match (`wait_for`'s `timedOut`) is a timeout, exit 1, as docs/cli.md says.
  if (refused?.timedOut === true) {
    const waited = typeof refused.waitedMs === 'number' ? ` after ${seconds(refused.waitedMs)}` : '';
    process.stderr.write(`error: ${method} timed out${waited} without a match; what happened meanwhile is on stdout [timeout]\n`);
    process.exitCode = EXIT.failed;
  }
}

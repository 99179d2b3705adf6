import { ApiClient } from '../../api/client.js';
import { McbridgeError } from '../../host/errors.js';
import { EXIT, UsageError } from './exit.js';
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
 * `mcbridge call <method> [params]`: one call, the result as JSON on stdout. A long call on a
 * terminal shows a spinner line; Ctrl-C cancels the call in the daemon and says so in words.
 */
export async function callCommand(method: string, paramsText: string | undefined, opts: { progress?: boolean }, global: GlobalOptions): Promise<void> {
  const params = withTarget(parseParams(paramsText), singleTarget(global.target, 'call'));
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  const controller = new AbortController();
  const started = Date.now();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  // --progress prints lines for scripts; the spinner is for a person at a terminal.
  const spinner = !opts.progress && process.stderr.isTTY && isLongCall(method) ? new Spinner(describeCall(method, params)) : undefined;
  try {
    const result = await client.call(method, params, {
      signal: controller.signal,
      timeoutMs: global.timeout !== undefined ? global.timeout * 1000 : undefined,
      onProgress: opts.progress
        ? (p) => process.stderr.write(`progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? ` ${p.message}` : ''}\n`)
        : spinner
          ? (p) => spinner.update(p)
          : undefined,
    });
    spinner?.stop();
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
  } catch (err) {
    spinner?.stop();
    if (controller.signal.aborted && err instanceof McbridgeError && err.code === 'cancelled') {
      process.stderr.write(`cancelled ${describeCall(method, params)} after ${seconds(Date.now() - started)}\n`);
      process.exitCode = EXIT.interrupted;
      return;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
    client.close();
  }
}

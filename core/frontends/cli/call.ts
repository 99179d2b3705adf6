import { ApiClient } from '../../api/client.js';
import { UsageError } from './exit.js';
import type { GlobalOptions } from './options.js';

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

/** `mcbridge call <method> [params]`: one call, the result as JSON on stdout. */
export async function callCommand(
  method: string,
  paramsText: string | undefined,
  opts: { progress?: boolean },
  global: GlobalOptions,
): Promise<void> {
  const params = parseParams(paramsText);
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  const controller = new AbortController();
  // Ctrl-C cancels the call in the daemon (a WAIT stops) and still prints its answer.
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const result = await client.call(method, params, {
      signal: controller.signal,
      timeoutMs: global.timeout !== undefined ? global.timeout * 1000 : undefined,
      onProgress: opts.progress
        ? (p) => process.stderr.write(`progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? ` ${p.message}` : ''}\n`)
        : undefined,
    });
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } finally {
    process.off('SIGINT', onSigint);
    client.close();
  }
}

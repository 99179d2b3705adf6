/**
 * A read-only call that names several targets (`target: '*'` or a list): run on each one's host
 * and answered per target, or with the first to succeed (`ToolSpec.acrossTargets`). The tool
 * itself only ever sees its own target (docs/targets.md, "Several targets in one call").
 */
import { Cancellation } from '../host/cancel.js';
import { McbridgeError, toMcbridgeError } from '../host/errors.js';
import type { CallOptions, Host } from '../host/host.js';
import { ALL_TARGETS, type Targets } from './targets.js';

/** Whether a call's `target` names several targets. */
export function namesSeveral(target: unknown): boolean {
  return target === ALL_TARGETS || (Array.isArray(target) && (target.length !== 1 || target[0] === ALL_TARGETS));
}

/** An answer of `each`: every target's result or error, and the cursors to come back with. */
export interface PerTarget {
  targets: Record<string, unknown>;
  errors?: Record<string, { code: string; error: string }>;
  /** Each target's `next` (an event cursor): send it back as `since`, as it is. */
  next?: Record<string, unknown>;
}

/**
 * `since` for several targets is an object of cursors keyed by target (the `next` of the
 * previous answer); a target it leaves out starts as a call without `since` would.
 */
function paramsFor(host: Host, params: Record<string, unknown>): Record<string, unknown> {
  const { target: _target, since, ...rest } = params;
  if (since === undefined) return rest;
  if (since === null || typeof since !== 'object' || Array.isArray(since)) {
    throw new McbridgeError(
      'invalid_params',
      `with several targets "since" is an object of cursors by target, e.g. {"live": 12, "lab": 40} (the "next" of the previous answer); got ${JSON.stringify(since)}`,
    );
  }
  const own = (since as Record<string, unknown>)[host.target];
  return own === undefined ? rest : { ...rest, since: own };
}

export async function fanOut(targets: Targets, method: string, params: Record<string, unknown>, options: CallOptions & { signal: Cancellation }): Promise<unknown> {
  const hosts = targets.pickMany(params.target);
  const tool = hosts.map((h) => h.registry.get(method)).find((t) => t !== undefined);
  if (!tool) throw new McbridgeError('unknown_method', `unknown method '${method}' on ${hosts.map((h) => h.target).join(', ')}. Call "tools" for the methods this daemon serves.`, { method });
  if (tool.annotations.readOnly !== true) {
    throw new McbridgeError('invalid_params', `'${method}' can change a game, so it runs on one target at a time: name one in "target" (one of ${targets.names().join(', ')})`);
  }
  for (const host of hosts) paramsFor(host, params); // a bad `since` is refused before anything runs
  if (tool.spec.acrossTargets === 'first') return first(hosts, method, params, options);
  const settled = await Promise.allSettled(hosts.map((host) => host.call(method, paramsFor(host, params), options)));
  const out: PerTarget = { targets: {} };
  settled.forEach((outcome, i) => {
    const name = hosts[i]!.target;
    if (outcome.status === 'fulfilled') {
      out.targets[name] = outcome.value;
      const next = (outcome.value as { next?: unknown } | null)?.next;
      if (next !== undefined) (out.next ??= {})[name] = next;
    } else {
      const error = toMcbridgeError(outcome.reason);
      (out.errors ??= {})[name] = { code: error.code, error: error.message };
    }
  });
  if (options.signal.aborted) throw new McbridgeError('cancelled', `the call to '${method}' was cancelled`);
  return out;
}

/** The first target to succeed answers, naming itself; the others are cancelled. Every one failing fails with each reason. */
async function first(hosts: Host[], method: string, params: Record<string, unknown>, options: CallOptions & { signal: Cancellation }): Promise<unknown> {
  const cancels = hosts.map(() => new Cancellation());
  const stopAll = () => {
    for (const c of cancels) c.abort();
  };
  options.signal.addEventListener('abort', stopAll);
  try {
    return await Promise.any(
      hosts.map(async (host, i) => {
        const result = await host.call(method, paramsFor(host, params), { ...options, signal: cancels[i]! });
        return { target: host.target, result };
      }),
    );
  } catch (err) {
    if (options.signal.aborted) throw new McbridgeError('cancelled', `the call to '${method}' was cancelled`);
    const reasons = (err as AggregateError).errors.map((e, i) => `${hosts[i]!.target}: ${toMcbridgeError(e).message}`);
    const codes = new Set((err as AggregateError).errors.map((e) => toMcbridgeError(e).code));
    const code = codes.size === 1 ? [...codes][0]! : 'unavailable';
    throw new McbridgeError(code, `'${method}' failed on every target it named (${reasons.join('; ')})`);
  } finally {
    stopAll();
    options.signal.removeEventListener('abort', stopAll);
  }
}

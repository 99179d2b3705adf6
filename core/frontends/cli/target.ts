/**
 * Which game server a client command talks to: `--target NAME` (global), else MCBRIDGE_TARGET,
 * else the daemon's own rule (the target marked default, then the only one). A client option
 * only: the daemon's config already says which target is the default (`default: true`), so a
 * `target` key in the config would say it twice (docs/decisions.md, "--target is a client option").
 */
import type { ApiClient, ClientCallOptions } from '../../api/client.js';
import { ALL_TARGETS, TARGET_NAME } from '../../api/targets.js';
import type { McbridgeError } from '../../host/errors.js';
import { withTarget } from '../target-param.js';
import { UsageError } from './exit.js';

export const TARGET_ENV = 'MCBRIDGE_TARGET';

/** Why `text` is not a target, a comma list of targets, or `*`; null when it is one. */
export function targetProblem(text: string): string | null {
  if (text === ALL_TARGETS) return null;
  const bad = text.split(',').find((name) => !TARGET_NAME.test(name.trim()));
  if (bad === undefined) return null;
  return `expected a target name (letters, digits, '.', '_', '-'), a comma list of names, or '${ALL_TARGETS}', got '${text}'`;
}

/** The target given in the environment, checked; undefined when unset or empty. */
export function targetFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const text = env[TARGET_ENV];
  if (!text) return undefined;
  const problem = targetProblem(text);
  if (problem) throw new UsageError(`${TARGET_ENV}: ${problem}; fix it or unset it`);
  return text;
}

/** The targets a command that follows several (watch) names: one name, a list, or `*`. */
export function targetSelection(target: string | undefined): string | string[] | undefined {
  if (target === undefined || target === ALL_TARGETS) return target;
  const names = [
    ...new Set(
      target
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
    ),
  ];
  return names.length === 1 ? names[0] : names;
}

/** The one target a command that calls a tool names; a list or `*` is a usage error there. */
export function singleTarget(target: string | undefined, command: string): string | undefined {
  const selection = targetSelection(target);
  if (selection === undefined || (typeof selection === 'string' && selection !== ALL_TARGETS)) return selection;
  throw new UsageError(`${command} runs on one target; give --target one name (watch follows several: --target a,b or '${ALL_TARGETS}')`);
}

/**
 * A question about the daemon asked through one target's tool (`status`): the named target,
 * else the daemon's default, else, on a daemon of several with none marked default, the first
 * it lists; the answer's `targets` section covers every link anyway. `first`: that first one,
 * named, so that what the answer says can be said to be of it.
 */
export async function callSomeTarget(client: ApiClient, method: string, target: string | undefined, options: ClientCallOptions = {}): Promise<{ answer: unknown; first?: string }> {
  try {
    return { answer: await client.call(method, withTarget({}, target), options) };
  } catch (err) {
    const names = (err as McbridgeError).details?.targets;
    if (target !== undefined || (err as McbridgeError).code !== 'target_required' || !Array.isArray(names) || typeof names[0] !== 'string') throw err;
    return { answer: await client.call(method, { target: names[0] }, options), first: names[0] };
  }
}

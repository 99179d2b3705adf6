import { McbridgeError } from '../../host/errors.js';

/** The CLI's exit codes: scripts branch on these. */
/** `interrupted`: Ctrl-C ended the command (the shell's 128 + SIGINT), as the predecessor's CLI did. */
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3, interrupted: 130 } as const;

export class UsageError extends Error {}

/**
 * The daemon's refusals that mean the command line must change: name a target (--target,
 * MCBRIDGE_TARGET), or one that exists. Usage errors, whoever noticed them.
 */
const USAGE_CODES = new Set(['target_required', 'target_unknown']);
/** Refusals whose fix is on the command line too: a port taken (pick another with --api-port, or mcp's --port). */
const USAGE_REASONS = new Set(['port_taken']);

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof McbridgeError && (USAGE_CODES.has(err.code) || USAGE_REASONS.has(String(err.details?.reason)))) return EXIT.usage;
  if (err instanceof McbridgeError && err.details?.reason === 'daemon_unreachable') return EXIT.unreachable;
  return EXIT.failed;
}

/**
 * What a failed write leaves a person to do (docs/control.md, "Writes whose result is unknown"):
 * also said of a write the CLI gave up on (call.ts).
 */
export function outcomeHint(o: NonNullable<McbridgeError['outcome']>): string {
  if (o.resultUnknown) return `request ${o.requestId}: it may have run. Check with \`mcbridge request-status ${o.requestId}\` or look at the game; do not send it again under a new id`;
  if (o.retryable) return `request ${o.requestId}: it was not sent; sending it again is safe`;
  return `request ${o.requestId}: the game refused it; it did not run`;
}

/** One line on stderr for a person; the code in brackets for a script. */
export function describeError(err: unknown): string {
  if (err instanceof McbridgeError && err.outcome) return `error: ${err.message} [${err.code}]\n${outcomeHint(err.outcome)}`;
  if (err instanceof McbridgeError) return `error: ${err.message} [${err.code}]`;
  if (err instanceof Error) return `error: ${err.message}`;
  return `error: ${String(err)}`;
}

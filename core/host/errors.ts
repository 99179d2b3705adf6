/**
 * Every refusal mcbridge makes carries a machine `code` from this closed set and a
 * human message that says what to do. Front-ends pass both through unchanged.
 */
export const ERROR_CODES = [
  'invalid_request', // the frame itself is not a request (not JSON, not an object, no method)
  'unauthorized', // the daemon requires a token and the request did not carry the right one
  'invalid_params', // the method exists but its params do not validate
  'unknown_method', // no tool or local method by that name
  'unsupported_capability', // the connected mod does not advertise what the tool needs
  'tool_disabled', // hidden by policy or read-only mode
  'not_connected', // no live link to the mod
  'timeout', // the mod (or a wait) did not answer in time
  'cancelled', // the caller cancelled the request
  'mod_error', // the mod answered with an error reply
  'unavailable', // the daemon cannot serve this now (e.g. shutting down)
  'busy', // another operation holds what this one needs (a fork running on this game); retry when it ends
  'forbidden', // the game's control credential lacks the permission (a read-only credential and a write)
  'conflict', // a lease is held by another credential; details name the holder
  'not_found', // the game knows no such thing (a lease key, a request id)
  'target_required', // the daemon serves several targets (game servers) and the call named none, with no default
  'target_unknown', // the call named a target the daemon does not serve
  'server_failed', // a server the daemon launches did not start, exited before its mod answered, or its world could not be put in place; details carry the exit code and last lines
  'scenario_failed', // a config scenario stopped at a step: details name the step, its tool and the cause (a call's error, an expectation's expected vs actual)
  'internal', // a bug: a handler threw something unexpected
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * What a failed write (a command, chat, mark, snapshot, and every tool built on them) leaves
 * behind: whether it is safe to send again, whether it may have run, and the request id that
 * `request_status` resolves (docs/control.md, "Writes whose result is unknown").
 */
export interface WriteOutcome {
  retryable: boolean;
  resultUnknown: boolean;
  requestId: string;
}

export class McbridgeError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** Set on the errors of writes only. */
  readonly outcome: WriteOutcome | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, outcome?: WriteOutcome) {
    super(message);
    this.name = 'McbridgeError';
    this.code = code;
    this.details = details;
    this.outcome = outcome;
  }

  /** The same error, saying what became of the write it ended. */
  withOutcome(outcome: WriteOutcome): McbridgeError {
    return new McbridgeError(this.code, this.message, this.details, outcome);
  }

  toJSON(): { code: ErrorCode; error: string; details?: Record<string, unknown> } & Partial<WriteOutcome> {
    return { code: this.code, error: this.message, ...(this.details === undefined ? {} : { details: this.details }), ...this.outcome };
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** Anything thrown, as a typed error; unknown throwables become `internal`. */
export function toMcbridgeError(err: unknown): McbridgeError {
  if (err instanceof McbridgeError) return err;
  // A plugin package can load its own copy of mcbridge (its `mcbridge` peer resolved to another
  // path, or a test importing sources next to a built package): recognise the error by shape.
  const foreign = err as { name?: unknown; code?: unknown; message?: unknown; details?: unknown; outcome?: unknown } | null;
  if (err instanceof Error && foreign?.name === 'McbridgeError' && isErrorCode(foreign.code)) {
    const details = foreign.details && typeof foreign.details === 'object' ? (foreign.details as Record<string, unknown>) : undefined;
    return new McbridgeError(foreign.code, err.message, details, readOutcome(foreign.outcome));
  }
  if (err instanceof Error && err.name === 'AbortError') {
    return new McbridgeError('cancelled', 'the request was cancelled');
  }
  return new McbridgeError('internal', `internal error: ${describeThrown(err)}`);
}

/** A write outcome as a peer sent it (an error frame, a foreign copy of this class), or undefined. */
export function readOutcome(raw: unknown): WriteOutcome | undefined {
  const o = raw as Partial<WriteOutcome> | null | undefined;
  if (!o || typeof o.retryable !== 'boolean' || typeof o.resultUnknown !== 'boolean' || typeof o.requestId !== 'string') return undefined;
  return { retryable: o.retryable, resultUnknown: o.resultUnknown, requestId: o.requestId };
}

/** Longest wording of a thrown value that is no Error: enough to recognise it, never a payload. */
export const MAX_THROWN_TEXT = 500;

/**
 * What anything thrown says: its `message` when it has a string one (an Error, or a plain
 * `{ message }` object), else its JSON (cut to MAX_THROWN_TEXT), else `String(err)`; never
 * `[object Object]`.
 */
export function describeThrown(err: unknown): string {
  const message = (err as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string') return message;
  if (err !== null && typeof err === 'object') {
    try {
      const json = JSON.stringify(err);
      if (json !== undefined) return json.length > MAX_THROWN_TEXT ? `${json.slice(0, MAX_THROWN_TEXT)}…` : json;
    } catch {
      // Cyclic, a BigInt, or too deep: its keys say what it was.
      return `a thrown object JSON cannot show (keys: ${Object.keys(err).slice(0, 10).join(', ')})`;
    }
  }
  return String(err);
}

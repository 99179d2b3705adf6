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
  'target_required', // the daemon serves several targets (game servers) and the call named none, with no default
  'target_unknown', // the call named a target the daemon does not serve
  'internal', // a bug: a handler threw something unexpected
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class McbridgeError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'McbridgeError';
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ErrorCode; error: string; details?: Record<string, unknown> } {
    return this.details === undefined ? { code: this.code, error: this.message } : { code: this.code, error: this.message, details: this.details };
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
  const foreign = err as { name?: unknown; code?: unknown; message?: unknown; details?: unknown } | null;
  if (err instanceof Error && foreign?.name === 'McbridgeError' && isErrorCode(foreign.code)) {
    const details = foreign.details && typeof foreign.details === 'object' ? (foreign.details as Record<string, unknown>) : undefined;
    return new McbridgeError(foreign.code, err.message, details);
  }
  if (err instanceof Error && err.name === 'AbortError') {
    return new McbridgeError('cancelled', 'the request was cancelled');
  }
  return new McbridgeError('internal', `internal error: ${describeThrown(err)}`);
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

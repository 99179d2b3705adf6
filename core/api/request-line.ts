import { McbridgeError } from '../host/errors.js';
import { describeZodError } from '../host/host.js';
import { exceedsJsonDepth, MAX_REQUEST_DEPTH } from '../util/json-depth.js';
import { readTopLevelIdText } from '../util/json-id.js';
import { requestFrame, type RequestFrame } from './frames.js';

/** Longest string id echoed back: ids are correlation tags, not payloads. */
export const MAX_ID_LENGTH = 256;

export type RequestId = string | number | null;

export type ParsedRequest =
  | { ok: true; id: RequestId; frame: RequestFrame }
  /** `id` is the request's own when it was readable, else null. */
  | { ok: false; id: RequestId; error: McbridgeError };

const EXAMPLE = 'e.g. {"id":1,"method":"status","params":{}}';

function refused(id: RequestId, code: 'invalid_request' | 'invalid_params', message: string): ParsedRequest {
  return { ok: false, id, error: new McbridgeError(code, message) };
}

/**
 * One request line, checked in the order that keeps every answer cheap and safe to send:
 * nesting before parsing, then the id (it is echoed in the answer, so it must be a small
 * scalar), then the rest of the envelope.
 */
export function parseRequestLine(line: string): ParsedRequest {
  if (exceedsJsonDepth(line, MAX_REQUEST_DEPTH)) {
    return refused(readableId(line), 'invalid_request', `the request nests arrays or objects deeper than ${MAX_REQUEST_DEPTH} levels; send flatter params`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return refused(null, 'invalid_request', `the request is not valid JSON (${(err as Error).message}); send one JSON object per line, ${EXAMPLE}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return refused(null, 'invalid_request', `the request must be a JSON object, ${EXAMPLE}`);
  }
  const id = (raw as { id?: unknown }).id ?? null;
  if (!isRequestId(id)) {
    return refused(null, 'invalid_request', `the request id must be a string of at most ${MAX_ID_LENGTH} characters, a number or null, ${EXAMPLE}`);
  }
  const plain = plainFrame(raw as Record<string, unknown>);
  if (plain) return { ok: true, id, frame: plain };
  const parsed = requestFrame.safeParse(raw);
  if (!parsed.success) {
    const paramsOnly = parsed.error.issues.every((i) => i.path[0] === 'params');
    return refused(id, paramsOnly ? 'invalid_params' : 'invalid_request', describeZodError(parsed.error, 'request'));
  }
  return { ok: true, id, frame: parsed.data };
}

/**
 * The everyday request (a method, maybe params, progress and auth, no caller), checked by hand:
 * the same rules as `requestFrame`, without building a copy of the request on every call. Anything
 * else, and anything wrong, goes to the schema, which also words the error.
 */
function plainFrame(raw: Record<string, unknown>): RequestFrame | null {
  const { method, params, progress, auth } = raw;
  if (typeof method !== 'string' || method.length === 0 || method.length > 128) return null;
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) return null;
  if (progress !== undefined && typeof progress !== 'boolean') return null;
  if (auth !== undefined && typeof auth !== 'string') return null;
  if (raw.caller !== undefined) return null;
  return { method, params: params as Record<string, unknown> | null | undefined, progress, auth };
}

/** The id of a line refused before it is parsed, when its text gives one that may be echoed. */
function readableId(line: string): RequestId {
  const text = readTopLevelIdText(line);
  const id: unknown = text === undefined ? null : JSON.parse(text);
  return isRequestId(id) ? id : null;
}

function isRequestId(id: unknown): id is RequestId {
  return id === null || (typeof id === 'number' && Number.isFinite(id)) || (typeof id === 'string' && id.length <= MAX_ID_LENGTH);
}

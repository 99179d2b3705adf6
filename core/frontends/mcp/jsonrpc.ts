/**
 * The JSON-RPC 2.0 and MCP facts the front-end's own protocol layer (protocol.ts) needs: error
 * codes, the protocol versions it speaks, and the checks of a request's params. Types come from
 * the MCP SDK (type-only imports, nothing loaded at run time); a test holds the constants to the
 * SDK's.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isObject } from '../../kit/values.js';
import { MAX_REQUEST_DEPTH } from '../../util/json-depth.js';

export type { JSONRPCMessage };

/** The newest first, as the SDK lists them; a client asking for another version is offered the newest. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0]!;

/**
 * How deep a client's message may nest: as deep as the daemon takes a request
 * (MAX_REQUEST_DEPTH). A deeper message would only fail later, as a stack overflow in
 * JSON.stringify: it is refused as it arrives, before it is parsed.
 */
export const MAX_MESSAGE_DEPTH = MAX_REQUEST_DEPTH;

export const TOO_DEEP = `a message nesting deeper than ${MAX_MESSAGE_DEPTH} levels was dropped: tool arguments nest a few levels at most`;

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** MCP's code for an unknown resource. */
  resourceNotFound: -32002,
} as const;

/** An error answered to the client as a JSON-RPC error: its `code`, `message` and `data` go out as they are. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export type RequestId = string | number;

export type Params = Record<string, unknown>;

/** A JSON-RPC error response; `id` null when the request's own id could not be read. */
export function errorResponse(id: RequestId | null, code: number, message: string, data?: unknown): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } } as unknown as JSONRPCMessage;
}

/** `params[key]` as a string, or an invalid-params error naming it. */
export function stringParam(params: Params, key: string, method: string): string {
  const value = params[key];
  if (typeof value !== 'string') {
    throw new RpcError(RPC.invalidParams, `${method}: params.${key} must be a string, got ${describe(value)}`);
  }
  return value;
}

/** `params[key]` as an object (absent: `{}`), or an invalid-params error naming it. */
export function objectParam(params: Params, key: string, method: string): Params {
  const value = params[key];
  if (value === undefined) return {};
  if (!isObject(value)) throw new RpcError(RPC.invalidParams, `${method}: params.${key} must be an object, got ${describe(value)}`);
  return value;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/**
 * One MCP message as text (a stdio line, an HTTP body) to a parsed message, or to the error
 * answer it gets, as text, so that the request's id goes back exactly as the client wrote it
 * even where JSON.parse could not keep it: a message refused before parsing (nested too deep)
 * is answered with its id when its id is readable, and a number id JSON.parse would change
 * (`1e400` is Infinity, `9007199254740993` is rounded) is refused, echoed as written.
 */
import { exceedsJsonDepth } from '../../util/json-depth.js';
import { readTopLevelIdText } from '../../util/json-id.js';
import { isObject } from '../../kit/values.js';
import { MAX_MESSAGE_DEPTH, RPC, TOO_DEEP } from './jsonrpc.js';

export type ParsedMessage = { message: unknown } | { error: string };

/** A JSON-RPC error answer as text; `idText` is the id's JSON text ('null' when unreadable). */
export function errorText(idText: string, code: number, message: string): string {
  return `{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify({ code, message })}}`;
}

export function parseMessage(text: string): ParsedMessage {
  if (exceedsJsonDepth(text, MAX_MESSAGE_DEPTH)) {
    return { error: errorText(readTopLevelIdText(text) ?? 'null', RPC.invalidRequest, TOO_DEEP) };
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (err) {
    return { error: errorText('null', RPC.parseError, `Parse error: each line must be one JSON-RPC message (${(err as Error).message})`) };
  }
  const inexact = Array.isArray(message) ? message.some(hasInexactId) : hasInexactId(message);
  if (inexact) {
    const idText = Array.isArray(message) ? 'null' : (readTopLevelIdText(text) ?? 'null');
    return {
      error: errorText(
        idText,
        RPC.invalidRequest,
        `a number id that JSON cannot carry exactly (${Array.isArray(message) ? 'in a batch' : idText}) was refused: ` + `use a string id or an integer of at most ${Number.MAX_SAFE_INTEGER}`,
      ),
    };
  }
  return { message };
}

/** A number id past 2^53 or not finite: it would come back as another number. */
function hasInexactId(message: unknown): boolean {
  if (!isObject(message) || typeof message.id !== 'number') return false;
  const id = message.id;
  return !Number.isFinite(id) || (Number.isInteger(id) && !Number.isSafeInteger(id));
}

/**
 * The raw text of a JSON object's top-level `"id"` member, read without parsing the rest: a
 * request refused before it is parsed (nested too deep) can still be answered with its own id,
 * and a number id can be echoed exactly as the client wrote it (`1e400`, `9007199254740993`),
 * which `JSON.parse` would turn into Infinity or round.
 */
import { closingQuote } from './json-depth.js';
import { CLOSE_BRACE, CLOSE_BRACKET, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-chars.js';

const SCALAR_ID = /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;

/**
 * The last top-level `"id"` member's value text (as `JSON.parse` keeps the last of duplicates),
 * when it is a string or a number; undefined when there is none, it is anything else, or the
 * text is not an object.
 */
export function readTopLevelIdText(text: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  let found: string | undefined;
  let depth = 1;
  let expectKey = true;
  for (i += 1; i < text.length && depth > 0; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (end === -1) return undefined;
      if (depth === 1 && expectKey) {
        const key = text.slice(i, end + 1);
        const colon = skipSpace(text, end + 1);
        if (text[colon] !== ':') return undefined;
        const start = skipSpace(text, colon + 1);
        const valueEnd = scalarEnd(text, start);
        if (isIdKey(key)) {
          const value = text.slice(start, valueEnd).trimEnd();
          found = SCALAR_ID.test(value) ? value : undefined;
        }
        expectKey = false;
        i = Math.max(colon, valueEnd - 1);
        continue;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (c === COMMA && depth === 1) {
      expectKey = true;
    }
  }
  return found;
}

function isIdKey(key: string): boolean {
  if (key === '"id"') return true;
  if (!key.includes('\\')) return false;
  try {
    return JSON.parse(key) === 'id';
  } catch {
    return false;
  }
}

/** Where a value starting at `start` ends when it is a scalar: at the next `,` or `}` (strings skipped); else `start`. */
function scalarEnd(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return start;
  if (c === QUOTE) {
    const end = closingQuote(text, start);
    return end === -1 ? text.length : end + 1;
  }
  let i = start;
  while (i < text.length && text.charCodeAt(i) !== COMMA && text.charCodeAt(i) !== CLOSE_BRACE) i++;
  return i;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return i;
}

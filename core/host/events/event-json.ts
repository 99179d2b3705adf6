/**
 * Encoding a recorded event by reusing the mod's own JSON text. Re-encoding every pushed
 * event with JSON.stringify was the relay's largest cost; the event is the mod's object
 * plus a few fields, so its text is the mod's text plus those fields. These helpers decide
 * when that holds and do the splice; anything unusual falls back to JSON.stringify.
 */
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../../util/json-chars.js';

/** The fields `EventLog.record` adds, in the order it adds them (after the mod's own). */
export interface AddedFields {
  seq: number;
  category: string;
  receivedAt: number;
  contextId?: string | undefined;
  /** Set when the mod's object had its own `seq`, which `record` keeps as `modSeq`. */
  modSeq?: unknown;
}

/**
 * Whether `record` builds its event from `raw` by keeping the mod's keys in place and
 * adding fields: `raw` has a string `type` and none of the added fields, except `seq`
 * (a chat event's own), whose value `record` replaces in place and keeps as `modSeq`.
 */
export function canSplice(raw: Record<string, unknown>): boolean {
  return (
    typeof raw.type === 'string' &&
    raw.modSeq === undefined &&
    raw.streamId === undefined &&
    raw.eventId === undefined &&
    raw.category === undefined &&
    raw.receivedAt === undefined &&
    raw.contextId === undefined
  );
}

/**
 * The event's JSON text from the mod's text `source` (which `canSplice` accepted) and
 * `ids`, the pre-encoded `,"streamId":"…","eventId":"…:` prefix, as pieces to be written
 * one after another (a writer copies them without building one string first); null when
 * the source's own `seq` cannot be located exactly once at the top level.
 */
export function spliceEventJson(source: string, event: AddedFields, ids: string): string[] | null {
  const close = source.lastIndexOf('}');
  let pieces: string[];
  if (event.modSeq === undefined) {
    pieces = [source.slice(0, close), `,"seq":${event.seq}`];
  } else {
    // `seq` stays where the mod put it, with our value; the mod's value moves to `modSeq`.
    const span = topLevelValueSpan(source, 'seq');
    if (span === null) return null;
    pieces = [source.slice(0, span.start), String(event.seq), source.slice(span.end, close), `,"modSeq":`, source.slice(span.start, span.end)];
  }
  let tail = `${ids}${event.seq}","category":"${event.category}","receivedAt":${event.receivedAt}`;
  if (event.contextId !== undefined) tail += `,"contextId":${JSON.stringify(event.contextId)}`;
  pieces.push(`${tail}}`);
  return pieces;
}

/**
 * Where the value of `key` in the top-level object of `text` starts and ends; null when
 * the key is absent, appears more than once (JSON.parse keeps the last value, at the
 * first key's position) or `text` is not an object. Expects valid JSON (it was parsed).
 */
export function topLevelValueSpan(text: string, key: string): { start: number; end: number } | null {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return null;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return null;
  let found: { start: number; end: number } | null = null;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return null;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return null;
    const raw = text.slice(i + 1, keyEnd - 1);
    const matches = raw.includes('\\') ? JSON.parse(text.slice(i, keyEnd)) === key : raw === key;
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return null;
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    if (end < 0) return null;
    if (matches) {
      if (found !== null) return null;
      found = { start, end };
    }
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACE) return found;
    if (c !== COMMA) return null;
    i = skipSpace(text, i + 1);
  }
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i += 1;
  }
}

/** Index just past the string that opens at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Index just past the value that starts at `i`, or -1. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < text.length; j += 1) {
      const d = text.charCodeAt(j);
      if (d === QUOTE) {
        j = stringEnd(text, j) - 1;
        if (j < 0) return -1;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) {
        depth += 1;
      } else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let j = i;
  for (; j < text.length; j += 1) {
    const d = text.charCodeAt(j);
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
  }
  return j > i ? j : -1;
}

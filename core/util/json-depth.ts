/**
 * Nesting bounds for JSON read from a socket. V8's `JSON.parse` copes with any depth, but
 * `JSON.stringify`, zod and every other recursive walk overflow the stack somewhere past a
 * few thousand levels: one 10 KB line of `[[[[...` used to kill the daemon when its request
 * id was echoed. Lines are checked before they are parsed, so nothing that deep ever exists
 * as a value.
 */
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-chars.js';

/** A local API request: an envelope around tool params, which are flat in practice. */
export const MAX_REQUEST_DEPTH = 64;

/** A line from the mod: its events carry game data (NBT-like trees), so more room. */
export const MAX_MOD_LINE_DEPTH = 128;

/**
 * Whether the JSON text nests arrays and objects deeper than `maxDepth`, counting `[` and `{`
 * outside strings. Linear, and cheap where it matters: a short line is cleared by its
 * length, and one with no more openers than the bound (almost every event) by `indexOf`.
 * Malformed text gives an answer that does not matter, because `JSON.parse` rejects it
 * before it nests anything.
 */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  // A value nested d deep takes 2d characters: a short line cannot be too deep.
  if (text.length <= 2 * maxDepth + 1 || openersAtMost(text, maxDepth)) return false;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i === -1) return false;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

function openersAtMost(text: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > max) return false;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > max) return false;
  return true;
}

/** The index of the quote that closes the string opened at `open`, or -1 if none does. */
export function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    // Escaped when an odd run of backslashes precedes it; the opening quote stops the walk.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/**
 * Input pieces several built-in plugins share: one-line text fields with messages that name
 * the field, and the number format the mod's Java parsers expect.
 */
import { z } from 'zod';

/** The predecessor's "one line" filter (docs/compatibility.md): each CR and LF becomes a space. */
function foldLineBreaks(text: string): string {
  return text.replace(/[\r\n]/g, ' ');
}

/**
 * A trimmed, non-empty, single-line string; messages name `field` and show an example. With
 * `fold`, line breaks are folded to spaces as the predecessor did, for free text (chat, mark)
 * where that cannot change what is done; without it they are refused (docs/compatibility.md).
 */
export function lineText(field: string, example: string, maxLength = 4096, { fold = false } = {}) {
  const text = z.string({ error: `${field} must be a string, e.g. ${example}` });
  return (fold ? text.overwrite(foldLineBreaks) : text)
    .trim()
    .min(1, `${field} must not be empty, e.g. ${example}`)
    .max(maxLength, `${field} must be at most ${maxLength} characters`)
    .refine((t) => !/[\r\n]/.test(t), `${field} must be a single line (no line breaks)`);
}

/** One Minecraft command, leading slash optional. */
export const commandText = lineText('command', '"time query daytime"').refine((c) => c.replace(/^\//, '').trim().length > 0, 'command must not be just a slash');

/** The mod parses a Java double; send one (`32.0`), as the predecessor did. */
export function javaDouble(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

// Here for plugins; in util/ so that the MCP front-end can use it without zod.
export { firstSentence } from '../util/text.js';

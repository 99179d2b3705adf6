/**
 * A command the game refused to run: vanilla does not fail the mod's `cmd_ack`, it puts the
 * refusal into the feedback lines (mod-protocol.md §2.10; docs/protocol.md). Recognised by
 * brigadier's own shapes: its "unknown or incomplete" and "incorrect argument" texts, and the
 * `...text<--[HERE]` line it adds to every syntax error (a wrong value, an unknown option). A
 * command that ran and did nothing ("No entity was found") is not a refusal: read `output`.
 */
import { z } from 'zod';

const REFUSAL_TEXTS = ['Unknown or incomplete command', 'Incorrect argument for command'];
const SYNTAX_CONTEXT = /<--\[HERE\]$/;

/** The refusal in `lines` (its text, with the context line), or null when the game ran the command. */
export function commandRefusal(lines: readonly string[]): string | null {
  const at = lines.findIndex((line) => REFUSAL_TEXTS.some((text) => line.startsWith(text)) || SYNTAX_CONTEXT.test(line));
  if (at < 0) return null;
  // A syntax error is two lines, the message and then its context: keep both.
  const start = SYNTAX_CONTEXT.test(lines[at]!) && at > 0 ? at - 1 : at;
  const end = SYNTAX_CONTEXT.test(lines[start + 1] ?? '') ? start + 2 : start + 1;
  return lines.slice(start, end).join('\n');
}

/** The result fields that say so; `refused` is absent when the lines are not known (the client vantage's `command`). */
export const commandRefusalFields = {
  refused: z.boolean().optional().describe('the game refused to run the command (unknown, incomplete, a syntax error): nothing was done'),
  refusal: z.string().optional().describe('when refused: the game\'s words, e.g. "Unknown or incomplete command, see below for error"'),
};

/** `{refused, refusal?}` for known output lines. */
export function refusalOf(lines: readonly string[]): { refused: boolean; refusal?: string } {
  const refusal = commandRefusal(lines);
  return refusal === null ? { refused: false } : { refused: true, refusal };
}

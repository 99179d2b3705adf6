/**
 * Output schemas for tools that return a mod reply (docs/protocol.md#replies-and-errors): the fields a caller
 * can count on, every other field the mod sends kept as it is. Loose on purpose: an output
 * schema is enforced, and a newer mod adding a field must not turn a good answer into an error.
 */
import { z } from 'zod';
import type { ModReply } from '../index.js';

/** `{"type": "<kind>", "millis": <ms>, ...}` plus the fields a tool documents. */
export function modReply<S extends z.ZodRawShape>(fields: S) {
  return z.looseObject({ type: z.string(), millis: z.number().optional(), ...fields });
}

/** `{"type": "<verb>_ack", "millis": <ms>, "detail": "<string>", ...}`: what an action verb answers. */
export const modAck = modReply({ detail: z.string().optional() });

/** A `cmd_ack`'s feedback lines reply, a multi-line entry split; none when absent. */
export function outputLines(reply: ModReply): string[] {
  const output = reply.output;
  if (!Array.isArray(output)) return [];
  return output.flatMap((line) => String(line).split('\n'));
}

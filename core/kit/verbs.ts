/**
 * The mod's general verbs, declared once: every plugin that sends `CMD` or
 * `STATE` spreads these, and the host refuses two different declarations of one verb.
 */
import { z } from 'zod';
import type { VerbSpec } from '../host/link/verbs.js';
import { REQUEST_ID } from '../host/link/writes.js';

/** `CMD <command>`: a write; over control protocol 1 the op `command`. One function, so every plugin declares it alike. */
function cmdVerb(arg: string): VerbSpec {
  return { replies: ['cmd_ack'], requires: ['command'], write: true, control: { op: 'command', params: { command: arg } } };
}

export const CMD_VERB = { CMD: cmdVerb };
export const STATE_VERB = { STATE: { replies: ['state'], requires: ['state'], control: { op: 'state' } } };

/**
 * The `request_id` param of a tool that writes: the caller's id for the write, so it can be
 * resent without running twice and resolved when its answer is lost (docs/control.md).
 */
export const requestIdParam = z
  .string()
  .regex(REQUEST_ID, '1 to 128 letters, digits or . _ : -')
  .optional()
  .describe(
    'your id for this write. Sending the same id again never runs it twice: a completed one answers again marked duplicate; ' +
      'one whose answer was lost is resolved with request_status. Without it one is made, and errors name it',
  );

import { z } from 'zod';
import { definePlugin, defineTool, McbridgeError, type RecordedEvent, type ToolContext } from 'mcbridge';
import { CMD_VERB, commandRefusalFields, commandText, refusalOf, requestIdParam } from 'mcbridge/kit';

const DEFAULT_OUTPUT_WAIT_SECONDS = 2;
const MIN_OUTPUT_WAIT_SECONDS = 0.1;
const MAX_OUTPUT_WAIT_SECONDS = 30;
/** Once a line has arrived, this much silence ends the collection early. */
const OUTPUT_QUIET_MS = 500;
/** More lines than this from one command are cut (`truncated`). */
const MAX_OUTPUT_LINES = 500;

const isOutputEvent = (e: RecordedEvent) => e.category === 'game' || e.category === 'chat';

const commandOutputResult = z.object({
  type: z.literal('command_output'),
  command: z.string(),
  output: z.array(z.string()),
  source: z.enum(['ack', 'events']),
  cursor: z.number().int(),
  truncated: z.boolean(),
  ...commandRefusalFields,
  note: z.string().optional(),
  /** The `wait` asked for was out of range: what was asked and what was used instead. */
  waitClamped: z.object({ requested: z.number(), used: z.number() }).optional(),
  duplicate: z.literal(true).optional().describe('this request_id ran before: the stored answer, the command did not run again'),
});
type CommandOutput = z.infer<typeof commandOutputResult>;

/**
 * Client vantage: the ack has no output, so the answer is the game and chat lines the client
 * received after the cursor. Collect until `waitMs` passed, or until OUTPUT_QUIET_MS passed
 * without another line once one arrived.
 */
async function collectLines(ctx: ToolContext, cursor: number, waitMs: number): Promise<RecordedEvent[]> {
  const lines: RecordedEvent[] = [];
  const streamId = ctx.events.streamId;
  const deadline = Date.now() + waitMs;
  let after = cursor;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0 || lines.length >= MAX_OUTPUT_LINES + 1) break;
    const budget = lines.length > 0 ? Math.min(remaining, OUTPUT_QUIET_MS) : remaining;
    try {
      const event = await ctx.events.waitFor(isOutputEvent, { since: { streamId, seq: after }, timeoutMs: budget });
      lines.push(event);
      after = event.seq;
    } catch (err) {
      if (err instanceof McbridgeError && err.code === 'timeout') break;
      throw err;
    }
  }
  return lines;
}

/** The predecessor's reading of `wait`: absent or 0 or less is the default, the rest clamped into range. */
function outputWait(asked: number | undefined): number {
  if (asked === undefined || asked <= 0) return DEFAULT_OUTPUT_WAIT_SECONDS;
  return Math.min(MAX_OUTPUT_WAIT_SECONDS, Math.max(MIN_OUTPUT_WAIT_SECONDS, asked));
}

export const commandOutputPlugin = definePlugin({
  name: 'command-output',
  version: '1.0.0',
  apiVersion: 1,
  guide: 'To run a Minecraft command, prefer `command_output` over `command` whenever the answer matters: it collects what the command printed, where `command` only acknowledges that it ran.',
  requires: { caps: ['command'] },
  verbs: CMD_VERB,
  tools: [
    defineTool({
      name: 'command_output',
      description:
        'Run one Minecraft command and return its answer as text lines: prefer this over `command` whenever the answer ' +
        'matters (queries such as "data get entity Steve Motion", "time query daytime", mod commands). Server vantage: ' +
        'the lines come straight from the mod\'s acknowledgement (`source: "ack"`), at the cost of one command. Client ' +
        'vantage: the command is sent as the local player and the answer is the game and chat messages received after ' +
        'it (`source: "events"`), collected for up to `wait` seconds (default 2) and ending early 0.5 s after the last ' +
        'line; unrelated messages arriving meanwhile can be included. `cursor` is the event seq just before the command ' +
        'was sent: `events {since: cursor}` shows everything that happened after it. A failing vanilla command is not ' +
        'an error: its failure text is the output. The command can change the world like any other.',
      input: z
        .object({
          command: commandText,
          // Out of range is clamped, not refused, as the predecessor did; the result says so (`waitClamped`).
          wait: z
            .number({ error: 'wait must be a number of seconds, e.g. 2' })
            .optional()
            .describe(
              `client vantage only: longest time in seconds to collect the answer (default 2; 0 or less means the default, otherwise clamped to ${MIN_OUTPUT_WAIT_SECONDS}-${MAX_OUTPUT_WAIT_SECONDS})`,
            ),
          request_id: requestIdParam,
        })
        .strict(),
      output: commandOutputResult,
      annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
      paramAliases: { requestId: 'request_id' },
      run: async ({ command, wait: asked, request_id }, ctx): Promise<CommandOutput> => {
        const wait = outputWait(asked);
        const clamped = wait === asked || asked === undefined ? {} : { waitClamped: { requested: asked, used: wait } };
        const cursor = ctx.events.lastSeq;
        const ack = await ctx.request(`CMD ${command}`, { requestId: request_id });
        const detail = typeof ack.detail === 'string' ? ack.detail : command.replace(/^\//, '');
        const duplicate = ack.duplicate === true ? { duplicate: true as const } : {};
        if (Array.isArray(ack.output)) {
          const output = ack.output.map(String);
          return { type: 'command_output', command: detail, output, source: 'ack', cursor, truncated: false, ...refusalOf(output), ...clamped, ...duplicate };
        }
        // Lines collected now would belong to whatever happens next, not to the command that ran before.
        if (ack.duplicate === true) {
          const note = 'this request_id ran before and was not run again; the lines it printed then were collected by that call';
          return { type: 'command_output', command: detail, output: [], source: 'ack', cursor, truncated: false, ...refusalOf([]), note, duplicate: true };
        }
        const lines = await collectLines(ctx, cursor, wait * 1000);
        const truncated = lines.length > MAX_OUTPUT_LINES;
        const kept = truncated ? lines.slice(0, MAX_OUTPUT_LINES) : lines;
        const output = kept.map((e) => (typeof e.text === 'string' ? e.text : ''));
        return {
          type: 'command_output',
          command: detail,
          output,
          source: 'events',
          cursor,
          truncated,
          ...refusalOf(output),
          note: 'collected from the game and chat messages received after the command; unrelated messages can be included',
          ...clamped,
        };
      },
    }),
  ],
});

export default commandOutputPlugin;

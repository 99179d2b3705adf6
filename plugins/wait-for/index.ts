import { z } from 'zod';
import { definePlugin, defineTool, McbridgeError, parseCursor, sleep, type Cursor, type RecordedEvent, type ToolContext } from 'mcbridge';
import { compactEvent, conditionHolds, cursorInput, EventCounter, eventFilterFields, eventMatcher, hasEventFilter, pathCondition, readPath } from 'mcbridge/kit';

const stateCondition = pathCondition('state', 'the STATE reply');
type StateCondition = z.infer<typeof stateCondition>;

const DEFAULT_WAIT_FOR_MS = 30_000;
/** Ten minutes: longer waits should be a loop of calls, each reporting what happened. */
const MAX_WAIT_FOR_MS = 600_000;
const DEFAULT_POLL_MS = 500;
const PROGRESS_EVERY_MS = 1_000;
const RECENT_ON_TIMEOUT = 10;

const matchInput = z
  .object(
    { ...eventFilterFields, state: stateCondition.optional() },
    {
      error: (issue) => (issue.code === 'invalid_type' ? 'match must be an object, e.g. {"type": "chat", "text": "hello"} or {"state": {"path": "players", "gte": 2}}' : undefined),
    },
  )
  .strict()
  .superRefine((m, ctx) => {
    const eventFields = hasEventFilter(m);
    if (m.state !== undefined && eventFields) {
      ctx.addIssue({ code: 'custom', message: 'match takes either event fields (category, type, text, sender) or state, not both: make two calls' });
    } else if (m.state === undefined && !eventFields) {
      ctx.addIssue({ code: 'custom', message: 'match needs at least one of category, type, text, sender, or state' });
    }
  });

/** What arrived after `start`: counts by category and type, and the newest few in short form. */
function seenSince(ctx: ToolContext, start: Cursor): Record<string, unknown> {
  const counter = new EventCounter();
  const recent: RecordedEvent[] = [];
  const page = ctx.events.scan(start, (e) => {
    counter.add(e);
    recent.push(e);
    if (recent.length > RECENT_ON_TIMEOUT) recent.shift();
  });
  const out: Record<string, unknown> = {
    total: counter.total,
    byCategory: counter.byCategory(),
    byType: counter.byType(),
    recent: recent.map((e) => compactEvent(e)),
  };
  if (page.evicted > 0) out.evicted = page.evicted;
  out.dropped = page.evicted > 0;
  return out;
}

type WaitForResult = Record<string, unknown> & { matched: boolean; cursor: number; waitedMs: number };

async function waitForEvent(ctx: ToolContext, match: (e: RecordedEvent) => boolean, start: Cursor, timeoutMs: number, started: number): Promise<WaitForResult> {
  try {
    const event = await ctx.events.waitFor(match, { since: start, timeoutMs });
    return { matched: true, event, cursor: event.seq, waitedMs: Date.now() - started };
  } catch (err) {
    if (!(err instanceof McbridgeError) || err.code !== 'timeout') throw err;
    return { matched: false, timedOut: true, waitedMs: Date.now() - started, seen: seenSince(ctx, start), cursor: ctx.events.lastSeq };
  }
}

const TRANSIENT = new Set(['not_connected', 'timeout', 'mod_error']);

async function waitForState(ctx: ToolContext, condition: StateCondition, start: Cursor, timeoutMs: number, pollMs: number, started: number): Promise<WaitForResult> {
  const deadline = started + timeoutMs;
  let polls = 0;
  let last: { present: boolean; value?: unknown } | undefined;
  let lastError: string | undefined;
  for (;;) {
    polls += 1;
    try {
      const state = (await ctx.call('state')) as Record<string, unknown>;
      last = readPath(state, condition.path);
      lastError = undefined;
      if (conditionHolds(condition, last)) {
        return { matched: true, state, value: last.value ?? null, polls, cursor: ctx.events.lastSeq, waitedMs: Date.now() - started };
      }
    } catch (err) {
      // A dropped link or a slow reply is worth another poll; anything else (no `state` CAPS) is not.
      if (!(err instanceof McbridgeError) || !TRANSIENT.has(err.code)) throw err;
      lastError = `${err.code}: ${err.message}`;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    await sleep(Math.min(pollMs, remaining), ctx.signal);
  }
  const out: WaitForResult = {
    matched: false,
    timedOut: true,
    waitedMs: Date.now() - started,
    polls,
    lastValue: last?.present ? (last.value ?? null) : null,
    pathPresent: last?.present ?? false,
    seen: seenSince(ctx, start),
    cursor: ctx.events.lastSeq,
  };
  if (lastError) out.lastError = lastError;
  return out;
}

const waitForResult = z.looseObject({
  matched: z.boolean(),
  cursor: z.number().int().describe('the seq to pass as `since` next'),
  waitedMs: z.number(),
  event: z.looseObject({}).optional().describe('the matching event'),
  state: z.looseObject({}).optional().describe('state conditions: the STATE reply that met it'),
  value: z.unknown().optional(),
  timedOut: z.boolean().optional(),
  polls: z.number().int().optional(),
  seen: z.looseObject({}).optional().describe('on timeout: what did happen meanwhile'),
});

export const waitForPlugin = definePlugin({
  name: 'wait-for',
  version: '1.0.0',
  apiVersion: 1,
  guide: '`wait_for` waits until a matching event happens (or a state value holds); it reports progress, and cancelling the request stops the wait in the daemon.',
  tools: [
    defineTool({
      name: 'wait_for',
      description:
        'Block until something happens, instead of sleeping and polling: either an event matching `match` arrives ' +
        '(every field given must match: category, type, sender, and `text`, a case-insensitive regular expression), or a value ' +
        'in the STATE reply meets a condition (`match: {state: {path: "players", gte: 2}}`; operators equals, ' +
        'not_equals, gte, lte, contains, exists; STATE is polled every `poll_ms`, default 500, and needs the state ' +
        'capability). Events count from `since` (default: the moment of the call), so pass the cursor you held before ' +
        'acting to catch a fast answer. Returns `{matched: true, event, cursor: event.seq}` (state: `{matched: true, ' +
        'state, value, polls, cursor}`); on timeout `{matched: false, timedOut: true, seen: {total, byCategory, byType, ' +
        'recent, dropped}, cursor}` (state: plus lastValue, polls). `cursor` is the seq to pass as `since` next. ' +
        'Progress is reported while waiting; cancelling the call stops the wait at once. Costs nothing while waiting.',
      input: z
        .object({
          match: matchInput,
          timeout_ms: z
            .number({ error: `timeout_ms must be a number of milliseconds, e.g. ${DEFAULT_WAIT_FOR_MS}` })
            .int('timeout_ms must be a whole number of milliseconds')
            .min(1, 'timeout_ms must be at least 1')
            .max(MAX_WAIT_FOR_MS, `timeout_ms must be at most ${MAX_WAIT_FOR_MS} (ten minutes); wait again for longer`)
            .optional()
            .describe(`how long to wait, in milliseconds (default ${DEFAULT_WAIT_FOR_MS})`),
          since: cursorInput.optional().describe('events after this cursor count (a seq or eventId); default: now'),
          poll_ms: z
            .number({ error: 'poll_ms must be a number of milliseconds' })
            .int('poll_ms must be a whole number of milliseconds')
            .min(100, 'poll_ms must be at least 100')
            .max(10_000, 'poll_ms must be at most 10000')
            .optional()
            .describe(`state conditions only: how often STATE is read (default ${DEFAULT_POLL_MS} ms)`),
        })
        .strict()
        .refine((a) => a.poll_ms === undefined || a.match.state !== undefined, {
          message: 'poll_ms only applies to state conditions',
          path: ['poll_ms'],
        }),
      output: waitForResult,
      // With several targets named, the first to see its event answers.
      acrossTargets: 'first',
      annotations: { readOnly: true, idempotent: false },
      run: async ({ match, timeout_ms, since, poll_ms }, ctx) => {
        const timeoutMs = timeout_ms ?? DEFAULT_WAIT_FOR_MS;
        const start: Cursor = since === undefined ? { streamId: ctx.events.streamId, seq: ctx.events.lastSeq } : parseCursor(since);
        const started = Date.now();
        const what = match.state ? `STATE ${match.state.path}` : 'a matching event';
        ctx.progress(0, timeoutMs, `waiting for ${what}`);
        const timer = setInterval(() => ctx.progress(Math.min(timeoutMs, Date.now() - started), timeoutMs, `waiting for ${what}`), PROGRESS_EVERY_MS);
        try {
          return match.state ? await waitForState(ctx, match.state, start, timeoutMs, poll_ms ?? DEFAULT_POLL_MS, started) : await waitForEvent(ctx, eventMatcher(match), start, timeoutMs, started);
        } finally {
          clearInterval(timer);
        }
      },
    }),
  ],
});

export default waitForPlugin;

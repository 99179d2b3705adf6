import { z } from 'zod';
import { definePlugin, defineTool, DEFAULT_EVENT_LIMIT, parseCursor, type EventPage, type RecordedEvent } from 'mcbridge';
import { cursorInput, EventCounter, eventFilterFields, eventMatcher, hasEventFilter } from 'mcbridge/kit';

const MAX_EVENT_LIMIT = 10_000;
/** Default response budget: enough for the default 200 ordinary events, small enough for a model's context. */
const DEFAULT_MAX_BYTES = 256 * 1024;
const MAX_MAX_BYTES = 8 * 1024 * 1024;

const itemCount = (field: string) =>
  z
    .number({ error: `${field} must be a whole number of events, e.g. 200` })
    .int(`${field} must be a whole number of events`)
    .min(1, `${field} must be at least 1`)
    .max(MAX_EVENT_LIMIT, `${field} must be at most ${MAX_EVENT_LIMIT}`);

const recordedEvent = z.looseObject({
  type: z.string(),
  seq: z.number().int(),
  streamId: z.string(),
  eventId: z.string(),
  category: z.string(),
  receivedAt: z.number(),
});

const eventPageResult = z.object({
  events: z.array(recordedEvent),
  next: z.number().int(),
  streamId: z.string(),
  dropped: z.boolean(),
  evicted: z.number().int(),
  truncated: z.boolean(),
  truncatedBy: z.enum(['items', 'bytes']).optional(),
  bytes: z.number().int(),
  streamReset: z.literal(true).optional(),
});
type EventsResult = z.infer<typeof eventPageResult>;

const eventsSummaryResult = z.object({
  streamId: z.string(),
  total: z.number().int(),
  byCategory: z.record(z.string(), z.number().int()),
  byType: z.record(z.string(), z.number().int()),
  firstSeq: z.number().int().nullable(),
  lastSeq: z.number().int().nullable(),
  next: z.number().int(),
  buffered: z.number().int(),
  capacity: z.number().int(),
  evicted: z.number().int(),
  dropped: z.boolean(),
  streamReset: z.literal(true).optional(),
});

const eventBytes = (e: RecordedEvent) => Buffer.byteLength(JSON.stringify(e)) + 1;

/**
 * Cut a page to `maxBytes` of serialized events. Paging forward keeps the oldest events and
 * moves `next` back to the last one kept; the tail view keeps the newest. At least one event
 * always stays, so paging can never get stuck on one large event.
 */
function applyByteBudget(page: EventPage, maxBytes: number, forward: boolean): EventsResult {
  const sizes = page.events.map(eventBytes);
  let bytes = 0;
  let kept = 0;
  for (let i = 0; i < sizes.length; i += 1) {
    const size = sizes[forward ? i : sizes.length - 1 - i]!;
    if (kept > 0 && bytes + size > maxBytes) break;
    bytes += size;
    kept += 1;
  }
  const result: EventsResult = { ...page, bytes };
  if (kept < page.events.length) {
    result.events = forward ? page.events.slice(0, kept) : page.events.slice(page.events.length - kept);
    if (forward) result.next = result.events[result.events.length - 1]!.seq;
    result.truncated = true;
    result.dropped = true;
    result.truncatedBy = 'bytes';
  } else if (page.truncated) {
    result.truncatedBy = 'items';
  }
  return result;
}

export const eventsPlugin = definePlugin({
  name: 'events',
  version: '1.0.0',
  apiVersion: 1,
  guide:
    '`events` replays buffered game events with a cursor: pass the `next` of one answer as `since` in the next call and you see each event exactly once. `dropped` tells you when some are missing (evicted from the buffer, or cut by `limit`: call again).',
  tools: [
    defineTool({
      name: 'events',
      description:
        'Replay buffered game events (chat, command output, marks, recordings, connection changes) oldest first. Pass ' +
        'the `next` of the previous answer as `since` to get exactly the events you have not seen: nothing skipped, ' +
        'nothing repeated, also with filters. Filters (all optional, all must match): `category` and `type` (exact, one ' +
        'or a list), `sender` (a player name, any case, or UUID), `text` (a case-insensitive regular expression). Each ' +
        'answer is bounded by `max_items` (alias `limit`, default 200) and `max_bytes` of serialized events (default ' +
        '256 KiB; at least one event is always returned); when cut, `truncated` is true (`truncatedBy` says which) and ' +
        'you page on with `next`. `dropped` says some events you never saw are not in the answer: `evicted` (gone from ' +
        'the buffer) or `truncated`. Without `since` you get the newest events. Chat events carry a `contextId` for ' +
        '`context`. Call `events_summary` first to see what is there, and `wait_for` to wait for something new.',
      input: z
        .object({
          since: cursorInput.optional().describe('the `next` of the previous answer; omit for the newest events'),
          limit: itemCount('limit').optional().describe('alias of max_items'),
          max_items: itemCount('max_items').optional().describe(`most events in one answer (default ${DEFAULT_EVENT_LIMIT})`),
          max_bytes: z
            .number({ error: 'max_bytes must be a whole number of bytes, e.g. 65536' })
            .int('max_bytes must be a whole number of bytes')
            .min(1, 'max_bytes must be at least 1')
            .max(MAX_MAX_BYTES, `max_bytes must be at most ${MAX_MAX_BYTES}`)
            .optional()
            .describe(`most bytes of serialized events in one answer (default ${DEFAULT_MAX_BYTES})`),
          ...eventFilterFields,
        })
        .strict()
        .refine((a) => a.limit === undefined || a.max_items === undefined, {
          message: 'pass either limit or max_items (they are the same), not both',
          path: ['max_items'],
        }),
      output: eventPageResult,
      annotations: { readOnly: true, idempotent: true },
      run: async (args, ctx) => {
        const page = ctx.events.query({
          since: args.since === undefined ? undefined : parseCursor(args.since),
          limit: args.max_items ?? args.limit ?? DEFAULT_EVENT_LIMIT,
          filter: hasEventFilter(args) ? eventMatcher(args) : undefined,
        });
        return applyByteBudget(page, args.max_bytes ?? DEFAULT_MAX_BYTES, args.since !== undefined);
      },
    }),
    defineTool({
      name: 'events_summary',
      description:
        'The cheap first call before reading events: how many buffered events there are by category and by type ' +
        '(largest first), the seq range, and `dropped`/`evicted` when the buffer already lost some. With `since` (a ' +
        'cursor from `events`, `wait_for` or `command_output`) it counts only what came after it. `next` is the cursor ' +
        'to pass to `events` or `wait_for` to read or wait from now on. Never touches the game.',
      input: z.object({ since: cursorInput.optional() }).strict(),
      output: eventsSummaryResult,
      annotations: { readOnly: true, idempotent: true },
      run: async ({ since }, ctx) => {
        const counter = new EventCounter();
        let firstSeq: number | null = null;
        let lastSeq: number | null = null;
        const page = ctx.events.scan(since === undefined ? { seq: 0 } : parseCursor(since), (e) => {
          counter.add(e);
          firstSeq ??= e.seq;
          lastSeq = e.seq;
        });
        const stats = ctx.events.stats();
        return {
          streamId: page.streamId,
          total: counter.total,
          byCategory: counter.byCategory(),
          byType: counter.byType(),
          firstSeq,
          lastSeq,
          next: page.next,
          buffered: stats.buffered,
          capacity: stats.capacity,
          evicted: page.evicted,
          dropped: page.evicted > 0,
          ...(page.streamReset ? { streamReset: true as const } : {}),
        };
      },
    }),
  ],
});

export default eventsPlugin;

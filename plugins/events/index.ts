import { z } from 'zod';
import { definePlugin, defineTool, DEFAULT_EVENT_LIMIT, EVENT_CATEGORIES, HOST_API_VERSION, parseCursor } from '../../core/index.js';

export const MAX_EVENT_LIMIT = 10_000;

export const cursorInput = z.union([z.number().int().nonnegative(), z.string().min(1)], {
  error: 'since must be the `next` of a previous call: a seq number or an eventId "<streamId>:<seq>"',
});

export const eventsPlugin = definePlugin({
  name: 'events',
  version: '1.0.0',
  apiVersion: HOST_API_VERSION,
  tools: [
    defineTool({
      name: 'events',
      description:
        'Replay buffered game events (chat, command output, marks, connection changes) oldest first. Pass the `next` ' +
        'of the previous answer as `since` to get exactly the events you have not seen: nothing skipped, nothing ' +
        'repeated. `dropped` says when some you never saw are not in the answer: `evicted` (gone from the buffer) or ' +
        '`truncated` (cut by limit: call again with `next`). Without `since` you get the newest events.',
      input: z.object({
        since: cursorInput.optional(),
        limit: z.number().int().min(1).max(MAX_EVENT_LIMIT).optional(),
        category: z.enum(EVENT_CATEGORIES).optional(),
      }).strict(),
      annotations: { readOnly: true, idempotent: true },
      run: async ({ since, limit, category }, ctx) =>
        ctx.events.query({
          since: since === undefined ? undefined : parseCursor(since),
          limit: limit ?? DEFAULT_EVENT_LIMIT,
          filter: category ? (e) => e.category === category : undefined,
        }),
    }),
  ],
});

export default eventsPlugin;

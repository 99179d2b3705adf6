import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';
import { lineText, modAck, requestIdParam } from 'mcbridge/kit';

export const markPlugin = definePlugin({
  name: 'mark',
  version: '1.0.0',
  apiVersion: 1,
  guide: 'Put a `mark` in the event stream before an experiment to find its events later.',
  requires: { caps: ['mark'] },
  // The mod answers MARK on its reader thread (docs/protocol.md#replies-and-errors): it need not wait behind a slow STATE.
  verbs: { MARK: (text) => ({ replies: ['mark_ack'], requires: ['mark'], immediate: true, write: true, control: { op: 'mark', params: { text } } }) },
  tools: [
    defineTool({
      name: 'mark',
      description:
        'Put a text marker into the event stream (the mod echoes it as a `mark` event to every client), e.g. ' +
        '"experiment 3 begins", so later event replays can be cut at that point. Does not change the world.',
      input: z.object({ text: lineText('text', '"experiment 3 begins"', undefined, { fold: true }), request_id: requestIdParam }).strict(),
      output: modAck,
      // Writes an event, changes nothing in the world: not read-only, not destructive.
      annotations: { readOnly: false, destructive: false, idempotent: false },
      passthrough: true,
      paramAliases: { requestId: 'request_id' },
      run: async ({ text, request_id }, ctx) => ctx.request(`MARK ${text}`, { requestId: request_id }),
    }),
  ],
});

export default markPlugin;

import { z } from 'zod';
import { definePlugin, defineTool, HOST_API_VERSION } from '../../core/index.js';

export const markPlugin = definePlugin({
  name: 'mark',
  version: '1.0.0',
  apiVersion: HOST_API_VERSION,
  requires: { caps: ['mark'] },
  tools: [
    defineTool({
      name: 'mark',
      description:
        'Put a text marker into the event stream (the mod echoes it as a `mark` event to every client), e.g. ' +
        '"experiment 3 begins", so later event replays can be cut at that point. Does not change the world.',
      input: z.object({
        text: z.string().trim().min(1, 'text must not be empty').refine((t) => !/[\r\n]/.test(t), 'text must be a single line'),
      }).strict(),
      annotations: { readOnly: false, idempotent: false },
      run: async ({ text }, ctx) => ctx.request(`MARK ${text}`),
    }),
  ],
});

export default markPlugin;

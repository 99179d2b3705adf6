import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';

export const statePlugin = definePlugin({
  name: 'state',
  version: '1.0.0',
  apiVersion: 1,
  requires: { caps: ['state'] },
  verbs: { STATE: { replies: ['state'], requires: ['state'] } },
  tools: [
    defineTool({
      name: 'state',
      description:
        'World and server state from the mod: server tick, level name, world directory, online players with positions ' +
        'and dimensions, and entity counts per loaded dimension. One cheap round trip; use it to orient before acting.',
      input: z.object({}).strict(),
      annotations: { readOnly: true, idempotent: true },
      run: async (_args, ctx) => ctx.request('STATE'),
    }),
  ],
});

export default statePlugin;

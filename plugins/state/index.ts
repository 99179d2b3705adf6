import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';
import { modReply, STATE_VERB } from 'mcbridge/kit';

export const statePlugin = definePlugin({
  name: 'state',
  version: '1.0.0',
  apiVersion: 1,
  requires: { caps: ['state'] },
  verbs: STATE_VERB,
  tools: [
    defineTool({
      name: 'state',
      description:
        'World and server state from the mod: server tick, level name, world directory, online players with positions ' +
        'and dimensions, and entity counts per loaded dimension. One cheap round trip; use it to orient before acting.',
      input: z.object({}).strict(),
      // The fields both vantages send; the rest (players, levels, the client's own position) as the mod sends them.
      output: modReply({
        tick: z.number().optional(),
        inWorld: z.boolean().optional(),
        protocol: z.number().optional(),
        modVersion: z.string().optional(),
      }),
      annotations: { readOnly: true, idempotent: true },
      passthrough: true,
      run: async (_args, ctx) => ctx.request('STATE'),
    }),
  ],
});

export default statePlugin;

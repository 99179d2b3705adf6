import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';
import { modReply } from 'mcbridge/kit';

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
      // The fields both vantages send; the rest (players, levels, the client's own position) as the mod sends them.
      output: modReply({
        tick: z.number().optional(),
        inWorld: z.boolean().optional(),
        protocol: z.number().optional(),
        modVersion: z.string().optional(),
        control: z.looseObject({ enabled: z.boolean() }).optional()
          .describe('whether the mod serves its control protocol (TLS on the game port), and how'),
      }),
      annotations: { readOnly: true, idempotent: true },
      passthrough: true,
      run: async (_args, ctx) => {
        // `samePortSpike` describes an experimental transport the mod says to ignore (mod-protocol §1): left out.
        const { samePortSpike: _experimental, ...state } = await ctx.request('STATE');
        return state;
      },
    }),
  ],
});

export default statePlugin;

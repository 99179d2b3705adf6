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
        control: z.looseObject({ enabled: z.boolean() }).optional().describe('whether the mod serves its control protocol (TLS on the game port), and how'),
        samePortSpike: z.looseObject({ enabled: z.boolean() }).optional().describe("the mod's experimental plain-text transport on the game port (off unless the server enables it); safe to ignore"),
      }),
      annotations: { readOnly: true, idempotent: true },
      passthrough: true,
      // Passed through as the mod wrote it (its text, numbers and escapes), so its fields are named in the schema instead.
      run: async (_args, ctx) => ctx.request('STATE'),
    }),
  ],
});

export default statePlugin;

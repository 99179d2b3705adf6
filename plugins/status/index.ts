import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';

export const statusPlugin = definePlugin({
  name: 'status',
  version: '1.0.0',
  apiVersion: 1,
  tools: [
    defineTool({
      name: 'status',
      description:
        'Health of the bridge: whether the game (mod) is connected, which port and vantage, the last connection error, ' +
        'buffered event counters and uptime. Costs nothing and never touches the game; call it first when something fails.',
      input: z.object({}).strict(),
      output: z.looseObject({
        connected: z.boolean(),
        vantage: z.string(),
        lastError: z.string().nullable().optional(),
        capabilities: z.array(z.string()).nullable().optional(),
        capsSource: z.string().optional(),
      }),
      annotations: { readOnly: true, idempotent: true },
      run: async (_args, ctx) => ctx.host.status(),
    }),
  ],
});

export default statusPlugin;

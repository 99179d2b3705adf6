import { z } from 'zod';
import { definePlugin, defineTool, HOST_API_VERSION } from '../../core/index.js';

export const commandText = z.string()
  .trim()
  .min(1, 'command must not be empty, e.g. "time query daytime"')
  .refine((c) => !/[\r\n]/.test(c), 'command must be a single line')
  .refine((c) => c.replace(/^\//, '').trim().length > 0, 'command must not be just a slash');

export const commandPlugin = definePlugin({
  name: 'command',
  version: '1.0.0',
  apiVersion: HOST_API_VERSION,
  requires: { caps: ['command'] },
  tools: [
    defineTool({
      name: 'command',
      description:
        'Run one Minecraft command (leading slash optional) as the server console, with owner permissions, and return ' +
        "the mod's acknowledgement (on the server vantage it includes the feedback lines in `output`). A failing vanilla " +
        'command is not an error: read `output`. Commands can change or destroy anything in the world.',
      input: z.object({ command: commandText }).strict(),
      annotations: { readOnly: false, destructive: true, openWorld: false },
      run: async ({ command }, ctx) => ctx.request(`CMD ${command}`),
    }),
  ],
});

export default commandPlugin;

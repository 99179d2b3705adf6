import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';
import { CMD_VERB, commandRefusalFields, commandText, modReply, refusalOf, requestIdParam } from 'mcbridge/kit';

export const commandPlugin = definePlugin({
  name: 'command',
  version: '1.0.0',
  apiVersion: 1,
  guide: '`command` runs one console command; on the server vantage its `output` holds the feedback lines. A failing vanilla command is not a tool error: read `output`.',
  requires: { caps: ['command'] },
  verbs: CMD_VERB,
  tools: [
    defineTool({
      name: 'command',
      description:
        'Run one Minecraft command (leading slash optional) as the server console with owner permissions (client vantage: ' +
        'as the local player), and return ' +
        "the mod's acknowledgement (on the server vantage it includes the feedback lines in `output`). A failing vanilla " +
        'command is not an error: read `output`; one the game refused to run (unknown, a syntax error) says `refused: true`. Commands can change or destroy anything in the world. ' +
        'Use command_output instead whenever the answer matters: it also collects the reply on the client vantage.',
      input: z.object({ command: commandText, request_id: requestIdParam }).strict(),
      output: modReply({
        detail: z.string().optional().describe('the command as run, without the slash'),
        output: z.array(z.string()).optional().describe('server vantage: the feedback lines the command printed'),
        ...commandRefusalFields,
      }),
      annotations: { readOnly: false, destructive: true, openWorld: false },
      passthrough: true,
      paramAliases: { requestId: 'request_id' },
      run: async ({ command, request_id }, ctx) => {
        const ack = await ctx.request(`CMD ${command}`, { requestId: request_id });
        return Array.isArray(ack.output) ? { ...ack, ...refusalOf(ack.output.map(String)) } : ack;
      },
    }),
  ],
});

export default commandPlugin;

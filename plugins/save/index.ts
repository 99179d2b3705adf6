import { z } from 'zod';
import { definePlugin, defineTool } from 'mcbridge';
import { STATE_VERB } from 'mcbridge/kit';
import { worldSaveFrom, worldSaveResult } from './world-save.js';

export const savePlugin = definePlugin({
  name: 'save',
  version: '1.0.0',
  apiVersion: 1,
  requires: { caps: ['state'] },
  verbs: STATE_VERB,
  tools: [
    defineTool({
      name: 'save',
      description:
        'World-save metadata from one STATE round trip: level name, the world directory (normalised, and whether it ' +
        'exists on the host the bridge runs on, which tells you if world files can be read locally), server version, ' +
        'tick, online players and loaded dimensions with entity counts. Read-only and cheap. On the client vantage the ' +
        'mod reports no level or world directory, so those are null. For the raw STATE reply use `state`.',
      input: z.object({}).strict(),
      output: worldSaveResult,
      annotations: { readOnly: true, idempotent: true },
      run: async (_args, ctx) => worldSaveFrom(await ctx.request('STATE'), ctx.vantage),
    }),
  ],
});

export default savePlugin;

import { z } from 'zod';
import { definePlugin, defineTool, HOST_API_VERSION } from '../../core/index.js';

/** The mod parses a Java double; send one (`32.0`), as the predecessor did. */
export function javaDouble(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

export const entitiesPlugin = definePlugin({
  name: 'entities',
  version: '1.0.0',
  apiVersion: HOST_API_VERSION,
  requires: { caps: ['entities'] },
  tools: [
    defineTool({
      name: 'entities',
      description:
        'Every entity the server ticks in the primary dimension, in tick order, players included, as full records ' +
        '(id, uuid, type, position, velocity, health...). Optional radius (blocks) around the first online player; ' +
        'a radius needs a player online. Large worlds give large answers: pass a radius when you can.',
      input: z.object({
        radius: z.number().finite().nonnegative('radius must be 0 or more (0 means every entity)').optional(),
      }).strict(),
      annotations: { readOnly: true, idempotent: true },
      run: async ({ radius }, ctx) => ctx.request(radius ? `ENTITIES ${javaDouble(radius)}` : 'ENTITIES'),
    }),
  ],
});

export default entitiesPlugin;

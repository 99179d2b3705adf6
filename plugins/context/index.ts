import { z } from 'zod';
import { definePlugin, defineTool, type VerbSpec } from 'mcbridge';
import { lineText } from 'mcbridge/kit';
import { contextBundleResult, normalizeContextReply } from './reply.js';

/**
 * `CONTEXT <id>` answers with the bundle on the server thread, a bare `CONTEXT` with the cache
 * statistics at once on the reader thread (docs/protocol.md#replies-and-errors).
 */
function contextVerb(arg: string): VerbSpec {
  return arg
    ? { replies: ['context'], requires: ['context'], control: { op: 'context', params: { contextId: arg } } }
    : { replies: ['context_stats'], requires: ['context'], immediate: true, control: { op: 'context' } };
}

export const contextPlugin = definePlugin({
  name: 'context',
  version: '1.0.0',
  apiVersion: 1,
  requires: { caps: ['context'] },
  verbs: { CONTEXT: contextVerb },
  tools: [
    defineTool({
      name: 'context',
      description:
        'The context bundle the server captured when a player sent a chat message: where the player stood, which way ' +
        'they looked and what they were looking at (block, entity or miss), at which tick. Pass the `contextId` of a ' +
        '`chat` event (see `events` or `wait_for`). Bundles live 300 s by default in a cache of 256: an unknown id gives ' +
        '`found: false, status: "not_found"`, an old one `found: false, status: "expired"` once (then not_found); never ' +
        "another player's data. One cheap round trip. For a player's context now, use `player`.",
      input: z
        .object({
          id: lineText('id', '"ctx-2b1d0c6e-5a41-4f0e-9d7a-2f1c0d9e8b77" (the contextId of a chat event)', 200),
        })
        .strict(),
      output: contextBundleResult,
      paramAliases: { context_id: 'id', contextId: 'id' },
      annotations: { readOnly: true, idempotent: false },
      run: async ({ id }, ctx) => normalizeContextReply(await ctx.request(`CONTEXT ${id}`), id),
    }),
  ],
});

export default contextPlugin;

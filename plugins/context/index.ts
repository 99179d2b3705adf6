import { z } from 'zod';
import { definePlugin, defineTool, type ModReply, type VerbSpec } from 'mcbridge';
import { lineText, isObject, num, str } from 'mcbridge/kit';

/** Flat fields an older mod may send instead of a nested `context` object. */
const FLAT_CONTEXT_FIELDS = [
  'id', 'contextId', 'context_id', 'eventSeq', 'seq', 'timestamp', 'tick', 'sender', 'uuid', 'name', 'dimension',
  'position', 'pos', 'rotation', 'yaw', 'pitch', 'view', 'viewTarget', 'look', 'schema', 'protocol',
];
const NOT_FOUND_STATUSES = new Set(['not_found', 'expired', 'missing', 'evicted', 'mismatch']);


export const contextBundleResult = z.object({
  type: z.literal('context_bundle'),
  id: z.string(),
  found: z.boolean(),
  status: z.string(),
  context: z.looseObject({}).nullable(),
  expired: z.boolean().optional(),
  capturedAt: z.number().optional(),
  ageMillis: z.number().optional(),
  expiresAt: z.number().optional(),
  cacheSize: z.number().optional(),
  cacheLimit: z.number().optional(),
  ttlMillis: z.number().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type ContextBundle = z.infer<typeof contextBundleResult>;

/**
 * One CONTEXT reply, normalised as the predecessor did with one
 * guard more: a bundle whose own id is not the one asked for is never returned.
 */
export function normalizeContextReply(reply: ModReply, id: string): ContextBundle {
  let context: Record<string, unknown> | null = null;
  if (isObject(reply.context)) {
    context = reply.context;
  } else {
    const flat = Object.fromEntries(FLAT_CONTEXT_FIELDS.filter((k) => k in reply && k !== 'context_id').map((k) => [k, reply[k]]));
    if (Object.keys(flat).length > 0) context = flat;
  }
  let status = str(reply.status);
  let found = typeof reply.found === 'boolean' ? reply.found : !(status && NOT_FOUND_STATUSES.has(status));
  const bundleId = str(context?.context_id) ?? str(context?.contextId) ?? str(reply.context_id) ?? str(reply.contextId) ?? str(reply.id);
  let message = str(reply.message) ?? str(reply.error);
  if (found && bundleId !== undefined && bundleId !== id) {
    // Never hand out a bundle that is not the one asked for.
    found = false;
    status = 'mismatch';
    message = `the mod answered for context ${JSON.stringify(bundleId)}, not ${JSON.stringify(id)}; nothing returned`;
  }
  if (!found) context = null;
  const out: ContextBundle = { type: 'context_bundle', id, found, status: status ?? (found ? 'ok' : 'not_found'), context };
  if (out.status === 'expired') out.expired = true;
  const capturedAt = num(reply.capturedAt) ?? num(context?.capturedAt);
  const ageMillis = num(reply.ageMillis);
  if (capturedAt !== undefined) out.capturedAt = capturedAt;
  if (ageMillis !== undefined) out.ageMillis = ageMillis;
  const cache = isObject(reply.cache) ? reply.cache : {};
  const ttl = num(cache.ttlMillis);
  if (found && capturedAt !== undefined && ttl !== undefined) out.expiresAt = capturedAt + ttl;
  if (num(cache.size) !== undefined) out.cacheSize = num(cache.size);
  if (num(cache.capacity) !== undefined) out.cacheLimit = num(cache.capacity);
  if (ttl !== undefined) out.ttlMillis = ttl;
  if (str(reply.reason)) out.reason = reply.reason as string;
  if (message) out.message = message;
  return out;
}

/**
 * `CONTEXT <id>` answers with the bundle on the server thread, a bare `CONTEXT` with the cache
 * statistics at once on the reader thread (docs/protocol.md#replies-and-errors).
 */
function contextVerb(arg: string): VerbSpec {
  return arg ? { replies: ['context'], requires: ['context'] } : { replies: ['context_stats'], requires: ['context'], immediate: true };
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
        'another player\'s data. One cheap round trip. For a player\'s context now, use `player`.',
      input: z.object({
        id: lineText('id', '"ctx-2b1d0c6e-5a41-4f0e-9d7a-2f1c0d9e8b77" (the contextId of a chat event)', 200),
      }).strict(),
      output: contextBundleResult,
      paramAliases: { context_id: 'id', contextId: 'id' },
      annotations: { readOnly: true, idempotent: false },
      run: async ({ id }, ctx) => normalizeContextReply(await ctx.request(`CONTEXT ${id}`), id),
    }),
  ],
});

export default contextPlugin;

/** The CONTEXT reply, normalised: the context tool's result. */
import { z } from 'zod';
import type { ModReply } from 'mcbridge';
import { isObject, num, str } from 'mcbridge/kit';

/** Flat fields an older mod may send instead of a nested `context` object. */
const FLAT_CONTEXT_FIELDS = [
  'id',
  'contextId',
  'context_id',
  'eventSeq',
  'seq',
  'timestamp',
  'tick',
  'sender',
  'uuid',
  'name',
  'dimension',
  'position',
  'pos',
  'rotation',
  'yaw',
  'pitch',
  'view',
  'viewTarget',
  'look',
  'schema',
  'protocol',
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

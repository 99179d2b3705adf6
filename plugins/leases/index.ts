import { z } from 'zod';
import { definePlugin, defineTool, type VerbSpec } from 'mcbridge';

/**
 * Exclusive leases of control protocol 1 (docs/control.md, "Leases"): a key held by one
 * credential for a while, so two daemons sharing a server do not run one operation at once.
 * The params travel as the verb's JSON argument; the legacy mod has no leases.
 */
function leaseVerb(op: string, write: boolean): (arg: string) => VerbSpec {
  return (arg) => ({ replies: ['lease'], legacy: false, write, control: { op, params: arg === '' ? {} : (JSON.parse(arg) as Record<string, unknown>) } });
}

const key = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,64}$/, '1 to 64 letters, digits or . _ : -')
  .describe('what the lease guards, e.g. "freeze"');
const ttl = z.number().int().min(1).max(3600).describe('how long it holds without a renew, in seconds (at most 3600)');

const lease = z.looseObject({
  key: z.string(),
  holderTokenId: z.string().optional(),
  holderSessionId: z.string().optional(),
  holderLabel: z.string().nullable().optional(),
  acquiredAtMillis: z.number().optional(),
  expiresAtMillis: z.number().optional(),
  renewals: z.number().optional(),
});

const line = (verb: string, params: Record<string, unknown>) => `${verb} ${JSON.stringify(Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)))}`;
const strip = (reply: Record<string, unknown>) => {
  const { type: _type, ...rest } = reply;
  return rest;
};

export const leasesPlugin = definePlugin({
  name: 'leases',
  version: '1.0.0',
  apiVersion: 1,
  guide: 'Before an operation another daemon must not run at the same time, `exclusive_acquire` a key with a TTL, renew it while working, release it after. A `conflict` error names the holder.',
  verbs: {
    EXCLUSIVE_ACQUIRE: leaseVerb('exclusive_acquire', true),
    EXCLUSIVE_RENEW: leaseVerb('exclusive_renew', true),
    EXCLUSIVE_RELEASE: leaseVerb('exclusive_release', true),
    EXCLUSIVE_STATUS: leaseVerb('exclusive_status', false),
  },
  tools: [
    defineTool({
      name: 'exclusive_acquire',
      description:
        "Take the lease on a key for this daemon's credential, for ttl_seconds. Another credential holding it gives a `conflict` error whose details name the holder (label, session, expiry). " +
        'A lease outlives a dropped connection until its TTL ends, and is dropped when the game restarts or the credential is revoked.',
      input: z.object({ key, ttl_seconds: ttl, label: z.string().max(100).optional().describe('who holds it, shown to others in a conflict') }).strict(),
      output: lease,
      annotations: { readOnly: false, destructive: false, idempotent: false },
      paramAliases: { ttlSeconds: 'ttl_seconds' },
      only: { transport: 'control' },
      run: async (a, ctx) => strip(await ctx.request(line('EXCLUSIVE_ACQUIRE', { key: a.key, ttlSeconds: a.ttl_seconds, label: a.label }))) as z.infer<typeof lease>,
    }),
    defineTool({
      name: 'exclusive_renew',
      description: 'Extend a lease this credential holds to ttl_seconds from now. Not held by it: `conflict` (someone else) or `not_found` (nobody).',
      input: z.object({ key, ttl_seconds: ttl }).strict(),
      output: lease,
      annotations: { readOnly: false, destructive: false, idempotent: true },
      paramAliases: { ttlSeconds: 'ttl_seconds' },
      only: { transport: 'control' },
      run: async (a, ctx) => strip(await ctx.request(line('EXCLUSIVE_RENEW', { key: a.key, ttlSeconds: a.ttl_seconds }))) as z.infer<typeof lease>,
    }),
    defineTool({
      name: 'exclusive_release',
      description: 'Give up a lease this credential holds, so another may take it at once.',
      input: z.object({ key }).strict(),
      output: z.looseObject({}),
      annotations: { readOnly: false, destructive: false, idempotent: true },
      only: { transport: 'control' },
      run: async (a, ctx) => strip(await ctx.request(line('EXCLUSIVE_RELEASE', { key: a.key }))),
    }),
    defineTool({
      name: 'exclusive_status',
      description: 'Who holds the lease on a key (or every lease, without key), and until when.',
      input: z.object({ key: key.optional() }).strict(),
      output: z.looseObject({}),
      annotations: { readOnly: true, idempotent: true },
      only: { transport: 'control' },
      run: async (a, ctx) => strip(await ctx.request(line('EXCLUSIVE_STATUS', { key: a.key }))),
    }),
  ],
});

export default leasesPlugin;

import { z } from 'zod';
import { definePlugin, defineTool, McbridgeError } from 'mcbridge';
import { isObject, requestIdParam } from 'mcbridge/kit';
import { checkSnapshotFiles, remoteSnapshotFiles, snapshotAck, snapshotDimension, snapshotName, snapshotRadius, snapshotResult } from './ack.js';
import { SNAPSHOT_VERBS, snapshotLine } from './files.js';
import { journalService } from './journal-service.js';

/** The predecessor returned the raw `snapshot_ack`, so its scripts read `id` and `type`: kept beside `name`. */
const snapshotToolResult = snapshotResult.extend({
  type: z.literal('snapshot_ack'),
  id: z.string().describe('the snapshot name, as the predecessor called it (same as `name`)'),
});

const listed = z.looseObject({
  id: z.string(),
  entities: z.number().optional(),
  tick: z.number().optional(),
  orderHash: z.string().optional(),
  createdAt: z.number().optional(),
  dimension: z.string().optional(),
  radius: z.number().optional(),
  metaError: z.string().optional(),
});

/** A factory, so every target gets its own journal service (its reports are that game's). */
export function createSnapshotPlugin() {
  return definePlugin({
    name: 'snapshot',
    version: '1.0.0',
    apiVersion: 1,
    description: "The mod's entity snapshots: take one, list them; undoes what a killed fork or restore left",
    requires: { caps: ['snapshot'] },
    verbs: SNAPSHOT_VERBS,
    services: [journalService()],
    tools: [
      defineTool({
        name: 'snapshot',
        description:
          'Record every non-player entity of a dimension (or those within `radius` blocks of its first player) in tick ' +
          'order, with full NBT, into <server>/mc-agent-server/snapshots/<name>/ on the game host. Returns the count, the ' +
          'orderHash (a fingerprint of the tick order) and, under `files`, whether the files read back here agree (a ' +
          'control target\'s files stay on its host: `issue: "remote"`). ' +
          'Overwrites an existing snapshot of the same name (`replaced`). To also copy the world folder, use `fork`; to ' +
          'list snapshots, `snapshots`.',
        input: z
          .object({
            radius: snapshotRadius.optional(),
            name: snapshotName.optional().describe('default: snap-<tick>'),
            dimension: snapshotDimension.optional().describe('default: the primary level'),
            request_id: requestIdParam,
          })
          .strict(),
        output: snapshotToolResult,
        annotations: { readOnly: false, destructive: true, idempotent: false },
        only: { vantage: 'server' },
        paramAliases: { requestId: 'request_id' },
        run: async ({ request_id, ...args }, ctx) => {
          const remote = ctx.host.transport === 'control';
          // Over control protocol 1 the mod takes a name and a dimension only: a radius would be dropped without a word.
          if (remote && args.radius !== undefined && args.radius !== 0) {
            throw new McbridgeError('invalid_params', 'radius is not served over control protocol 1 (the mod records the whole dimension there): leave radius out, or use a legacy target', {
              radius: args.radius,
            });
          }
          const ack = snapshotAck(await ctx.request(snapshotLine(args), { requestId: request_id }), args.name);
          const files = remote ? remoteSnapshotFiles(ctx.host.target) : await checkSnapshotFiles(ack);
          return { type: 'snapshot_ack' as const, id: ack.name, ...ack, files };
        },
      }),
      defineTool({
        name: 'snapshots',
        description:
          'The snapshots on the game host, sorted by name, with what each meta.json says (entities, tick, orderHash, ' +
          'createdAt, dimension, radius); `metaError` when a meta file is unreadable. Read-only and cheap.',
        input: z.object({}).strict(),
        output: z.object({ snapshots: z.array(listed) }),
        annotations: { readOnly: true, idempotent: true },
        only: { vantage: 'server' },
        run: async (_args, ctx) => {
          const reply = await ctx.request('SNAPSHOTS');
          const snapshots = Array.isArray(reply.snapshots) ? reply.snapshots.filter(isObject) : [];
          return { snapshots: snapshots.map((s) => ({ ...s, id: String(s.id) })) };
        },
      }),
    ],
  });
}

export const snapshotPlugin = createSnapshotPlugin();
export default snapshotPlugin;

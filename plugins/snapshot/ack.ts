/**
 * The `snapshot_ack` reply and the check of the files it names, kept apart: what the mod reported
 * (requested) versus what reading the files back here showed (verified).
 */
import { z } from 'zod';
import { McbridgeError, type ModReply } from 'mcbridge';
import { num, str } from 'mcbridge/kit';
import { readSnapshot, SnapshotFileError, snapshotNameProblem } from './files.js';

/** A snapshot name the mod accepts (docs/protocol.md#server-vantage-verbs), checked here so a bad one never reaches the game. */
export const snapshotName = z.string({ error: 'name must be a string, e.g. "before"' }).superRefine((name, ctx) => {
  const problem = snapshotNameProblem(name);
  if (problem) ctx.addIssue({ code: 'custom', message: `name ${JSON.stringify(name)} ${problem}; e.g. "before-raid"` });
});

/** Radius in blocks around the first player in the dimension; 0 = every entity. */
export const snapshotRadius = z
  .number({ error: 'radius must be a number of blocks, e.g. 64 (0 = everything)' })
  .min(0, 'radius cannot be negative (0 = every entity)')
  .max(1e7, 'radius must be at most 10000000 blocks; use 0 for everything');

/** A dimension id, `minecraft:the_nether` or `the_nether`; the mod says whether it exists. */
export const snapshotDimension = z
  .string({ error: 'dimension must be a dimension id, e.g. "minecraft:the_nether"' })
  .regex(/^([a-z0-9_.-]+:)?[a-z0-9_./-]+$/, 'dimension must be a dimension id, e.g. minecraft:the_nether (or the_nether)');

export const snapshotFileCheck = z.object({
  read: z.boolean().describe('the files were read on this host and passed the protocol checks'),
  entities: z.number().nullable().describe('entity lines in entities.jsonl'),
  orderHashMatches: z.boolean().nullable().describe('the orderHash recomputed from the file equals the one the mod reported'),
  problem: z.string().nullable().describe('why the files could not be read or checked'),
  issue: z.string().nullable(),
});

export const snapshotResult = z.object({
  name: z.string(),
  dir: z.string().describe('the snapshot folder on the game host'),
  entities: z.number(),
  orderHash: z.string(),
  tick: z.number().nullable(),
  dimension: z.string().nullable(),
  bytes: z.number().nullable(),
  replaced: z.boolean().describe('a snapshot of this name existed and was overwritten'),
  files: snapshotFileCheck.describe('what was verified by reading the files back, apart from what the mod reported'),
  duplicate: z.literal(true).optional().describe('this request_id ran before: the stored answer, no new snapshot was taken'),
});
export type SnapshotResult = z.infer<typeof snapshotResult>;

/** The fields of a `snapshot_ack`; a reply without `dir` cannot be followed up and is an error. */
export function snapshotAck(ack: ModReply, requested?: string): Omit<SnapshotResult, 'files'> {
  const dir = str(ack.dir);
  const name = str(ack.id) ?? requested ?? '';
  if (!dir) {
    throw new McbridgeError('mod_error', `SNAPSHOT '${name}' answered without a dir: ${JSON.stringify(ack)}; the mod may be too old`, { ack });
  }
  return {
    name,
    dir,
    entities: num(ack.entities) ?? 0,
    orderHash: str(ack.orderHash) ?? '',
    tick: num(ack.tick) ?? null,
    dimension: str(ack.dimension) ?? null,
    bytes: num(ack.bytes) ?? null,
    replaced: ack.replaced === true,
    ...(ack.duplicate === true ? { duplicate: true as const } : {}),
  };
}

/** A control target's snapshot sits on another machine: nothing here can read it back, and the result says so. */
export function remoteSnapshotFiles(target: string): SnapshotResult['files'] {
  const problem = `target ${target} is reached over control protocol 1, so its snapshot folder is on the game host, not readable from here; the counts above are the mod's`;
  return { read: false, entities: null, orderHashMatches: null, problem, issue: 'remote' };
}

/** Read the files back and compare: requested (the ack) is kept apart from verified (the files). */
export async function checkSnapshotFiles(ack: Pick<SnapshotResult, 'dir' | 'orderHash'>): Promise<SnapshotResult['files']> {
  try {
    const files = await readSnapshot(ack.dir);
    return { read: true, entities: files.entities.length, orderHashMatches: files.orderHash === ack.orderHash, problem: null, issue: null };
  } catch (err) {
    if (!(err instanceof SnapshotFileError)) throw err;
    return { read: false, entities: null, orderHashMatches: null, problem: err.message, issue: err.issue };
  }
}

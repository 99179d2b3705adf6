/** The fork tool's input and result: the predecessor's names, plus what was requested vs verified. */
import { z } from 'zod';
import { snapshotDimension, snapshotFileCheck, snapshotName, snapshotRadius } from '../snapshot/kit.js';

export const forkInput = z
  .object({
    name: snapshotName.optional().describe('snapshot (and fork) name; default: the mod picks snap-<tick>. An existing one is overwritten'),
    radius: snapshotRadius.optional().describe('entities within this many blocks of the first player; default 0 = all'),
    dimension: snapshotDimension
      .optional()
      .describe('the dimension whose entities are snapshotted (sent to SNAPSHOT), e.g. minecraft:the_nether; default: the primary level. The world copy is always the whole world folder'),
    regions: z.boolean().default(true).describe('also copy the world folder (regions, level.dat, data) into <snapshotDir>/world'),
    world_dir: z.string().min(1).optional().describe("the world folder; default: STATE's worldDir (must be on this host)"),
    freeze: z.boolean().default(true).describe('freeze the game while saving and snapshotting (unfrozen after, if it was running)'),
  })
  .strict();
export type ForkArgs = z.infer<typeof forkInput>;

const tickState = z.enum(['frozen', 'running']);

export const worldManifest = z.object({
  files: z.number(),
  bytes: z.number(),
  skipped: z.array(z.string()).describe('left out by the skip list (session.lock, players, logs, ...), and sockets or fifos; relative POSIX paths'),
  stripped: z.array(z.string()).describe('entity storage (entities/*.mca) not copied: those entities come from the snapshot'),
  followed: z.array(z.string()).describe('symlinks inside the world that were followed: what they point at was copied in their place'),
});

export const forkResult = z.object({
  name: z.string(),
  snapshotDir: z.string(),
  forkDir: z.string().nullable(),
  worldDir: z.string().nullable(),
  manifest: worldManifest.nullable(),
  orderHash: z.string(),
  entities: z.number(),
  tick: z.number().nullable().describe('the game tick of the snapshot'),
  dimension: z.string().nullable(),
  replaced: z.boolean(),
  requested: z.object({
    name: z.string().nullable(),
    radius: z.number().nullable(),
    dimension: z.string().nullable(),
    regions: z.boolean(),
    freeze: z.boolean(),
    world_dir: z.string().nullable(),
  }),
  tickState: z.object({
    before: tickState.nullable().describe('read with `tick query` before anything changed (null without freeze)'),
    froze: z.boolean().describe('this fork froze the game (it was running)'),
    after: tickState.nullable(),
    restored: z.boolean().describe('the game is back in the state it had before'),
    problem: z.string().nullable(),
  }),
  verified: z.object({
    snapshotFiles: snapshotFileCheck,
    manifestWritten: z.boolean().describe('fork-manifest.json was written beside world/ after the copy completed'),
  }),
});
export type ForkResult = z.infer<typeof forkResult>;

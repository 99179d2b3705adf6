/** The three tools' parameters: the predecessor's names and defaults. */
import { z } from 'zod';

const directory = (tool: string, what: string) =>
  z
    .string({ error: `${tool} needs a directory: ${what}` })
    .min(1, `${tool} needs a directory: ${what}`)
    .describe('the snapshot folder (snapshotDir of fork or snapshot); `dir` is accepted too');

const label = z
  .string()
  .max(200)
  .nullable()
  .optional()
  .describe('a label for the destination: goes into snapshot names and the result. On a daemon of several targets the same param picks the game; on one target it is only a label');

const tolerance = (name: string) =>
  z
    .number({ error: (issue) => `${name} must be a number, got ${JSON.stringify(issue.input)}` })
    .finite(`${name} must be finite`)
    .min(0, `${name} must not be negative`)
    .default(0.01);

/** A string is one key (never comma-split); a list is a list of keys. */
const ignoreNbtKeys = z
  .union([z.string().min(1), z.array(z.string().min(1))], { error: 'ignore_nbt_keys must be a key or a list of keys, e.g. ["UUID"]' })
  .default([])
  .transform((v) => (typeof v === 'string' ? [v] : v))
  .describe('top-level NBT keys left out of the comparison, e.g. ["UUID"]');

const proof = (what: string) => z.string().nullable().optional().describe(what);

export const restoreInput = z
  .object({
    directory: directory('restore', 'the snapshot mc_fork returned'),
    dry_run: z.boolean().default(true).describe('true (default): plan, check and report, send nothing that changes the game'),
    target: label,
    expect_instance: proof('endpoint proof: the instance the mod greets with (e.g. "server")'),
    expect_world_dir: proof("endpoint proof, the strongest: the destination's world folder as STATE reports it"),
    expect_level: proof("endpoint proof: the destination's levelName"),
    expect_dimension: z.string().min(1).nullable().optional().describe("the dimension summons land in; default: the recording's"),
    prior_tick_state: z
      .string()
      .transform((s) => s.trim().toLowerCase())
      .pipe(z.enum(['auto', 'frozen', 'running'], { error: 'prior_tick_state must be auto, frozen or running' }))
      .default('auto')
      .describe('the tick state to put back: auto reads `tick query` (refusing text it cannot read)'),
    allow_unproven_destination: z.boolean().default(false).describe('apply without an endpoint proof (recorded in checks.endpoint.overridden)'),
    allow_command_entities: z.boolean().default(false).describe('summon command-block minecarts and other entities whose NBT holds a Command (they run it in the destination); refused without this'),
    allow_source_world: z.boolean().default(false).describe("apply into the very world the recording was taken from (meta.worldDir equals the destination's); refused without this"),
    freeze: z.boolean().default(true).describe('freeze the destination while restoring; it is put back as it was'),
    freeze_timeout_seconds: z.number().finite().default(300).describe('watchdog: unfreeze after this long if the restore has not finished; <= 0 disables'),
    forceload: z.boolean().default(true).describe('forceload the recorded box (its X/Z footprint) during the restore'),
    release_forceload: z.boolean().default(false).describe('remove that forceload again at the end'),
    check_existing: z.boolean().default(true).describe('refuse when the destination already holds entities the restore would duplicate'),
    replace_existing: z.boolean().default(false).describe('instead of refusing, kill exactly the colliding entities (and their drops), save, recheck'),
    keep_going: z.boolean().default(false).describe('keep summoning after a failed summon'),
    verify: z.boolean().default(true).describe('compare a fresh snapshot with the recording afterwards (without it the verdict is at best unverified)'),
    strict: z.boolean().default(true).describe('extra entities and a different tick order fail the verification too'),
    verify_radius: z.number().min(0).nullable().optional().describe('radius of the verification snapshot; default: everything'),
    collision_radius: z
      .number()
      .finite()
      .min(0)
      .max(16, 'collision_radius must be at most 16 blocks: the clear kills within it')
      .default(0.75)
      .describe('same type within this many blocks of a recorded position is a duplicate'),
    pos_tolerance: tolerance('pos_tolerance'),
    vel_tolerance: tolerance('vel_tolerance'),
    ignore_nbt_keys: ignoreNbtKeys,
  })
  .strict()
  .superRefine((args, ctx) => {
    if (args.replace_existing && !args.check_existing) {
      ctx.addIssue({
        code: 'custom',
        path: ['replace_existing'],
        message: 'replace_existing=true requires check_existing=true: the clear removes only the collisions the check finds',
      });
    }
  });
export type RestoreArgs = z.infer<typeof restoreInput>;

export const verifyInput = z
  .object({
    directory: directory('verify', 'the snapshot mc_fork returned'),
    target: label,
    strict: z.boolean().default(true).describe('false after a restart: tick order is rebuilt, so check missing 0, unexpected 0, counts'),
    snapshot_radius: z.number().min(0).nullable().optional().describe('radius of the fresh snapshot; default: everything'),
    pos_tolerance: tolerance('pos_tolerance'),
    vel_tolerance: tolerance('vel_tolerance'),
    ignore_nbt_keys: ignoreNbtKeys,
  })
  .strict();
export type VerifyArgs = z.infer<typeof verifyInput>;

export const orderInput = z
  .object({
    directory: directory('order', 'the snapshot to compare against'),
    target: label,
  })
  .strict();
export type OrderArgs = z.infer<typeof orderInput>;

/**
 * An apply: freeze, forceload, baseline, dimension and duplicate
 * checks, the summons one by one in recorded order, the verification snapshot and comparison,
 * then everything put back. The verdict is `ok` only when a comparison ran and matched and the
 * tick state is back as it was.
 */
import { McbridgeError, type ToolContext } from 'mcbridge';
import { outputLines } from 'mcbridge/kit';
import { withinCleanupBudget, worldOperation, type SnapshotFiles, type WorldJournal } from '../snapshot/kit.js';
import { compareSnapshots, type CompareReport } from './compare.js';
import { dimensionCheck } from './endpoint.js';
import { checkExisting } from './existing.js';
import { RestoreGuard } from './guard.js';
import type { RestoreArgs } from './input.js';
import { restoreSnapshotName } from './names.js';
import type { Box, Plan } from './plan.js';
import { takeSnapshot } from './recording.js';

export type SummonFailure = {
  index: number;
  uuid: string;
  command: string;
  error: string;
  gameOutput?: string[];
};

export interface Checks {
  endpoint: Record<string, unknown>;
  dimension: Record<string, unknown> | null;
  existing: Record<string, unknown> | null;
  tick: RestoreGuard['tick'] | null;
  [key: string]: unknown;
}

const asError = (err: unknown) => (err instanceof McbridgeError ? err : new McbridgeError('internal', (err as Error).message));

/** What the clean-up of a cancelled apply will do, for the `cancelled` answer. */
function undoText(guard: RestoreGuard, args: RestoreArgs): string {
  const undo: string[] = [];
  if (guard.tick.frozenByBridge || guard.tick.prior === 'running') undo.push('unfreezes the game (it was running before)');
  if (guard.tick.prior === 'frozen' && guard.tick.clearedWhileRunning && !guard.tick.refrozen) undo.push('freezes it again (it was frozen before)');
  if (args.release_forceload && guard.forceload) undo.push(`releases the forceload (${guard.forceload.command})`);
  return undo.length > 0 ? `the clean-up ${undo.join(' and ')}` : 'nothing to undo: the tick state was not changed';
}

export function applyRestore(args: RestoreArgs, ctx: ToolContext, recording: SnapshotFiles, plan: Plan, box: Box | null, checks: Checks) {
  return worldOperation(ctx, 'restore', (journal) => apply(args, ctx, recording, plan, box, checks, journal));
}

async function apply(args: RestoreArgs, ctx: ToolContext, recording: SnapshotFiles, plan: Plan, box: Box | null, checks: Checks, journal: WorldJournal) {
  const send = (line: string) => ctx.request(line);
  const guard = new RestoreGuard(
    {
      freeze: args.freeze,
      priorTickState: args.prior_tick_state,
      releaseForceload: args.release_forceload,
      freezeTimeoutSeconds: args.freeze_timeout_seconds,
    },
    journal,
  );
  // Registered before anything changes: a cancel at any point still puts the game back; run early below.
  const undo = ctx.defer((clean) => withinCleanupBudget(guard.settle(clean)));
  const settle = () => {
    undo.cancel();
    return guard.settle(ctx);
  };
  checks.tick = guard.tick;
  const total = plan.items.length;
  const cancelled = (where: string) => new McbridgeError('cancelled', `restore cancelled ${where}; ${undoText(guard, args)}`, { tick: guard.tick });

  let baselineSnapshotDir: string | null = null;
  try {
    await guard.freeze(ctx);
    if (args.forceload && box) await guard.addForceload(ctx, box);
    const baseline = await takeSnapshot(send, restoreSnapshotName('pre', args.target));
    baselineSnapshotDir = baseline.dir;
    const dimension = dimensionCheck(args.expect_dimension ?? recording.meta.dimension, baseline.files.meta.dimension);
    checks.dimension = { ...dimension };
    if (!dimension.ok) {
      throw new McbridgeError(
        'invalid_params',
        `destination dimension check failed: ${dimension.reason}. Nothing was restored - the summons would land in the wrong dimension. ` +
          'Pass expect_dimension only if the recording really belongs there.',
        { dimension },
      );
    }
    checks.existing = await checkExisting(send, guard, args, recording.entities, baseline.files.entities);
  } catch (err) {
    if (ctx.signal.aborted) throw cancelled('before any summon was sent');
    await settle();
    const e = asError(err);
    throw new McbridgeError(e.code, `${e.message} (${guard.outcome()})`, { ...e.details, tick: guard.tick, forceload: guard.forceload });
  }

  const failed: SummonFailure[] = [];
  const evidence = new Map<string, string[]>();
  const attempted: typeof plan.items = [];
  let issued = 0;
  for (const item of plan.items) {
    if ((failed.length > 0 && !args.keep_going) || guard.watchdog.fired) break;
    if (ctx.signal.aborted) throw cancelled(`after ${issued} of ${total} summons`);
    attempted.push(item);
    try {
      const lines = outputLines(await send(`CMD ${item.command}`)).filter((l) => l.trim() !== '');
      issued++;
      if (lines.length > 0) evidence.set(item.uuid, lines); // kept as evidence, never parsed: the text is locale-dependent
    } catch (err) {
      if (ctx.signal.aborted) throw cancelled(`during summon ${attempted.length} of ${total} (${issued} issued)`);
      failed.push({ index: item.index, uuid: item.uuid, command: item.command, error: (err as Error).message });
    }
    ctx.progress(attempted.length, total, `summoned ${attempted.length}/${total}: ${item.type} ${item.uuid}`);
  }
  const notAttempted = total - attempted.length;

  let verification: (CompareReport & { snapshotDir: string }) | { ok: false; error: string } | null = null;
  if (args.verify) {
    try {
      const check = await takeSnapshot(send, restoreSnapshotName('check', args.target), args.verify_radius);
      const report = await compareSnapshots(recording, check.files, {
        strict: args.strict,
        posTolerance: args.pos_tolerance,
        velTolerance: args.vel_tolerance,
        ignoreNbtKeys: args.ignore_nbt_keys,
      });
      verification = { ...report, snapshotDir: check.dir };
      const present = new Set(check.files.entities.map((e) => e.uuid));
      const failedUuids = new Set(failed.map((f) => f.uuid));
      for (const item of attempted) {
        if (failedUuids.has(item.uuid) || present.has(item.uuid)) continue;
        const gameOutput = evidence.get(item.uuid);
        failed.push({ index: item.index, uuid: item.uuid, command: item.command, error: 'the entity is not present in the post-restore snapshot', ...(gameOutput ? { gameOutput } : {}) });
      }
    } catch (err) {
      if (ctx.signal.aborted) throw cancelled(`after all ${issued} summons were issued, during verification`);
      verification = { ok: false, error: `verification snapshot failed: ${(err as Error).message}` };
    }
  }

  await settle();
  return { baselineSnapshotDir, failed, issued, notAttempted, verification, guard };
}

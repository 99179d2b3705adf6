/**
 * The `restore` tool (predecessor §7.4): read and validate the recording, plan the summons,
 * report and prove the endpoint; a dry run stops there, an apply needs the proof and then runs
 * `applyRestore`. Results keep the predecessor's field names.
 */
import path from 'node:path';
import { McbridgeError, type ToolContext } from 'mcbridge';
import { applyRestore, type Checks } from './apply.js';
import { endpointChecks, endpointReport } from './endpoint.js';
import type { RestoreArgs } from './input.js';
import { planSummons, recordedBox } from './plan.js';
import { readRecording } from './recording.js';

const UNVERIFIED_NOTE = 'post-restore verification was disabled: commands were issued, but this is not a claim that the world was faithfully restored';
const WATCHDOG_NOTE =
  'the freeze watchdog released the world before the restore completed (freeze_timeout_seconds); the summons after it were not sent and its verdict cannot stand';

export async function runRestore(args: RestoreArgs, ctx: ToolContext) {
  const directory = path.resolve(args.directory);
  const { files, warnings } = await readRecording(directory, 'restored', ctx);
  const plan = planSummons(files.entities);
  const box = recordedBox(files.entities);
  const endpoint = await endpointReport(ctx);
  const endpointCheck = endpointChecks(
    endpoint,
    { instance: args.expect_instance, worldDir: args.expect_world_dir, level: args.expect_level },
    args.allow_unproven_destination,
  );
  const checks: Checks = { endpoint: endpointCheck, dimension: null, existing: null, tick: null };
  const base = {
    directory,
    target: args.target ?? null,
    targetIsLabel: true as const,
    orderHash: files.meta.orderHash ?? files.orderHash,
    dimension: typeof files.meta.dimension === 'string' ? files.meta.dimension : null,
    levelName: typeof files.meta.levelName === 'string' ? files.meta.levelName : null,
    count: files.entities.length,
    summonable: plan.items.length,
    skipped: plan.skipped,
    playersExcluded: typeof files.meta.playersSkipped === 'number' ? files.meta.playersSkipped : null,
    warnings,
    endpoint,
    checks,
  };
  if (args.dry_run) {
    return { ...base, dryRun: true, commands: plan.items.map((i) => i.command), ok: null, verified: false, verdict: 'dry-run' as const };
  }

  if (!endpointCheck.verified) {
    if (!args.allow_unproven_destination) {
      const message = endpoint.error !== undefined
        ? `cannot prove the destination endpoint: STATE failed (${endpoint.error}); nothing was sent to the game. ` +
          'Pass allow_unproven_destination=true only if you accept writing to an unproven instance.'
        : 'apply requires an endpoint proof: pass expect_world_dir (strongest), expect_instance or expect_level; nothing was sent to the game. ' +
          'Pass allow_unproven_destination=true to override explicitly.';
      throw new McbridgeError('invalid_params', message, { endpoint: endpointCheck });
    }
    endpointCheck.action = 'allowed (allow_unproven_destination=true)';
  }

  const run = await applyRestore(args, ctx, files, plan, box, checks);
  const tick = run.guard.tick;
  const watchdog = tick.watchdogUnfroze === true;
  const forceload = run.guard.forceload;
  const verification = run.verification;
  let verdict: 'ok' | 'failed' | 'unverified';
  if (run.failed.length > 0 || tick.preserved === false || watchdog || forceload?.released === false) verdict = 'failed';
  else if (verification === null) verdict = 'unverified';
  else verdict = verification.ok ? 'ok' : 'failed';
  const notes = [watchdog ? WATCHDOG_NOTE : null, verdict === 'unverified' ? UNVERIFIED_NOTE : null].filter((n): n is string => n !== null);
  return {
    ...base,
    dryRun: false,
    baselineSnapshotDir: run.baselineSnapshotDir,
    verifiedSnapshotDir: verification && 'snapshotDir' in verification ? verification.snapshotDir : null,
    forceload,
    issued: run.issued,
    failed: run.failed,
    notAttempted: run.notAttempted,
    partial: run.failed.length > 0 || run.notAttempted > 0,
    verification,
    tick,
    ok: verdict === 'ok' ? true : verdict === 'unverified' ? null : false,
    verified: verdict === 'ok',
    verdict,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

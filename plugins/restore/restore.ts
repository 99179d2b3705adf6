/**
 * The `restore` tool: read and validate the recording, plan the summons,
 * report and prove the endpoint; a dry run stops there, an apply needs the proof and then runs
 * `applyRestore`. Results keep the predecessor's field names.
 */
import path from 'node:path';
import { McbridgeError, type ToolContext } from 'mcbridge';
import { applyRestore, type Checks } from './apply.js';
import { endpointChecks, endpointReport, normalizePath } from './endpoint.js';
import type { RestoreArgs } from './input.js';
import { commandEntities, planSummons, recordedBox } from './plan.js';
import { readRecording } from './recording.js';

const UNVERIFIED_NOTE = 'post-restore verification was disabled: commands were issued, but this is not a claim that the world was faithfully restored';
const WATCHDOG_NOTE = 'the freeze watchdog released the world before the restore completed (freeze_timeout_seconds); the summons after it were not sent and its verdict cannot stand';

/** Whether the recording's source world (meta.worldDir) is the destination's world, as STATE reports it. */
function sameWorld(source: unknown, destination: string | null | undefined): boolean {
  return typeof source === 'string' && source !== '' && !!destination && normalizePath(source) === normalizePath(destination);
}

export async function runRestore(args: RestoreArgs, ctx: ToolContext) {
  const directory = path.resolve(args.directory);
  const { files, warnings } = await readRecording(directory, 'restored', ctx);
  const plan = planSummons(files.entities);
  const commanders = commandEntities(plan, files.entities);
  if (commanders.length > 0 && !args.allow_command_entities) {
    const shown = commanders
      .slice(0, 5)
      .map((c) => `line ${c.index + 1} ${c.type} ${c.uuid}`)
      .join('; ');
    throw new McbridgeError(
      'invalid_params',
      `${directory} holds ${commanders.length} entity/entities that run commands (command block minecarts, or NBT with a Command): ${shown}. ` +
        'Nothing was sent to the game. Pass allow_command_entities=true only if you trust every command in this recording.',
      { commandEntities: commanders.slice(0, 100) },
    );
  }
  const box = recordedBox(files.entities);
  const endpoint = await endpointReport(ctx);
  const endpointCheck = endpointChecks(endpoint, { instance: args.expect_instance, worldDir: args.expect_world_dir, level: args.expect_level }, args.allow_unproven_destination);
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
  const sourceWorld = sameWorld(files.meta.worldDir, endpoint.worldDir);
  if (sourceWorld) {
    checks.sourceWorld = { worldDir: files.meta.worldDir, sameAsDestination: true, allowed: args.allow_source_world };
  }
  if (args.dry_run) {
    return { ...base, dryRun: true, commands: plan.items.map((i) => i.command), ok: null, verified: false, verdict: 'dry-run' as const };
  }

  if (sourceWorld && !args.allow_source_world) {
    throw new McbridgeError(
      'invalid_params',
      `the recording was taken from ${String(files.meta.worldDir)}, the destination's own world: restoring it there would summon its ` +
        'entities a second time beside the originals. Nothing was sent to the game. Restore into a copy (a lab on the fork), or pass ' +
        'allow_source_world=true if you removed them first.',
      { sourceWorld: checks.sourceWorld },
    );
  }
  if (!endpointCheck.verified) {
    if (!args.allow_unproven_destination) {
      const message =
        endpoint.error !== undefined
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

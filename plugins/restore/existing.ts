/**
 * Step 14 of an apply: what the destination already holds at the recorded spots. Collisions
 * refuse, unless `replace_existing`: then exactly the colliding entities (and their drops) are
 * killed with the game running, the world saved and refrozen, and everything checked again.
 */
import { McbridgeError, type ToolContext } from 'mcbridge';
import { outputLines } from 'mcbridge/kit';
import { savedTheGame, type SnapshotEntity } from '../snapshot/kit.js';
import { clearCommands, findCollisions, nearRecorded } from './collisions.js';
import type { RestoreGuard } from './guard.js';
import type { RestoreArgs } from './input.js';
import { restoreSnapshotName } from './names.js';
import { takeSnapshot } from './recording.js';

type Send = ToolContext['request'];

const brief = (e: SnapshotEntity) => ({ uuid: e.uuid ?? null, type: e.type ?? null, pos: e.pos ?? null });

export async function checkExisting(send: Send, guard: RestoreGuard, args: RestoreArgs, recorded: readonly SnapshotEntity[], destination: readonly SnapshotEntity[]): Promise<Record<string, unknown>> {
  const found = findCollisions(recorded, destination, args.collision_radius);
  const { targets, ...collisions } = found;
  const report: Record<string, unknown> = {
    destinationEntities: destination.length,
    collisions: collisions.count,
    uuidCollisions: collisions.uuidCollisions,
    spatialCollisions: collisions.spatialCollisions,
    action: 'none',
  };
  if (found.count === 0) {
    if (destination.length > 0) Object.assign(report, { action: 'none (no collisions)', note: 'destination entities do not collide with the recording' });
    return report;
  }
  if (!args.check_existing) {
    return Object.assign(report, {
      action: 'allowed (check_existing=false)',
      note: `${found.count} destination entity/entities collide with the recording and were left in place: the restore may duplicate them`,
    });
  }
  if (!args.replace_existing) {
    throw new McbridgeError(
      'invalid_params',
      `destination already holds ${found.count} entity/entities that the restore would duplicate (uuid collisions: ${found.uuidCollisions.count}, ` +
        `same-type-at-recorded-position: ${found.spatialCollisions.count}). Nothing was restored. Clear the copied world first ` +
        '(kill in the recorded box, then save-all flush) or pass replace_existing=true to let the bridge do it.',
      { existing: report },
    );
  }

  const commands = clearCommands(targets, args.collision_radius);
  await guard.runForClear(send);
  const evidence: Array<{ command: string; output: string[] }> = [];
  for (const command of commands) evidence.push({ command, output: outputLines(await send(`CMD ${command}`)) });
  const flushed = outputLines(await send('CMD save-all flush'));
  if (!savedTheGame(flushed)) {
    throw new McbridgeError('mod_error', `save-all flush after clearing failed (${JSON.stringify(flushed)}); nothing was summoned`, { clearCommands: commands });
  }
  await guard.refreezeAfterClear(send);

  const cleared = await takeSnapshot(send, restoreSnapshotName('pre-cleared', args.target));
  const after = findCollisions(recorded, cleared.files.entities, args.collision_radius);
  const leftovers = nearRecorded(cleared.files.entities, recorded, args.collision_radius);
  Object.assign(report, {
    action: 'cleared+flushed',
    clearCommands: commands,
    clearOutput: evidence,
    clearedSnapshotDir: cleared.dir,
    remainingCollisions: after.count,
    remainingAtRecordedPositions: leftovers.length,
  });
  if (after.count > 0 || leftovers.length > 0) {
    const left = [...after.targets.map((t) => ({ uuid: t.uuid, type: t.type, pos: t.pos })), ...leftovers.map(brief)];
    throw new McbridgeError(
      'mod_error',
      `replace_existing cleared the detected collisions but ${Math.max(after.count, leftovers.length)} entity/entities are still at the recorded ` +
        `positions after save-all flush; refusing a restore that would duplicate or collide. Leftovers: ${JSON.stringify(left.slice(0, 10))}`,
      { existing: report },
    );
  }
  const others = cleared.files.entities.length;
  if (others > 0) report.note = `${others} pre-existing entity/entities outside the recording were left in place`;
  return report;
}

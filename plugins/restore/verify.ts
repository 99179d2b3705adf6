/**
 * `verify` (predecessor §7.6): the full-state comparison without restoring anything. A fresh
 * snapshot of the destination against a recording; no freeze, no forceload.
 */
import path from 'node:path';
import { McbridgeError, type ToolContext } from 'mcbridge';
import { readSnapshot } from 'mcbridge/kit';
import { compareSnapshots } from './compare.js';
import type { OrderArgs, VerifyArgs } from './input.js';
import { orderSnapshotName, restoreSnapshotName } from './names.js';
import { readRecording, takeSnapshot } from './recording.js';
import { validateRecording } from './validate.js';

export async function runVerify(args: VerifyArgs, ctx: ToolContext) {
  const directory = path.resolve(args.directory);
  const { files, warnings } = await readRecording(directory, 'verified');
  const fresh = await takeSnapshot((line) => ctx.request(line), restoreSnapshotName('check', args.target), args.snapshot_radius);
  const actual = fresh.files;
  const { blockers, warnings: actualWarnings } = validateRecording(actual.meta, actual.entities, actual.orderHash);
  const report = compareSnapshots(files, actual, {
    strict: args.strict, posTolerance: args.pos_tolerance, velTolerance: args.vel_tolerance, ignoreNbtKeys: args.ignore_nbt_keys,
  });
  // A destination snapshot with blocking issues cannot vouch for anything.
  const verification = blockers.length > 0 ? { ...report, ok: false, failures: { ...report.failures, actualMalformed: true } } : report;
  const side = (f: typeof files) => ({
    orderHash: typeof f.meta.orderHash === 'string' ? f.meta.orderHash : f.orderHash,
    count: f.entities.length,
    dimension: typeof f.meta.dimension === 'string' ? f.meta.dimension : null,
  });
  return {
    directory,
    target: args.target ?? null,
    targetIsLabel: true as const,
    snapshotDir: fresh.dir,
    expected: side(files),
    actual: side(actual),
    warnings,
    actualIssues: [...blockers, ...actualWarnings],
    verification,
    ok: verification.ok,
  };
}

/** `order` (predecessor §7.7): only the orderHash of a fresh snapshot against the recording's. */
export async function runOrder(args: OrderArgs, ctx: ToolContext) {
  const directory = path.resolve(args.directory);
  const recorded = await readSnapshot(directory).catch((err: Error) => {
    throw new McbridgeError('invalid_params', `${err.message}; order needs the snapshot to compare against`);
  });
  const expected = recorded.meta.orderHash;
  if (typeof expected !== 'string' || expected === '') {
    throw new McbridgeError('invalid_params', `${directory}: meta.json has no orderHash to compare with`);
  }
  const fresh = await takeSnapshot((line) => ctx.request(line), orderSnapshotName(args.target));
  const actual = typeof fresh.files.meta.orderHash === 'string' && fresh.files.meta.orderHash ? fresh.files.meta.orderHash : null;
  return {
    match: actual !== null && actual === expected,
    expected,
    actual,
    entities: typeof fresh.files.meta.entities === 'number' ? fresh.files.meta.entities : fresh.files.entities.length,
    directory,
    snapshotDir: fresh.dir,
    target: args.target ?? null,
  };
}

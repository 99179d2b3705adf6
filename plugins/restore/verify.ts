/**
 * `verify`: the full-state comparison without restoring anything. A fresh
 * snapshot of the destination against a recording; no freeze, no forceload.
 */
import path from 'node:path';
import type { ToolContext } from 'mcbridge';
import { compareSnapshots } from './compare.js';
import type { VerifyArgs } from './input.js';
import { restoreSnapshotName } from './names.js';
import { readRecording, takeSnapshot } from './recording.js';
import { validateRecording } from './validate.js';

export async function runVerify(args: VerifyArgs, ctx: ToolContext) {
  const directory = path.resolve(args.directory);
  const { files, warnings } = await readRecording(directory, 'verified', ctx);
  const fresh = await takeSnapshot((line) => ctx.request(line), restoreSnapshotName('check', args.target), args.snapshot_radius, ctx.signal);
  const actual = fresh.files;
  const { blockers, warnings: actualWarnings } = await validateRecording(actual.meta, actual.entities, actual.orderHash);
  const report = await compareSnapshots(files, actual, {
    strict: args.strict,
    posTolerance: args.pos_tolerance,
    velTolerance: args.vel_tolerance,
    ignoreNbtKeys: args.ignore_nbt_keys,
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
    verdict: verification.ok ? ('ok' as const) : ('failed' as const),
  };
}

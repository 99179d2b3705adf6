/** `order`: only the tick order of the game against a recording, by orderHash. */
import path from 'node:path';
import { McbridgeError, type ToolContext } from 'mcbridge';
import type { OrderArgs } from './input.js';
import { orderSnapshotName } from './names.js';
import { readRecordingFiles, takeSnapshot } from './recording.js';

/** `order`: only the orderHash of a fresh snapshot against the recording's. */
export async function runOrder(args: OrderArgs, ctx: ToolContext) {
  const directory = path.resolve(args.directory);
  const recorded = await readRecordingFiles(directory, 'compared', ctx);
  const expected = recorded.meta.orderHash;
  if (typeof expected !== 'string' || expected === '') {
    throw new McbridgeError('invalid_params', `${directory}: meta.json has no orderHash to compare with`);
  }
  const fresh = await takeSnapshot((line) => ctx.request(line), orderSnapshotName(args.target), undefined, ctx.signal);
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

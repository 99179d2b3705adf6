/** Reading snapshot folders for restore and verify: the recording (validated) and fresh ones taken on the destination. */
import { McbridgeError, type ToolContext } from 'mcbridge';
import { readSnapshot, snapshotAck, SnapshotFileError, snapshotLine, type SnapshotFiles } from '../snapshot/kit.js';
import { describeBlockers, validateRecording, type Issue } from './validate.js';

/** The reader's issues under the validation codes the predecessor used for them. */
const READ_ISSUE_CODES: Record<string, string> = { count_mismatch: 'entity_count', unsupported_protocol: 'meta_protocol', bad_field: 'meta_missing' };

export interface Recording {
  files: SnapshotFiles;
  warnings: Issue[];
}

/** Read and validate a recording; any blocking issue refuses with every reason, before anything is sent. */
export async function readRecording(dir: string, verb: 'restored' | 'verified'): Promise<Recording> {
  const refuse = (blockers: Issue[]) => {
    return new McbridgeError('invalid_params', describeBlockers(dir, blockers, verb), { blockers });
  };
  let files: SnapshotFiles;
  try {
    files = await readSnapshot(dir);
  } catch (err) {
    if (!(err instanceof SnapshotFileError)) throw err;
    throw refuse([{ code: READ_ISSUE_CODES[err.issue] ?? err.issue, message: err.message, line: err.line ?? null }]);
  }
  const { blockers, warnings } = validateRecording(files.meta, files.entities, files.orderHash);
  if (blockers.length > 0) throw refuse(blockers);
  return { files, warnings };
}

export interface Taken {
  name: string;
  dir: string;
  files: SnapshotFiles;
}

/** SNAPSHOT on the destination, then its files read back here (they are the evidence, not the ack). */
export async function takeSnapshot(send: ToolContext['request'], name: string, radius?: number | null): Promise<Taken> {
  const ack = snapshotAck(await send(snapshotLine({ radius: radius ?? undefined, name })), name);
  try {
    return { name: ack.name, dir: ack.dir, files: await readSnapshot(ack.dir) };
  } catch (err) {
    if (!(err instanceof SnapshotFileError)) throw err;
    throw new McbridgeError('mod_error', `the destination snapshot ${ack.name} cannot be read here: ${err.message}`, err.details());
  }
}

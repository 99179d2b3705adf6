/** Reading snapshot folders for restore, verify and order: the recording (validated) and fresh ones taken on the destination. */
import { McbridgeError, type ToolContext } from 'mcbridge';
import { readSnapshot, snapshotAck, SnapshotFileError, snapshotLine, type SnapshotFiles } from '../snapshot/kit.js';
import { describeBlockers, validateRecording, type Issue } from './validate.js';

/** The reader's issues under the validation codes the predecessor used for them. */
const READ_ISSUE_CODES: Record<string, string> = { count_mismatch: 'entity_count', unsupported_protocol: 'meta_protocol', bad_field: 'meta_missing' };

export interface Recording {
  files: SnapshotFiles;
  warnings: Issue[];
}

type Verb = 'restored' | 'verified' | 'compared';
/** What reading needs from the tool's context: its cancel signal, and progress for a long read. */
export type ReadContext = Pick<ToolContext, 'signal' | 'progress'>;

const readOptions = (ctx?: ReadContext) =>
  ctx && {
    signal: ctx.signal,
    onProgress: (bytes: number, total: number, lines: number) => ctx.progress(bytes, total, `read ${lines} lines of the recording`),
  };

/**
 * The recording's files, read within the reader's bounds (bytes, lines, depth, time); a file the
 * reader refuses is the caller's to fix (`invalid_params`), one too slow to read a `timeout`.
 */
export async function readRecordingFiles(dir: string, verb: Verb, ctx?: ReadContext): Promise<SnapshotFiles> {
  try {
    return await readSnapshot(dir, readOptions(ctx));
  } catch (err) {
    if (!(err instanceof SnapshotFileError)) throw err;
    const issue = { code: READ_ISSUE_CODES[err.issue] ?? err.issue, message: err.message, line: err.line ?? null };
    throw new McbridgeError(err.issue === 'too_slow' ? 'timeout' : 'invalid_params', describeBlockers(dir, [issue], verb), { blockers: [issue] });
  }
}

/** Read and validate a recording; any blocking issue refuses with every reason, before anything is sent. */
export async function readRecording(dir: string, verb: Verb, ctx?: ReadContext): Promise<Recording> {
  const files = await readRecordingFiles(dir, verb, ctx);
  const { blockers, warnings, unlisted } = await validateRecording(files.meta, files.entities, files.orderHash);
  if (blockers.length > 0) {
    throw new McbridgeError('invalid_params', describeBlockers(dir, blockers, verb, unlisted.blockers), { blockers, unlisted: unlisted.blockers });
  }
  return { files, warnings };
}

export interface Taken {
  name: string;
  dir: string;
  files: SnapshotFiles;
}

/** SNAPSHOT on the destination, then its files read back here (they are the evidence, not the ack). */
export async function takeSnapshot(send: ToolContext['request'], name: string, radius?: number | null, signal?: AbortSignal): Promise<Taken> {
  const ack = snapshotAck(await send(snapshotLine({ radius: radius ?? undefined, name })), name);
  try {
    return { name: ack.name, dir: ack.dir, files: await readSnapshot(ack.dir, { signal }) };
  } catch (err) {
    if (!(err instanceof SnapshotFileError)) throw err;
    throw new McbridgeError('mod_error', `the destination snapshot ${ack.name} cannot be read here: ${err.message}`, err.details());
  }
}

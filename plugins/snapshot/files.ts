/**
 * The mod's snapshot protocol v1 (docs/protocol.md#snapshot-files): the SNAPSHOT request line, name
 * rules, orderHash, and a reader for `meta.json` + `entities.jsonl` that names what is wrong.
 * Shared by the snapshot, fork and restore plugins (through ./kit.ts), so each reads the files one way.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { VerbSpec } from 'mcbridge';
import { CMD_VERB, exceedsJsonDepth, MAX_MOD_LINE_DEPTH, STATE_VERB } from 'mcbridge/kit';

/** The protocol this reader speaks; a meta.json declaring another is refused. */
export const SNAPSHOT_PROTOCOL = 1;

/**
 * How SNAPSHOT and SNAPSHOTS are answered. One object, so every plugin that sends them declares
 * them identically (the host refuses two different declarations of one verb).
 */
/** `SNAPSHOT [radius [name [dimension]]]` (snapshotLine): a write (the game writes a folder); over control protocol 1 the op `snapshot`. */
function snapshotVerb(arg: string): VerbSpec {
  const [radius, name, dimension] = arg.split(/\s+/).filter(Boolean);
  const params = {
    ...(radius === undefined || Number(radius) === 0 ? {} : { radius: Number(radius) }),
    ...(name === undefined ? {} : { name }),
    ...(dimension === undefined ? {} : { dimension }),
  };
  return { replies: ['snapshot_ack'], timeoutMs: 120_000, requires: ['snapshot'], write: true, control: { op: 'snapshot', params } };
}

export const SNAPSHOT_VERBS = {
  SNAPSHOT: snapshotVerb,
  SNAPSHOTS: { replies: ['snapshots'], requires: ['snapshot'], control: { op: 'snapshots' } },
};

/** The verbs of a tool that freezes, saves and snapshots (fork, restore): SNAPSHOT(S), CMD and STATE, declared alike. */
export const SNAPSHOT_WORKFLOW_VERBS = { ...SNAPSHOT_VERBS, ...CMD_VERB, ...STATE_VERB };

/** The file beside a fork's `world/` that describes the copy; written last, so it marks a complete fork. */
export const FORK_MANIFEST = 'fork-manifest.json';

const DEVICE_NAMES = new Set(['con', 'prn', 'aux', 'nul', ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`com${n}`, `lpt${n}`])]);

/** Why the mod would reject `name` as a snapshot name, or null when it accepts it. */
export function snapshotNameProblem(name: string): string | null {
  if (name.length < 1 || name.length > 64) return 'must be 1-64 characters';
  if (!/^[A-Za-z0-9._-]+$/.test(name)) return 'may hold only A-Z, a-z, 0-9, ".", "_" and "-"';
  if (name.startsWith('.') || name.endsWith('.')) return 'must not start or end with "." (nor be "." or "..")';
  if (DEVICE_NAMES.has(name.split('.')[0]!.toLowerCase())) return 'is a Windows device name (con, prn, aux, nul, com1-9, lpt1-9)';
  return null;
}

/**
 * A radius as the mod's number token reads it (`[-+]?\d+(\.\d+)?`): `64.0`, never `1e-7`, which
 * the mod would take for a snapshot name.
 */
export function radiusText(radius: number): string {
  if (Number.isInteger(radius)) return radius.toFixed(1);
  const plain = String(radius);
  return /e/i.test(plain) ? radius.toFixed(20).replace(/0+$/, '').replace(/\.$/, '.0') : plain;
}

/** `minecraft:the_nether` from `the_nether`: a token without ':' would be read as the name. */
export function dimensionId(dimension: string): string {
  return dimension.includes(':') ? dimension : `minecraft:${dimension}`;
}

/**
 * The request line. Arguments are positional, so a name or dimension without a radius is sent
 * after radius 0 (everything), as the predecessor did: `SNAPSHOT 0 before`.
 */
export function snapshotLine(args: { radius?: number; name?: string; dimension?: string }): string {
  const { radius, name, dimension } = args;
  if (radius === undefined && name === undefined && dimension === undefined) return 'SNAPSHOT';
  const parts = ['SNAPSHOT', radius === undefined ? '0' : radiusText(radius)];
  if (name !== undefined) parts.push(name);
  if (dimension !== undefined) parts.push(dimensionId(dimension));
  return parts.join(' ');
}

/** First 16 hex chars of SHA-256 over the dashed UUIDs joined with ':' (empty: e3b0c44298fc1c14). */
export function orderHash(uuids: readonly string[]): string {
  return createHash('sha256').update(uuids.join(':'), 'utf8').digest('hex').slice(0, 16);
}

/** What is wrong with a snapshot folder, as a stable code beside the message. */
export type SnapshotIssue =
  | 'not_a_snapshot' // meta.json or entities.jsonl missing
  | 'unreadable' // the file exists but could not be read
  | 'not_utf8'
  | 'not_json'
  | 'not_object'
  | 'unsupported_protocol'
  | 'bad_field' // a meta field has the wrong type
  | 'count_mismatch' // meta.json's entities differs from the lines of entities.jsonl
  | 'too_large' // more bytes, lines or line length than the reader's bound
  | 'too_deep' // JSON nested deeper than any snapshot the mod writes
  | 'too_slow'; // reading took longer than the reader's bound

export class SnapshotFileError extends Error {
  override readonly name = 'SnapshotFileError';
  constructor(
    readonly issue: SnapshotIssue,
    message: string,
    readonly file: string,
    readonly line?: number,
  ) {
    super(message);
  }

  details(): Record<string, unknown> {
    return this.line === undefined ? { issue: this.issue, file: this.file } : { issue: this.issue, file: this.file, line: this.line };
  }
}

export interface SnapshotMeta {
  protocol?: number;
  tick?: number;
  dimension?: string;
  radius?: number;
  entities?: number;
  orderHash?: string;
  createdAt?: number;
  worldDir?: string;
  levelName?: string;
  playersSkipped?: number;
  [key: string]: unknown;
}

/** One `entities.jsonl` record; fields are as the mod wrote them, checked by whoever uses them. */
export interface SnapshotEntity {
  order?: number;
  uuid?: string;
  type?: string;
  pos?: unknown;
  vel?: unknown;
  nbt?: string;
  passengers?: unknown;
  vehicle?: string | null;
  restorable?: boolean;
  [key: string]: unknown;
}

export interface SnapshotFiles {
  dir: string;
  meta: SnapshotMeta;
  entities: SnapshotEntity[];
  /** Recomputed from the entity lines, to compare with `meta.orderHash`. */
  orderHash: string;
}

const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** The largest snapshot file read; ~300 bytes per entity, so about 800,000 entities. */
export const MAX_SNAPSHOT_FILE_BYTES = 256 * 1024 * 1024;
/** The most lines `entities.jsonl` may hold: every entity of a big server, while 48 MiB of `{}` is refused after a few kB. */
export const MAX_SNAPSHOT_LINES = 250_000;
/** The longest entity line: a chest of shulker boxes full of written books stays well under it. */
export const MAX_SNAPSHOT_LINE_BYTES = 4 * 1024 * 1024;
/** How long reading a snapshot may take before it is given up. */
export const SNAPSHOT_READ_TIMEOUT_MS = 60_000;
/** Nesting deeper than this is refused before parsing: recursive walks (JSON.stringify, zod) would overflow on it. */
const MAX_SNAPSHOT_DEPTH = MAX_MOD_LINE_DEPTH;
/** Bytes read at a time; the loop yields between chunks, so no chunk holds the daemon for more than a few ms. */
const CHUNK_BYTES = 64 * 1024;
/** Bytes between two progress calls. */
const PROGRESS_BYTES = 1024 * 1024;

export interface SnapshotReadLimits {
  maxBytes?: number;
  maxLines?: number;
  maxLineBytes?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called now and then while `entities.jsonl` is read (every PROGRESS_BYTES). */
  onProgress?: (bytesRead: number, totalBytes: number, lines: number) => void;
}

const HOW_TO_SHRINK = 'take the snapshot with a radius (fewer entities), or split the recording';

function openError(err: unknown, dir: string, file: string, full: string): SnapshotFileError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new SnapshotFileError('not_a_snapshot', `${dir} is not a snapshot: no ${file} (expected the mod's SNAPSHOT layout)`, full);
  }
  return new SnapshotFileError('unreadable', `${full} cannot be read: ${(err as Error).message}`, full);
}

function tooLarge(full: string, size: number, maxBytes: number): SnapshotFileError {
  return new SnapshotFileError('too_large', `${full} holds ${size} bytes, more than the ${maxBytes} this bridge reads; ${HOW_TO_SHRINK}`, full);
}

function tooDeep(full: string, line?: number): SnapshotFileError {
  const where = line === undefined ? full : `${full} line ${line}`;
  return new SnapshotFileError('too_deep', `${where} nests JSON more than ${MAX_SNAPSHOT_DEPTH} levels deep; the mod never writes that`, full, line);
}

async function readText(dir: string, file: string, maxBytes: number): Promise<string> {
  const full = path.join(dir, file);
  let bytes: Buffer;
  try {
    const { size } = await fs.stat(full);
    if (size > maxBytes) throw tooLarge(full, size, maxBytes);
    bytes = await fs.readFile(full);
  } catch (err) {
    throw err instanceof SnapshotFileError ? err : openError(err, dir, file, full);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SnapshotFileError('not_utf8', `${full} is not valid UTF-8 text`, full);
  }
}

function parseMeta(full: string, text: string): SnapshotMeta {
  if (exceedsJsonDepth(text, MAX_SNAPSHOT_DEPTH)) throw tooDeep(full);
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch (err) {
    throw new SnapshotFileError('not_json', `${full} is not valid JSON: ${(err as Error).message}`, full);
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw new SnapshotFileError('not_object', `${full} must be a JSON object, not ${kind(meta)}`, full);
  }
  const record = meta as SnapshotMeta;
  // An absent protocol passes, as in the predecessor: early files did not write one.
  if (record.protocol !== undefined && record.protocol !== SNAPSHOT_PROTOCOL) {
    throw new SnapshotFileError('unsupported_protocol', `${full} declares snapshot protocol ${JSON.stringify(record.protocol)}; this bridge speaks protocol ${SNAPSHOT_PROTOCOL}`, full);
  }
  if (record.entities !== undefined && !(Number.isInteger(record.entities) && record.entities >= 0)) {
    throw new SnapshotFileError('bad_field', `${full}: "entities" must be a count, not ${JSON.stringify(record.entities)}`, full);
  }
  return record;
}

function parseEntity(full: string, raw: string, line: number): SnapshotEntity | null {
  const text = raw.trim();
  if (text === '') return null; // blank lines (and the final newline) are not records
  if (exceedsJsonDepth(text, MAX_SNAPSHOT_DEPTH)) throw tooDeep(full, line);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new SnapshotFileError('not_json', `${full} line ${line} is not valid JSON: ${(err as Error).message}`, full, line);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SnapshotFileError('not_object', `${full} line ${line} must be a JSON object, not ${kind(value)}`, full, line);
  }
  return value as SnapshotEntity;
}

interface EntityLines {
  entities: SnapshotEntity[];
  orderHash: string;
}

/**
 * `entities.jsonl`, streamed: a chunk at a time with a turn of the event loop between chunks,
 * bounded in bytes, lines, line length and time. The orderHash is summed up on the way.
 */
async function readEntities(dir: string, limits: Required<Omit<SnapshotReadLimits, 'signal' | 'onProgress'>> & SnapshotReadLimits): Promise<EntityLines> {
  const full = path.join(dir, 'entities.jsonl');
  const handle = await fs.open(full, 'r').catch((err: unknown) => {
    throw openError(err, dir, 'entities.jsonl', full);
  });
  const deadline = Date.now() + limits.timeoutMs;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const hash = createHash('sha256');
  const entities: SnapshotEntity[] = [];
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let [rest, line, total, reported] = ['', 0, 0, 0];
  const take = (raw: string) => {
    line += 1;
    if (line > limits.maxLines) {
      throw new SnapshotFileError('too_large', `${full} holds more than ${limits.maxLines} lines, the most this bridge reads; ${HOW_TO_SHRINK}`, full, line);
    }
    const entity = parseEntity(full, raw, line);
    if (entity === null) return;
    hash.update(`${entities.length > 0 ? ':' : ''}${String(entity.uuid ?? '')}`, 'utf8');
    entities.push(entity);
  };
  try {
    const { size } = await handle.stat();
    if (size > limits.maxBytes) throw tooLarge(full, size, limits.maxBytes);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      total += bytesRead;
      if (total > limits.maxBytes) throw tooLarge(full, total, limits.maxBytes);
      let text: string;
      try {
        text = rest + decoder.decode(buffer.subarray(0, bytesRead), { stream: bytesRead > 0 });
      } catch {
        throw new SnapshotFileError('not_utf8', `${full} is not valid UTF-8 text`, full);
      }
      const lines = text.split('\n');
      rest = bytesRead > 0 ? lines.pop()! : '';
      if (rest.length > limits.maxLineBytes) {
        throw new SnapshotFileError('too_large', `${full} line ${line + 1} is longer than ${limits.maxLineBytes} characters; the mod writes one entity per line`, full, line + 1);
      }
      lines.forEach(take);
      if (bytesRead === 0) break;
      if (total - reported >= PROGRESS_BYTES) {
        reported = total;
        limits.onProgress?.(total, size, line);
      }
      limits.signal?.throwIfAborted();
      if (Date.now() > deadline) {
        throw new SnapshotFileError('too_slow', `reading ${full} took more than ${limits.timeoutMs} ms; ${HOW_TO_SHRINK}`, full, line);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await handle.close();
  }
  return { entities, orderHash: hash.digest('hex').slice(0, 16) };
}

/**
 * Read and check a snapshot folder: both files present, UTF-8, JSON objects, protocol 1, and as
 * many entity lines as meta.json declares, within the limits. Throws `SnapshotFileError` naming
 * the file and issue.
 */
export async function readSnapshot(dir: string, options: SnapshotReadLimits = {}): Promise<SnapshotFiles> {
  const maxBytes = options.maxBytes ?? MAX_SNAPSHOT_FILE_BYTES;
  const meta = parseMeta(path.join(dir, 'meta.json'), await readText(dir, 'meta.json', maxBytes));
  const entitiesFile = path.join(dir, 'entities.jsonl');
  const { entities, orderHash: hash } = await readEntities(dir, {
    maxBytes,
    maxLines: options.maxLines ?? MAX_SNAPSHOT_LINES,
    maxLineBytes: options.maxLineBytes ?? MAX_SNAPSHOT_LINE_BYTES,
    timeoutMs: options.timeoutMs ?? SNAPSHOT_READ_TIMEOUT_MS,
    signal: options.signal,
    onProgress: options.onProgress,
  });
  if (meta.entities !== undefined && meta.entities !== entities.length) {
    throw new SnapshotFileError('count_mismatch', `${dir}: meta.json says ${meta.entities} entities but entities.jsonl holds ${entities.length}`, entitiesFile);
  }
  return { dir, meta, entities, orderHash: hash };
}

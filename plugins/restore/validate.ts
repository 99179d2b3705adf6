/**
 * The checks a recording must pass before anything is sent to a game:
 * blocking issues refuse the restore, the rest are warnings in the result.
 */
import { isObject } from 'mcbridge/kit';
import type { SnapshotEntity, SnapshotMeta } from '../snapshot/kit.js';
import { eachSliced } from './turns.js';

export interface Issue {
  code: string;
  message: string;
  /** 1-based line of entities.jsonl, or null for meta.json. */
  line: number | null;
}

export interface Validation {
  blockers: Issue[];
  warnings: Issue[];
  /** Issues past the first MAX_LISTED_ISSUES of each kind: counted, not listed. */
  unlisted: { blockers: number; warnings: number };
}

/** Issues listed per kind: a recording of 250,000 bad lines must not become a 250,000-item answer. */
export const MAX_LISTED_ISSUES = 100;

function add(out: Validation, kind: 'blockers' | 'warnings', issue: Issue): void {
  if (out[kind].length < MAX_LISTED_ISSUES) out[kind].push(issue);
  else out.unlisted[kind]++;
}

/** A list in a message: at most five items, then "+N more". */
export function shortList(items: readonly unknown[], max = 5): string {
  const shown = items.slice(0, max).map(String).join(', ');
  return items.length > max ? `${shown} +${items.length - max} more` : shown;
}

const REQUIRED = ['order', 'uuid', 'type', 'pos', 'nbt'] as const;
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
/** A registry id (`minecraft:pig`, `pig`): nothing that could add words to a command. */
export const isEntityType = (v: unknown): v is string => typeof v === 'string' && /^([a-z0-9_.-]+:)?[a-z0-9_./-]+$/.test(v);
const isVec3 = (v: unknown): v is [number, number, number] => Array.isArray(v) && v.length === 3 && v.every((n) => typeof n === 'number' && Number.isFinite(n));

function checkMeta(meta: SnapshotMeta, count: number, recomputed: string, out: Validation): void {
  const block = (code: string, message: string) => add(out, 'blockers', { code, message, line: null });
  if (meta.protocol === undefined) block('meta_missing', 'meta.json has no "protocol"');
  else if (meta.protocol !== 1) block('meta_protocol', `meta.json declares protocol ${JSON.stringify(meta.protocol)}; this bridge speaks protocol 1`);
  if (typeof meta.entities !== 'number' || !Number.isInteger(meta.entities)) {
    block('meta_missing', `meta.json has no integer "entities" count (got ${JSON.stringify(meta.entities)})`);
  } else if (meta.entities !== count) {
    block('entity_count', `meta.json says ${meta.entities} entities but entities.jsonl holds ${count}`);
  }
  if (typeof meta.orderHash !== 'string' || !/^[0-9a-f]{16}$/.test(meta.orderHash)) {
    block('order_hash_format', `meta.json "orderHash" must be 16 lowercase hex characters, got ${JSON.stringify(meta.orderHash)}`);
  } else if (meta.orderHash !== recomputed) {
    block('order_hash', `meta.json orderHash ${meta.orderHash} does not match ${recomputed}, recomputed from the uuids of entities.jsonl`);
  }
}

function checkRecord(record: unknown, index: number, out: Validation): void {
  const line = index + 1;
  const block = (code: string, message: string) => add(out, 'blockers', { code, message, line });
  const warn = (code: string, message: string) => add(out, 'warnings', { code, message, line });
  if (!isObject(record)) {
    block('bad_record', `line ${line} is not a JSON object`);
    return;
  }
  const missing = REQUIRED.filter((key) => !(key in record));
  if (missing.length > 0) block('missing_field', `line ${line} lacks ${missing.join(', ')}`);
  if ('uuid' in record && !isText(record.uuid)) block('bad_field', `line ${line}: uuid must be a non-empty string`);
  if ('type' in record && !isEntityType(record.type)) block('bad_field', `line ${line}: type must be an entity id such as minecraft:pig`);
  if ('pos' in record && !isVec3(record.pos)) block('bad_field', `line ${line}: pos must be 3 finite numbers`);
  if ('nbt' in record && !isText(record.nbt)) block('bad_field', `line ${line}: nbt must be a non-empty SNBT string`);
  else if ('nbt' in record && /[\r\n]/.test(record.nbt as string)) block('bad_field', `line ${line}: nbt must be one line (the mod writes compact SNBT)`);
  if ('vel' in record && record.vel !== null && !isVec3(record.vel)) warn('bad_field', `line ${line}: vel is not 3 finite numbers (ignored)`);
  if ('order' in record) {
    if (typeof record.order !== 'number' || !Number.isInteger(record.order)) warn('order_type', `line ${line}: order must be an integer`);
    else if (record.order !== index) {
      warn('order_mismatch', `line ${line} has order ${record.order}, expected ${index}: the file's line order is the tick order`);
    }
  }
}

/** Uuids and order values seen so far, for the duplicate checks once every record was read. */
interface Seen {
  uuids: Set<string>;
  dupes: string[];
  orders: Map<number, number>;
}

function noteRecord(e: unknown, seen: Seen): void {
  if (!isObject(e)) return;
  if (isText(e.uuid)) {
    if (seen.uuids.has(e.uuid)) seen.dupes.push(e.uuid);
    else seen.uuids.add(e.uuid);
  }
  if (typeof e.order === 'number' && Number.isInteger(e.order)) seen.orders.set(e.order, (seen.orders.get(e.order) ?? 0) + 1);
}

async function checkSets(count: number, seen: Seen, out: Validation): Promise<void> {
  if (seen.dupes.length > 0) add(out, 'blockers', { code: 'uuid_duplicate', message: `uuids appear more than once: ${shortList(seen.dupes)}`, line: null });
  const repeated: number[] = [];
  await eachSliced(seen.orders, ([order, n]) => {
    if (n > 1) repeated.push(order);
  });
  if (repeated.length > 0) add(out, 'warnings', { code: 'order_duplicate', message: `order values repeated: ${shortList(repeated)}`, line: null });
  const unused: number[] = [];
  await eachSliced(seen.orders.size > 0 ? Array.from({ length: count }, (_, i) => i) : [], (i) => {
    if (!seen.orders.has(i)) unused.push(i);
  });
  if (seen.orders.size > 0 && unused.length > 0) add(out, 'warnings', { code: 'order_missing', message: `order values unused: ${shortList(unused)}`, line: null });
}

/** Every issue of a recording: meta fields, each record, duplicates; a slice of records per turn of the event loop. */
export async function validateRecording(meta: SnapshotMeta, entities: readonly SnapshotEntity[], recomputedHash: string): Promise<Validation> {
  const out: Validation = { blockers: [], warnings: [], unlisted: { blockers: 0, warnings: 0 } };
  checkMeta(meta, entities.length, recomputedHash, out);
  const seen: Seen = { uuids: new Set(), dupes: [], orders: new Map() };
  await eachSliced(entities, (record, index) => {
    checkRecord(record, index, out);
    noteRecord(record, seen);
  });
  await checkSets(entities.length, seen, out);
  return out;
}

/** The refusal for blocking issues: the first eight, and that nothing was sent. */
export function describeBlockers(dir: string, blockers: readonly Issue[], verb: 'restored' | 'verified' | 'compared' = 'restored', unlisted = 0): string {
  const total = blockers.length + unlisted;
  const shown = blockers
    .slice(0, 8)
    .map((b) => `[${b.code}] ${b.message}`)
    .join('; ');
  const more = total > 8 ? ` (+${total - 8} more)` : '';
  return `${dir} cannot be ${verb}: ${total} blocking issue(s). Nothing was sent to the game. ${shown}${more}`;
}

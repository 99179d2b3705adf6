/**
 * The full-state comparison of a recording with a fresh snapshot, the core
 * of `verify` and of restore's verdict: uuid order and orderHash, counts by type, and per entity
 * its type, position, velocity and NBT.
 */
import { orderHash, type SnapshotEntity, type SnapshotMeta } from '../snapshot/kit.js';
import { itemsFragment, stripTopLevelKeys, topLevelEntries } from './snbt-top.js';
import { isVec3, type Vec3 } from './plan.js';
import { eachSliced, turnAt } from './turns.js';

export interface CompareOptions {
  strict: boolean;
  posTolerance: number;
  velTolerance: number;
  ignoreNbtKeys: readonly string[];
}

export interface Side {
  meta: SnapshotMeta;
  entities: readonly SnapshotEntity[];
  /** The orderHash the reader summed up on the way (computed here when absent). */
  orderHash?: string;
}

const SAMPLE = 10;
const CLIP = 240;
const sampled = <T>(items: T[]) => ({ count: items.length, sample: items.slice(0, SAMPLE) });
const clip = (s: string) => (s.length > CLIP ? `${s.slice(0, CLIP)}...` : s);
const distance = (a: Vec3, b: Vec3) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** `vel`, else the NBT's top-level `Motion` list; null when neither says. */
export function velocityOf(e: SnapshotEntity): Vec3 | null {
  if (isVec3(e.vel)) return e.vel;
  if (typeof e.nbt !== 'string') return null;
  const raw = topLevelEntries(e.nbt)?.find((x) => x.key === 'Motion')?.raw;
  const m = raw && /^\[([^\]]*)\]$/.exec(raw);
  if (!m) return null;
  const values = m[1]!.split(',').map((v) => Number(v.trim().replace(/[dDfF]$/, '')));
  return isVec3(values) ? values : null;
}

function malformed(e: SnapshotEntity, index: number, out: Array<{ index: number; uuid: unknown; problems: string[] }>): void {
  const problems: string[] = [];
  if (typeof e.uuid !== 'string' || !e.uuid) problems.push('uuid');
  if (typeof e.type !== 'string' || !e.type) problems.push('type');
  if (!isVec3(e.pos)) problems.push('pos');
  if ('vel' in e && e.vel !== null && e.vel !== undefined && !isVec3(e.vel)) problems.push('vel');
  if (problems.length > 0) out.push({ index, uuid: e.uuid ?? null, problems });
}

type TypeCounts = Map<string, { expected: number; actual: number }>;

interface Scanned {
  /** Every record's uuid as text, in file order. */
  uuids: string[];
  /** The first record of each string uuid. */
  first: Map<string, SnapshotEntity>;
  unique: Set<string>;
  /** Uuids met again after their first record. */
  repeats: string[];
}

/** One pass over a side, a slice per turn: its uuids, first records, repeats and counts by type. */
async function scan(entities: readonly SnapshotEntity[], table: TypeCounts, side: 'expected' | 'actual'): Promise<Scanned> {
  const out: Scanned = { uuids: [], first: new Map(), unique: new Set(), repeats: [] };
  await eachSliced(entities, (e) => {
    const uuid = String(e.uuid ?? '');
    out.uuids.push(uuid);
    if (out.unique.has(uuid)) out.repeats.push(uuid);
    else out.unique.add(uuid);
    if (typeof e.uuid === 'string' && !out.first.has(e.uuid)) out.first.set(e.uuid, e);
    const type = String(e.type ?? '?');
    const row = table.get(type) ?? { expected: 0, actual: 0 };
    row[side]++;
    table.set(type, row);
  });
  return out;
}

function countsByType(table: TypeCounts) {
  const byType = [...table]
    .map(([type, r]) => ({ type, expected: r.expected, actual: r.actual, delta: r.actual - r.expected }))
    .sort((a, b) => b.expected + b.actual - (a.expected + a.actual) || a.type.localeCompare(b.type));
  return { match: byType.every((r) => r.delta === 0), byType };
}

function uuidOrder(expected: string[], actual: string[]) {
  let prefix = 0;
  while (prefix < expected.length && prefix < actual.length && expected[prefix] === actual[prefix]) prefix++;
  const match = prefix === expected.length && prefix === actual.length;
  return {
    match,
    commonPrefix: prefix,
    expectedCount: expected.length,
    actualCount: actual.length,
    divergence: match ? null : { index: prefix, expected: expected[prefix] ?? null, actual: actual[prefix] ?? null },
  };
}

/** Whether the recorded uuids appear in the same relative order among the actual ones. */
function isSubsequence(expected: string[], actual: string[]): boolean {
  let i = 0;
  for (const uuid of actual) if (i < expected.length && uuid === expected[i]) i++;
  return i === expected.length;
}

async function perEntity(expectedBy: Map<string, SnapshotEntity>, actualBy: Map<string, SnapshotEntity>, o: CompareOptions) {
  const types: Array<{ uuid: string; expected: unknown; actual: unknown }> = [];
  const positions: Array<Record<string, unknown>> = [];
  const velocities: Array<Record<string, unknown>> = [];
  const nbt: Array<Record<string, unknown>> = [];
  let [matched, index] = [0, 0];
  for (const [uuid, want] of expectedBy) {
    await turnAt(index++);
    const got = actualBy.get(uuid);
    if (!got) continue;
    matched++;
    if (want.type !== got.type) types.push({ uuid, expected: want.type ?? null, actual: got.type ?? null });
    const [wp, gp] = [isVec3(want.pos) ? want.pos : null, isVec3(got.pos) ? got.pos : null];
    if (wp && gp) {
      const d = distance(wp, gp);
      if (d > o.posTolerance) positions.push({ uuid, expected: wp, actual: gp, distance: round(d) });
    } else if (wp || gp) positions.push({ uuid, expected: wp, actual: gp, distance: null, reason: `position missing on the ${wp ? 'actual' : 'expected'} side` });
    const [wv, gv] = [velocityOf(want), velocityOf(got)];
    if (wv && !gv) velocities.push({ uuid, expected: wv, actual: null, distance: null, reason: 'velocity missing on the actual side' });
    else if (wv && gv && distance(wv, gv) > o.velTolerance) velocities.push({ uuid, expected: wv, actual: gv, distance: round(distance(wv, gv)) });
    const [wn, gn] = [String(want.nbt ?? ''), String(got.nbt ?? '')];
    if (stripTopLevelKeys(wn, o.ignoreNbtKeys) !== stripTopLevelKeys(gn, o.ignoreNbtKeys)) {
      const row: Record<string, unknown> = { uuid, type: want.type ?? null, expected: clip(wn), actual: clip(gn) };
      const [wi, gi] = [itemsFragment(wn), itemsFragment(gn)];
      if (wi !== gi) Object.assign(row, { expectedInventory: clip(wi ?? '(none)'), actualInventory: clip(gi ?? '(none)') });
      nbt.push(row);
    }
  }
  return { types, positions, velocities, nbt, matched };
}

/** The report; `ok` is strict (nothing differs) or lenient (order, counts and extras aside). */
export async function compareSnapshots(expected: Side, actual: Side, o: CompareOptions) {
  const table: TypeCounts = new Map();
  const exp = await scan(expected.entities, table, 'expected');
  const act = await scan(actual.entities, table, 'actual');
  const bad: Parameters<typeof malformed>[2] = [];
  await eachSliced(actual.entities, (e, index) => malformed(e, index, bad));
  const missing: string[] = [];
  await eachSliced(exp.unique, (u) => {
    if (!act.first.has(u)) missing.push(u);
  });
  const unexpected: string[] = [];
  await eachSliced(act.uuids, (u) => {
    if (!exp.unique.has(u)) unexpected.push(u);
  });
  const [expUuids, actUuids, dupes, actualBy] = [exp.uuids, act.uuids, act.repeats, act.first];
  const wantDim = typeof expected.meta.dimension === 'string' ? expected.meta.dimension : null;
  const gotDim = typeof actual.meta.dimension === 'string' ? actual.meta.dimension : null;
  const dimension = { expected: wantDim, actual: gotDim, match: wantDim === null ? null : wantDim === gotDim };
  const hashes = { expected: expected.orderHash ?? orderHash(expUuids), actual: actual.orderHash ?? orderHash(actUuids) };
  const order = uuidOrder(expUuids, actUuids);
  const counts = countsByType(table);
  const each = await perEntity(exp.first, actualBy, o);
  const failures = {
    order: !order.match,
    counts: !counts.match,
    missing: missing.length > 0,
    unexpected: unexpected.length > 0,
    types: each.types.length > 0,
    positions: each.positions.length > 0,
    velocities: each.velocities.length > 0,
    nbt: each.nbt.length > 0,
    subsequence: !isSubsequence(expUuids, actUuids),
    dimension: dimension.match === false,
    actualMalformed: bad.length > 0 || dupes.length > 0,
  };
  const lenientOk = !failures.missing && !failures.types && !failures.positions && !failures.velocities && !failures.nbt && !failures.dimension && !failures.actualMalformed && !failures.subsequence;
  const ok = o.strict ? Object.values(failures).every((f) => !f) : lenientOk;
  const players = (m: SnapshotMeta) => (typeof m.playersSkipped === 'number' ? m.playersSkipped : null);
  return {
    ok,
    strict: o.strict,
    dimension,
    actualMalformed: sampled(bad),
    actualDuplicateUuids: sampled([...new Set(dupes)]),
    orderHash: { ...hashes, match: hashes.expected === hashes.actual },
    uuidOrder: order,
    counts,
    missing: sampled(missing),
    unexpected: sampled(unexpected),
    typeMismatches: sampled(each.types),
    positionDeltas: { ...sampled(each.positions), tolerance: o.posTolerance },
    velocityDeltas: { ...sampled(each.velocities), tolerance: o.velTolerance },
    nbtMismatches: sampled(each.nbt),
    matched: each.matched,
    failures,
    playersExcluded: { expected: players(expected.meta), actual: players(actual.meta) },
  };
}

export type CompareReport = Awaited<ReturnType<typeof compareSnapshots>>;

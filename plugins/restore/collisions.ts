/**
 * Duplicates a restore would create: a destination entity with a recorded
 * uuid, or of a recorded type within `collision_radius` of its recorded position. Clearing is
 * narrow: one kill per colliding entity's spot and type, then the drops there; never a box.
 */
import type { SnapshotEntity } from '../snapshot/kit.js';
import { coordinateText, pythonFloat } from './float-text.js';
import { isVec3, type Vec3 } from './plan.js';

export interface CollisionTarget {
  uuid: string;
  type: string | null;
  pos: Vec3 | null;
  reason: 'uuid' | 'position';
  expectedType?: string;
  distance?: number;
}

export interface Collisions {
  count: number;
  uuidCollisions: { count: number; sample: string[] };
  spatialCollisions: { count: number; sample: Array<{ uuid: string; type: string | null; expectedType: string; distance: number }> };
  /** Every colliding entity, not only the samples: what a clear must remove. */
  targets: CollisionTarget[];
}

const SAMPLE = 10;
const distance = (a: Vec3, b: Vec3) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
const round3 = (n: number) => Math.round(n * 1000) / 1000;

export function findCollisions(recorded: readonly SnapshotEntity[], destination: readonly SnapshotEntity[], radius: number): Collisions {
  const recordedUuids = new Set(recorded.map((r) => r.uuid).filter((u): u is string => typeof u === 'string'));
  const spots = recorded.filter((r) => isVec3(r.pos) && typeof r.type === 'string').map((r) => ({ type: r.type as string, pos: r.pos as Vec3 }));
  const targets: CollisionTarget[] = [];
  for (const entity of destination) {
    const uuid = String(entity.uuid ?? '');
    const type = typeof entity.type === 'string' ? entity.type : null;
    const pos = isVec3(entity.pos) ? entity.pos : null;
    if (recordedUuids.has(uuid)) {
      targets.push({ uuid, type, pos, reason: 'uuid' });
      continue;
    }
    if (!pos || !type) continue;
    const spot = spots.find((s) => s.type === type && distance(s.pos, pos) <= radius);
    if (spot) targets.push({ uuid, type, pos, reason: 'position', expectedType: spot.type, distance: round3(distance(spot.pos, pos)) });
  }
  const byUuid = targets.filter((t) => t.reason === 'uuid');
  const bySpot = targets.filter((t) => t.reason === 'position');
  return {
    count: targets.length,
    uuidCollisions: { count: byUuid.length, sample: byUuid.slice(0, SAMPLE).map((t) => t.uuid) },
    spatialCollisions: {
      count: bySpot.length,
      sample: bySpot.slice(0, SAMPLE).map((t) => ({ uuid: t.uuid, type: t.type, expectedType: t.expectedType!, distance: t.distance! })),
    },
    targets,
  };
}

/** A selector distance: `..1` for whole numbers, as the predecessor wrote them. */
const radiusText = (r: number) => (Number.isInteger(r) ? String(r) : pythonFloat(r));

/**
 * `kill @e[type=<type>,x=..,y=..,z=..,distance=..<r>]` per distinct (type, spot), then
 * `kill @e[type=minecraft:item,...,distance=..<2r>]` per distinct spot for what they dropped.
 */
export function clearCommands(targets: readonly CollisionTarget[], collisionRadius: number): string[] {
  const kill = Math.max(collisionRadius, 0.5) + 0.25;
  const drop = Math.max(2, 2 * kill);
  const at = (p: Vec3) => `x=${coordinateText(round3(p[0]))},y=${coordinateText(round3(p[1]))},z=${coordinateText(round3(p[2]))}`;
  const kills = new Set<string>();
  const spots = new Map<string, Vec3>();
  for (const t of targets) {
    if (!t.pos) continue;
    const where = at(t.pos);
    kills.add(`kill @e[type=${t.type ?? '!player'},${where},distance=..${radiusText(kill)}]`);
    spots.set(where, t.pos);
  }
  const drops = [...spots.keys()].sort().map((where) => `kill @e[type=minecraft:item,${where},distance=..${radiusText(drop)}]`);
  return [...kills, ...drops];
}

/** Destination entities within max(radius, 0.5) of any recorded position: what a clear left behind. */
export function nearRecorded(destination: readonly SnapshotEntity[], recorded: readonly SnapshotEntity[], radius: number): SnapshotEntity[] {
  const reach = Math.max(radius, 0.5);
  const spots = recorded.map((r) => r.pos).filter(isVec3);
  return destination.filter((e) => isVec3(e.pos) && spots.some((s) => distance(s, e.pos as Vec3) <= reach));
}

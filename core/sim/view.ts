/**
 * What a player looks at, computed on the "server" like the mod does: a block ray through the
 * sparse block map, then the nearest entity hitbox closer than that block, each filtered by the
 * player's interaction ranges. A player's `view` override pins the target for scripted tests.
 * Reported numbers are rounded (direction 4 places, positions and distances 3) as in the spec's
 * examples.
 */
import { entityRecord, eyePosition } from './entity-json.js';
import { titleCase, typeInfo } from './entity-types.js';
import { dbl } from './json.js';
import type { BlockFace, SimEntity, World } from './world.js';

type Vec3 = [number, number, number];

export type ViewHit =
  | { kind: 'block'; pos: Vec3; block: string; face: BlockFace; inside: boolean; hit: Vec3; distance: number }
  | { kind: 'entity'; entity: SimEntity; hit: Vec3; distance: number }
  | { kind: 'miss'; hit: Vec3; distance: number };

export interface PlayerView {
  eye: Vec3;
  direction: Vec3;
  blockRange: number;
  entityRange: number;
  target: ViewHit;
}

/** Vanilla's view vector from yaw and pitch (degrees). */
export function lookDirection(yaw: number, pitch: number): Vec3 {
  const p = (pitch * Math.PI) / 180;
  const y = (-yaw * Math.PI) / 180;
  return [Math.sin(y) * Math.cos(p), -Math.sin(p), Math.cos(y) * Math.cos(p)];
}

function along(eye: Vec3, dir: Vec3, t: number): Vec3 {
  return [eye[0] + dir[0] * t, eye[1] + dir[1] * t, eye[2] + dir[2] * t];
}

function distance(a: Vec3, b: Vec3): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** Voxel walk (Amanatides–Woo) from the eye to the first non-air block within `maxDistance`. */
function castBlocks(world: World, dimension: string, eye: Vec3, dir: Vec3, maxDistance: number): ViewHit | null {
  const cell: Vec3 = [Math.floor(eye[0]), Math.floor(eye[1]), Math.floor(eye[2])];
  const solid = () => world.blockAt(dimension, cell[0], cell[1], cell[2]) !== 'minecraft:air';
  if (solid()) {
    const block = world.blockAt(dimension, cell[0], cell[1], cell[2]);
    return { kind: 'block', pos: [...cell], block, face: 'up', inside: true, hit: eye, distance: 0 };
  }
  const step = dir.map((d) => (d > 0 ? 1 : d < 0 ? -1 : 0));
  const tDelta = dir.map((d) => (d === 0 ? Infinity : 1 / Math.abs(d)));
  const tMax = dir.map((d, axis) => {
    if (d === 0) return Infinity;
    const boundary = d > 0 ? cell[axis] + 1 - eye[axis] : eye[axis] - cell[axis];
    return boundary / Math.abs(d);
  });
  const entering: [BlockFace, BlockFace][] = [
    ['west', 'east'],
    ['down', 'up'],
    ['north', 'south'],
  ];
  for (;;) {
    const axis = tMax[0] <= tMax[1] && tMax[0] <= tMax[2] ? 0 : tMax[1] <= tMax[2] ? 1 : 2;
    const t = tMax[axis];
    if (t > maxDistance) return null;
    cell[axis] += step[axis];
    tMax[axis] += tDelta[axis];
    if (solid()) {
      const face = step[axis] > 0 ? entering[axis][0] : entering[axis][1];
      const block = world.blockAt(dimension, cell[0], cell[1], cell[2]);
      return { kind: 'block', pos: [...cell], block, face, inside: false, hit: along(eye, dir, t), distance: t };
    }
  }
}

/** Ray-versus-box (slab test); the entry distance, or null when the ray misses. */
function rayBox(eye: Vec3, dir: Vec3, min: Vec3, max: Vec3): number | null {
  let near = -Infinity;
  let far = Infinity;
  for (let axis = 0; axis < 3; axis++) {
    if (dir[axis] === 0) {
      if (eye[axis] < min[axis] || eye[axis] > max[axis]) return null;
      continue;
    }
    const a = (min[axis] - eye[axis]) / dir[axis];
    const b = (max[axis] - eye[axis]) / dir[axis];
    near = Math.max(near, Math.min(a, b));
    far = Math.min(far, Math.max(a, b));
  }
  if (far < 0 || near > far) return null;
  return Math.max(near, 0);
}

function castEntities(world: World, viewer: SimEntity, eye: Vec3, dir: Vec3, limit: number): ViewHit | null {
  let best: ViewHit | null = null;
  for (const entity of world.entitiesIn(viewer.dimension)) {
    if (entity === viewer || entity.player?.gameMode === 'spectator') continue;
    const { width, height } = typeInfo(entity.type);
    const min: Vec3 = [entity.x - width / 2, entity.y, entity.z - width / 2];
    const max: Vec3 = [entity.x + width / 2, entity.y + height, entity.z + width / 2];
    const t = rayBox(eye, dir, min, max);
    if (t === null || t >= limit || (best && t >= best.distance)) continue;
    best = { kind: 'entity', entity, hit: along(eye, dir, t), distance: t };
  }
  return best;
}

function ranges(player: SimEntity): { blockRange: number; entityRange: number } {
  // Interaction-range attributes; creative mode adds +0.5 blocks and +2.0 entity range.
  return player.player?.gameMode === 'creative' ? { blockRange: 5, entityRange: 5 } : { blockRange: 4.5, entityRange: 3 };
}

function faceCentre(pos: Vec3, face: BlockFace): Vec3 {
  const [x, y, z] = pos;
  switch (face) {
    case 'up':
      return [x + 0.5, y + 1, z + 0.5];
    case 'down':
      return [x + 0.5, y, z + 0.5];
    case 'north':
      return [x + 0.5, y + 0.5, z];
    case 'south':
      return [x + 0.5, y + 0.5, z + 1];
    case 'west':
      return [x, y + 0.5, z + 0.5];
    case 'east':
      return [x + 1, y + 0.5, z + 0.5];
  }
}

function pinnedTarget(world: World, player: SimEntity, eye: Vec3, dir: Vec3, reach: number): ViewHit | null {
  const pinned = player.player?.view;
  if (!pinned) return null;
  if (pinned.type === 'block') {
    const placed = world.blockAt(player.dimension, ...pinned.pos);
    const block = pinned.block ?? (placed === 'minecraft:air' ? 'minecraft:stone' : placed);
    const face = pinned.face ?? 'up';
    const hit = faceCentre(pinned.pos, face);
    return { kind: 'block', pos: pinned.pos, block, face, inside: false, hit, distance: distance(eye, hit) };
  }
  if (pinned.type === 'entity') {
    const entity = world.findByUuid(pinned.uuid);
    if (entity) {
      const hit: Vec3 = [entity.x, entity.y + typeInfo(entity.type).height / 2, entity.z];
      return { kind: 'entity', entity, hit, distance: distance(eye, hit) };
    }
  }
  return { kind: 'miss', hit: along(eye, dir, reach), distance: reach };
}

export function pickView(world: World, player: SimEntity): PlayerView {
  const eye = eyePosition(player);
  const direction = lookDirection(player.yaw, player.pitch);
  const { blockRange, entityRange } = ranges(player);
  const reach = Math.max(blockRange, entityRange);
  const view = (target: ViewHit): PlayerView => ({ eye, direction, blockRange, entityRange, target });
  const pinned = pinnedTarget(world, player, eye, direction, reach);
  if (pinned) return view(pinned);
  const block = castBlocks(world, player.dimension, eye, direction, reach);
  const entity = castEntities(world, player, eye, direction, block ? block.distance : reach);
  if (entity) {
    return view(entity.distance > entityRange ? { kind: 'miss', hit: entity.hit, distance: entity.distance } : entity);
  }
  if (block) {
    return view(block.distance > blockRange ? { kind: 'miss', hit: block.hit, distance: block.distance } : block);
  }
  return view({ kind: 'miss', hit: along(eye, direction, reach), distance: reach });
}

function round(value: number, places: number): number {
  const scale = 10 ** places;
  return Math.round(value * scale) / scale;
}

const rounded = (values: readonly number[], places: number) => values.map((v) => dbl(round(v, places)));

/** The `view` block of a PLAYER reply (docs/protocol.md#server-vantage-verbs). */
export function playerViewJson(view: PlayerView): Record<string, unknown> {
  const t = view.target;
  const base = { hit: rounded(t.hit, 3), distance: dbl(round(t.distance, 3)) };
  let target: Record<string, unknown>;
  if (t.kind === 'block') {
    const [x, y, z] = t.pos;
    target = { ...base, type: 'block', block: { x, y, z, id: t.block, name: titleCase(t.block), face: t.face, inside: t.inside } };
  } else if (t.kind === 'entity') {
    target = { ...base, type: 'entity', entity: entityRecord(t.entity) };
  } else {
    target = { ...base, type: 'miss' };
  }
  return {
    eye: rounded(view.eye, 3),
    direction: rounded(view.direction, 4),
    blockRange: dbl(view.blockRange),
    entityRange: dbl(view.entityRange),
    target,
  };
}

/** The chat bundle's `view` (ViewTarget, docs/protocol.md#chat-context): a different shape from the PLAYER target. */
export function bundleViewJson(world: World, view: PlayerView): Record<string, unknown> {
  const t = view.target;
  const distanceValue = dbl(round(t.distance, 3));
  if (t.kind === 'block') {
    return { type: 'block', distance: distanceValue, block: t.block, pos: [...t.pos], face: t.face, hit: rounded(t.hit, 3) };
  }
  if (t.kind === 'entity') {
    const entity = { uuid: t.entity.uuid, type: t.entity.type, name: world.displayName(t.entity) };
    return { type: 'entity', distance: distanceValue, entity, hit: rounded(t.hit, 3) };
  }
  return { type: 'miss', distance: dbl(0) };
}

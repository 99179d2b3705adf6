/**
 * What happens to entities on running ticks and when they are killed: the `deaths` mode (dying
 * bodies that keep their UUID for 20 running ticks, loot drops) and the optional `motion` model
 * (velocity, gravity, drag, a flat floor). Frozen ticks skip all of it, as `tick freeze` stops
 * entities in vanilla; `tick step` lets the stepped ticks through.
 */
import { typeInfo } from './entity-types.js';
import { OVERWORLD, RESTING_VY, type SimEntity, type World } from './world.js';

/** Vanilla removes a dead living entity on the 20th tick of its death animation. */
export const DEATH_TICKS = 20;

interface Drop {
  item: string;
  min: number;
  max: number;
}

/** Death loot of the living types the sim knows (vanilla tables, no looting). */
const LOOT: Record<string, Drop[]> = {
  'minecraft:pig': [{ item: 'minecraft:porkchop', min: 1, max: 3 }],
  'minecraft:cow': [
    { item: 'minecraft:leather', min: 0, max: 2 },
    { item: 'minecraft:beef', min: 1, max: 3 },
  ],
  'minecraft:chicken': [
    { item: 'minecraft:feather', min: 0, max: 2 },
    { item: 'minecraft:chicken', min: 1, max: 1 },
  ],
  'minecraft:sheep': [
    { item: 'minecraft:white_wool', min: 1, max: 1 },
    { item: 'minecraft:mutton', min: 1, max: 2 },
  ],
  'minecraft:zombie': [{ item: 'minecraft:rotten_flesh', min: 0, max: 2 }],
  'minecraft:skeleton': [
    { item: 'minecraft:bone', min: 0, max: 2 },
    { item: 'minecraft:arrow', min: 0, max: 2 },
  ],
  'minecraft:creeper': [{ item: 'minecraft:gunpowder', min: 0, max: 2 }],
  'minecraft:spider': [{ item: 'minecraft:string', min: 0, max: 2 }],
  'minecraft:cat': [{ item: 'minecraft:string', min: 0, max: 2 }],
  'minecraft:horse': [{ item: 'minecraft:leather', min: 0, max: 2 }],
};

/** Types whose `kill()` removes them at once even though they are living (no death animation). */
const REMOVED_AT_ONCE = new Set(['minecraft:armor_stand']);

function spawnDrops(world: World, entity: SimEntity): SimEntity[] {
  const drops: SimEntity[] = [];
  for (const drop of LOOT[entity.type] ?? []) {
    const count = drop.min + Math.floor(world.random.nextFloat() * (drop.max - drop.min + 1));
    if (count <= 0) continue;
    // ItemEntity's spawn motion: ±0.1 horizontally, 0.2 up.
    const vx = world.random.nextFloat() * 0.2 - 0.1;
    const vz = world.random.nextFloat() * 0.2 - 0.1;
    const item = world.addEntity({
      type: 'minecraft:item',
      x: entity.x,
      y: entity.y,
      z: entity.z,
      dimension: entity.dimension,
      vx,
      vy: 0.2,
      vz,
      onGround: false,
      item: { id: drop.item, count },
    });
    drops.push(item);
  }
  return drops;
}

/**
 * `kill`: a player respawns at world spawn at once (the sim has no death screen); in the
 * `vanilla` deaths mode a living entity drops its loot and starts dying (its body keeps its UUID
 * until 20 running ticks have passed); anything else is removed at once.
 */
export function killEntity(world: World, entity: SimEntity): void {
  if (entity.player) {
    world.dismount(entity);
    world.changeDimension(entity, OVERWORLD);
    Object.assign(entity, { x: world.spawn.x + 0.5, y: world.spawn.y, z: world.spawn.z + 0.5 });
    Object.assign(entity, { vx: 0, vy: RESTING_VY, vz: 0, health: entity.maxHealth });
    return;
  }
  if (entity.deathTime !== null) return; // already dying: a second kill changes nothing
  if (world.deaths === 'vanilla' && typeInfo(entity.type).living && !REMOVED_AT_ONCE.has(entity.type)) {
    entity.health = 0;
    entity.deathTime = 0;
    spawnDrops(world, entity);
    return;
  }
  world.removeEntity(entity);
}

const FLOOR_TOP_EPSILON = 1e-9;

/** One running tick of the motion model: move by velocity, land on the floor, gravity and drag. */
function move(world: World, entity: SimEntity): void {
  const living = typeInfo(entity.type).living;
  const floorTop = world.floorY + 1;
  if (!(entity.onGround && living)) entity.y += entity.vy;
  entity.x += entity.vx;
  entity.z += entity.vz;
  if (entity.y <= floorTop + FLOOR_TOP_EPSILON) {
    entity.y = Math.max(entity.y, floorTop);
    entity.onGround = true;
  } else {
    entity.onGround = false;
  }
  if (entity.onGround) entity.vy = living ? RESTING_VY : 0;
  else entity.vy = (entity.vy - (living ? 0.08 : 0.04)) * 0.98;
  const drag = entity.onGround ? (living ? 0.546 : 0.588) : living ? 0.91 : 0.98;
  entity.vx = Math.abs(entity.vx * drag) < 0.003 ? 0 : entity.vx * drag;
  entity.vz = Math.abs(entity.vz * drag) < 0.003 ? 0 : entity.vz * drag;
  for (const passenger of entity.passengers) Object.assign(passenger, { x: entity.x, y: entity.y, z: entity.z });
}

/** Entity work of one server tick; nothing happens on a frozen tick. */
export function tickEntities(world: World, runs: boolean): void {
  if (!runs) return;
  for (const entity of [...world.entities]) {
    if (entity.removed) continue;
    if (entity.deathTime !== null && ++entity.deathTime >= DEATH_TICKS) {
      world.removeEntity(entity);
      continue;
    }
    if (world.motion && !entity.player && !entity.vehicle) move(world, entity);
  }
}

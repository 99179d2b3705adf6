/**
 * Creating entities from `summon <type> <pos> {nbt}`: the NBT keys the sim models (UUID, Motion,
 * Rotation, Health, flags, name, tags, item, Passengers) become entity fields; other keys are
 * kept verbatim so a snapshot → summon → snapshot round trip preserves them.
 */
import { CommandFailure } from './command-reader.js';
import { isKnownType, normaliseId, typeInfo } from './entity-types.js';
import { nbt, numberOf, type CompoundTag, type Tag } from './snbt.js';
import { intsToUuid } from './uuid.js';
import type { EntitySpec, SimEntity, World } from './world.js';

/** Keys vanilla regenerates on load, or that summon's own arguments override. */
const REGENERATED = new Set([
  'id',
  'Pos',
  'fall_distance',
  'FallDistance',
  'Fire',
  'Air',
  'PortalCooldown',
  'HurtTime',
  'HurtByTimestamp',
  'DeathTime',
  'AbsorptionAmount',
  'FallFlying',
  'Age',
  'PickupDelay',
]);
const MODELLED = new Set(['UUID', 'Motion', 'Rotation', 'Health', 'OnGround', 'Invulnerable', 'CustomName', 'Tags', 'Item', 'Passengers']);

function uuidOf(tag: CompoundTag): string | undefined {
  const value = tag.entries.get('UUID');
  return value?.kind === 'intArray' && value.values.length === 4 ? intsToUuid(value.values) : undefined;
}

function numbers(tag: Tag | undefined, count: number): number[] | undefined {
  if (tag?.kind !== 'list' || tag.items.length !== count) return undefined;
  const values = tag.items.map(numberOf);
  return values.every((v) => v !== null) ? (values as number[]) : undefined;
}

function passengerTags(tag: CompoundTag): CompoundTag[] {
  const list = tag.entries.get('Passengers');
  if (list?.kind !== 'list') return [];
  return list.items.filter((t): t is CompoundTag => t.kind === 'compound' && t.entries.get('id')?.kind === 'string');
}

/** Every UUID the summon would create, passengers included, to refuse duplicates up front. */
function collectUuids(tag: CompoundTag | null, into: string[]): string[] {
  if (!tag) return into;
  const uuid = uuidOf(tag);
  if (uuid) into.push(uuid);
  for (const passenger of passengerTags(tag)) collectUuids(passenger, into);
  return into;
}

function specFromNbt(type: string, pos: [number, number, number], dimension: string, tag: CompoundTag | null): EntitySpec {
  const spec: EntitySpec = { type, x: pos[0], y: pos[1], z: pos[2], dimension };
  if (!tag) return spec;
  const get = (key: string) => tag.entries.get(key);
  spec.uuid = uuidOf(tag);
  const motion = numbers(get('Motion'), 3);
  if (motion) [spec.vx, spec.vy, spec.vz] = motion;
  const rotation = numbers(get('Rotation'), 2);
  if (rotation) [spec.yaw, spec.pitch] = rotation;
  const health = numberOf(get('Health'));
  if (health !== null && typeInfo(type).living) spec.health = health;
  const onGround = numberOf(get('OnGround'));
  if (onGround !== null) spec.onGround = onGround !== 0;
  const invulnerable = numberOf(get('Invulnerable'));
  if (invulnerable !== null) spec.invulnerable = invulnerable !== 0;
  const name = get('CustomName');
  if (name?.kind === 'string') spec.customName = name.value;
  const tags = get('Tags');
  if (tags?.kind === 'list') spec.tags = tags.items.flatMap((t) => (t.kind === 'string' ? [t.value] : []));
  const item = get('Item');
  if (item?.kind === 'compound') {
    const id = item.entries.get('id');
    const count = numberOf(item.entries.get('count') ?? item.entries.get('Count'));
    if (id?.kind === 'string') spec.item = { id: normaliseId(id.value), count: count ?? 1 };
  }
  return spec;
}

function spawn(world: World, type: string, pos: [number, number, number], dimension: string, tag: CompoundTag | null, vehicle?: SimEntity): SimEntity {
  const spec = specFromNbt(type, pos, dimension, tag);
  if (vehicle) spec.vehicle = vehicle.uuid;
  const entity = world.addEntity(spec);
  for (const [key, value] of tag?.entries ?? []) {
    if (!REGENERATED.has(key) && !MODELLED.has(key)) entity.extraNbt.set(key, value);
  }
  if (tag) {
    for (const passenger of passengerTags(tag)) {
      const id = normaliseId((passenger.entries.get('id') as { value: string }).value);
      if (isKnownType(id) && typeInfo(id).summonable) spawn(world, id, pos, dimension, passenger, entity);
    }
  }
  return entity;
}

/** Summons like vanilla: refuses a UUID already in use (including among its own passengers). */
export function summonEntity(world: World, type: string, pos: [number, number, number], dimension: string, tag: CompoundTag | null): SimEntity {
  const uuids = collectUuids(tag, []);
  const clash = uuids.some((u, i) => world.findByUuid(u) || uuids.indexOf(u) !== i);
  if (clash) throw new CommandFailure('Unable to summon entity due to duplicate UUIDs');
  return spawn(world, type, pos, dimension, tag ?? nbt.compound());
}

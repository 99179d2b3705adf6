/**
 * The entity record of docs/protocol.md#entity-records (shared by ENTITIES, PLAYER and view targets) and the entity NBT
 * written into snapshots and shown by `data get entity`.
 */
import { typeInfo } from './entity-types.js';
import { dbl, flt } from './json.js';
import { nbt, type CompoundTag, type Tag } from './snbt.js';
import { uuidToInts } from './uuid.js';
import type { SimEntity } from './world.js';

export const PLAYER_EYE_HEIGHT = 1.62;

export interface RecordOptions {
  /** Client vantage: players are `LocalPlayer` (the local one) or `RemotePlayer`. */
  localPlayer?: SimEntity | null;
}

function className(entity: SimEntity, options: RecordOptions): string {
  if (entity.player && options.localPlayer !== undefined) {
    return entity === options.localPlayer ? 'LocalPlayer' : 'RemotePlayer';
  }
  return typeInfo(entity.type).className;
}

/** The entity record, field order as the mod writes it. Players carry `gameMode` creative|survival only. */
export function entityRecord(entity: SimEntity, options: RecordOptions = {}): Record<string, unknown> {
  const record: Record<string, unknown> = {
    id: entity.id,
    uuid: entity.uuid,
    type: entity.type,
    class: className(entity, options),
    x: dbl(entity.x),
    y: dbl(entity.y),
    z: dbl(entity.z),
    vx: dbl(entity.vx),
    vy: dbl(entity.vy),
    vz: dbl(entity.vz),
    yaw: flt(entity.yaw),
    pitch: flt(entity.pitch),
    alive: !entity.removed && entity.deathTime === null,
    removed: entity.removed,
    invulnerable: entity.invulnerable,
    onGround: entity.onGround,
    vehicle: entity.vehicle ? entity.vehicle.id : -1,
    isVehicle: entity.passengers.length > 0,
    passengers: entity.passengers.map((p) => p.id),
  };
  if (typeInfo(entity.type).living) {
    record.health = flt(entity.health);
    record.maxHealth = flt(entity.maxHealth);
    record.bodyEmpty = true;
  }
  if (entity.player) {
    record.name = entity.player.name;
    record.gameMode = entity.player.gameMode === 'creative' ? 'creative' : 'survival';
  }
  if (entity.type === 'minecraft:sulfur_cube') {
    record.fuse = 30;
    record.primed = false;
    record.hasBody = true;
    record.readyForShearing = false;
  }
  return record;
}

export function eyePosition(entity: SimEntity): [number, number, number] {
  const height = entity.player ? PLAYER_EYE_HEIGHT : typeInfo(entity.type).height * 0.85;
  return [entity.x, entity.y + height, entity.z];
}

/** The entity saved without its `id` key, the way a snapshot line carries it. */
export function entityNbt(entity: SimEntity): CompoundTag {
  const tag = nbt.compound([
    ['Pos', nbt.list([nbt.double(entity.x), nbt.double(entity.y), nbt.double(entity.z)])],
    ['Motion', nbt.list([nbt.double(entity.vx), nbt.double(entity.vy), nbt.double(entity.vz)])],
    ['Rotation', nbt.list([nbt.float(entity.yaw), nbt.float(entity.pitch)])],
    ['fall_distance', nbt.double(0)],
    ['Fire', nbt.short(-1)],
    ['Air', nbt.short(300)],
    ['OnGround', nbt.bool(entity.onGround)],
    ['Invulnerable', nbt.bool(entity.invulnerable)],
    ['PortalCooldown', nbt.int(0)],
    ['UUID', nbt.intArray(uuidToInts(entity.uuid))],
  ]);
  const set = (key: string, value: Tag) => tag.entries.set(key, value);
  if (entity.customName !== null) set('CustomName', nbt.string(entity.customName));
  if (entity.tags.length > 0) set('Tags', nbt.list(entity.tags.map(nbt.string)));
  if (typeInfo(entity.type).living) {
    set('Health', nbt.float(entity.health));
    set('HurtTime', nbt.short(0));
    set('HurtByTimestamp', nbt.int(0));
    set('DeathTime', nbt.short(entity.deathTime ?? 0));
    set('AbsorptionAmount', nbt.float(0));
    set('FallFlying', nbt.bool(false));
  }
  if (entity.item) {
    set(
      'Item',
      nbt.compound([
        ['id', nbt.string(entity.item.id)],
        ['count', nbt.int(entity.item.count)],
      ]),
    );
    set('Health', nbt.short(5));
    set('Age', nbt.short(0));
    set('PickupDelay', nbt.short(0));
  }
  if (entity.player) {
    set('playerGameType', nbt.int(['survival', 'creative', 'adventure', 'spectator'].indexOf(entity.player.gameMode)));
    set('Dimension', nbt.string(entity.dimension));
  }
  for (const [key, value] of entity.extraNbt) set(key, value);
  if (entity.passengers.length > 0) set('Passengers', nbt.list(entity.passengers.map(entityNbtWithId)));
  return tag;
}

/** Passengers nest with their `id`, as vanilla saves them. */
export function entityNbtWithId(entity: SimEntity): CompoundTag {
  const inner = entityNbt(entity);
  return nbt.compound([['id', nbt.string(entity.type)], ...inner.entries]);
}

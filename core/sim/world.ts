/**
 * The deterministic world behind the sim: dimensions, entities in tick (insertion) order, online
 * players in join order, a sparse block map over a flat floor, the tick counter, world time and
 * the vanilla tick/save/weather switches. No physics: positions change only through commands
 * and helpers, so every reply is reproducible.
 */
import { normaliseId, typeInfo } from './entity-types.js';
import type { SeededRandom } from './random.js';
import type { Tag } from './snbt.js';
import { namedUuid, parseUuid } from './uuid.js';

export type GameMode = 'survival' | 'creative' | 'adventure' | 'spectator';
export const GAME_MODES: readonly GameMode[] = ['survival', 'creative', 'adventure', 'spectator'];

export const OVERWORLD = 'minecraft:overworld';
export const THE_NETHER = 'minecraft:the_nether';
export const THE_END = 'minecraft:the_end';

export type BlockFace = 'down' | 'up' | 'north' | 'south' | 'west' | 'east';

/** Pins what a player is looking at, instead of the ray cast from its yaw and pitch. */
export type ViewOverride = { type: 'block'; pos: [number, number, number]; block?: string; face?: BlockFace } | { type: 'entity'; uuid: string } | { type: 'miss' };

export interface SimPlayerInfo {
  name: string;
  gameMode: GameMode;
  view: ViewOverride | null;
}

export interface SimEntity {
  id: number;
  uuid: string;
  type: string;
  dimension: string;
  x: number;
  y: number;
  z: number;
  vx: number;
  vy: number;
  vz: number;
  yaw: number;
  pitch: number;
  onGround: boolean;
  invulnerable: boolean;
  /** 0 for non-living entities. */
  health: number;
  maxHealth: number;
  customName: string | null;
  tags: string[];
  /** Only for `minecraft:item`. */
  item: { id: string; count: number } | null;
  /** NBT keys from `summon` that the sim does not model, written back into snapshots. */
  extraNbt: Map<string, Tag>;
  vehicle: SimEntity | null;
  passengers: SimEntity[];
  removed: boolean;
  /** Ticks since a living entity died (its body stays, holding its UUID, for 20 running ticks); null while alive. */
  deathTime: number | null;
  player: SimPlayerInfo | null;
}

/** `instant`: killed entities vanish at once. `vanilla`: living ones drop loot and stay as dying bodies for 20 running ticks. */
export type DeathMode = 'instant' | 'vanilla';

export interface EntitySpec {
  type: string;
  uuid?: string;
  x: number;
  y: number;
  z: number;
  dimension?: string;
  vx?: number;
  vy?: number;
  vz?: number;
  yaw?: number;
  pitch?: number;
  health?: number;
  onGround?: boolean;
  invulnerable?: boolean;
  customName?: string;
  tags?: string[];
  item?: { id: string; count: number };
  /** UUID of an existing entity to ride. */
  vehicle?: string;
}

export interface PlayerSpec {
  name: string;
  uuid?: string;
  /** Default: the middle of the world spawn block. */
  x?: number;
  y?: number;
  z?: number;
  dimension?: string;
  gameMode?: GameMode;
  yaw?: number;
  pitch?: number;
  health?: number;
  view?: ViewOverride;
}

export interface BlockSpec {
  dimension?: string;
  x: number;
  y: number;
  z: number;
  block: string;
}

export interface WorldSpec {
  levelName: string;
  dimensions: string[];
  dayTime: number;
  gameTime: number;
  /** World spawn: where console commands run from and where killed players respawn. */
  spawn: { x: number; y: number; z: number };
  /** Every block at or below this y is the dimension's floor block (stone, netherrack, end stone). */
  floorY: number;
  entities: EntitySpec[];
  players: PlayerSpec[];
  blocks: BlockSpec[];
}

export const STEVE_UUID = '5c0ad0c4-3f6b-4a8e-9d21-7b4f6e2a1c93';

/** Motion of a living entity standing on the ground (gravity, once per tick, then drag). */
export const RESTING_VY = -0.0784000015258789;

/**
 * The world every sim starts with unless told otherwise. Entities load before Steve joins, so
 * Steve comes last in tick order. Steve looks north and 45° down at the stone floor block
 * (0, 63, -2). With `name` (the sim's, a daemon's target) every UUID is that name's own.
 */
export function defaultWorld(name?: string): WorldSpec {
  const id = (uuid: string) => (name === undefined ? uuid : namedUuid(name, uuid));
  return {
    levelName: 'world',
    dimensions: [OVERWORLD, THE_NETHER, THE_END],
    dayTime: 1000,
    gameTime: 1000,
    spawn: { x: 0, y: 64, z: 0 },
    floorY: 63,
    entities: [
      { type: 'minecraft:pig', uuid: id('1f6a3c2e-8b4d-4f7a-9e05-3c2b1a0f9e8d'), x: 3.5, y: 64, z: 2.5, yaw: 90 },
      { type: 'minecraft:cow', uuid: id('2a7b4d3f-9c5e-4a8b-8f16-4d3c2b1a0f9e'), x: -4.5, y: 64, z: 3.5, yaw: 0 },
      { type: 'minecraft:zombie', uuid: id('3b8c5e4a-0d6f-4b9c-a027-5e4d3c2b1a0f'), x: 6.5, y: 64, z: -5.5, yaw: -90 },
      { type: 'minecraft:chicken', uuid: id('4c9d6f5b-1e7a-4cad-b138-6f5e4d3c2b1a'), x: 1.5, y: 64, z: 6.5, yaw: 180 },
      {
        type: 'minecraft:item',
        uuid: id('5d0e7a6c-2f8b-4dbe-8249-7a6f5e4d3c2b'),
        x: 2.25,
        y: 64,
        z: -1.75,
        item: { id: 'minecraft:diamond', count: 1 },
      },
    ],
    players: [{ name: 'Steve', uuid: id(STEVE_UUID), x: 0.5, y: 64, z: 0.5, gameMode: 'survival', yaw: 180, pitch: 45 }],
    blocks: [],
  };
}

const FLOOR_BLOCKS: Record<string, string> = {
  [OVERWORLD]: 'minecraft:stone',
  [THE_NETHER]: 'minecraft:netherrack',
  [THE_END]: 'minecraft:end_stone',
};

export class World {
  readonly levelName: string;
  readonly dimensions: string[];
  readonly spawn: { x: number; y: number; z: number };
  readonly floorY: number;
  /** Tick order: spawn/join order across all dimensions. */
  readonly entities: SimEntity[] = [];
  /** Online players in join order (the "first player" of the protocol). */
  readonly players: SimEntity[] = [];
  private readonly blocks = new Map<string, string>();
  private nextEntityId = 1;

  /** Server ticks since this server start (STATE `tick`); keeps counting while frozen, as vanilla's does. */
  tick = 0;
  gameTime: number;
  dayTime: number;
  frozen = false;
  /** Ticks `tick step` still has to run while frozen. */
  stepTicks = 0;
  tickRate = 20;
  saveEnabled = true;
  saves = 0;
  weather: 'clear' | 'rain' | 'thunder' = 'clear';
  /** Forced chunks per dimension, as `"<cx> <cz>"` keys. */
  readonly forcedChunks = new Map<string, Set<string>>();
  deaths: DeathMode = 'instant';
  /** Entities move by their velocity on running ticks (see entity-life.ts); off by default. */
  motion = false;

  constructor(
    spec: WorldSpec,
    readonly random: SeededRandom,
  ) {
    this.levelName = spec.levelName;
    this.dimensions = [...spec.dimensions];
    this.spawn = { ...spec.spawn };
    this.floorY = spec.floorY;
    this.dayTime = spec.dayTime;
    this.gameTime = spec.gameTime;
    for (const block of spec.blocks) this.setBlock(block.dimension ?? OVERWORLD, block.x, block.y, block.z, block.block);
    for (const entity of spec.entities) this.addEntity(entity);
    for (const player of spec.players) this.addPlayer(player);
  }

  /**
   * One server tick. World time (and entities, see entity-life.ts) only move when the game runs
   * or steps — `tick freeze` stops them; the server tick counter keeps counting. Returns whether
   * the game ran this tick.
   */
  advanceTick(): boolean {
    this.tick++;
    const runs = !this.frozen || this.stepTicks > 0;
    if (this.frozen && this.stepTicks > 0) this.stepTicks--;
    if (runs) {
      this.gameTime++;
      this.dayTime++;
    }
    return runs;
  }

  hasDimension(dimension: string): boolean {
    return this.dimensions.includes(dimension);
  }

  private freshUuid(wanted: string | undefined): string {
    if (wanted !== undefined) {
      const uuid = parseUuid(wanted);
      if (!uuid) throw new Error(`not a UUID: ${wanted}`);
      if (this.findByUuid(uuid)) throw new Error(`duplicate UUID: ${uuid}`);
      return uuid;
    }
    let uuid = this.random.uuid();
    while (this.findByUuid(uuid)) uuid = this.random.uuid();
    return uuid;
  }

  private checkDimension(dimension: string): string {
    const id = normaliseId(dimension);
    if (!this.hasDimension(id)) throw new Error(`no such dimension: ${dimension}`);
    return id;
  }

  addEntity(spec: EntitySpec): SimEntity {
    const type = normaliseId(spec.type);
    const info = typeInfo(type);
    const onGround = spec.onGround ?? true;
    const entity: SimEntity = {
      id: this.nextEntityId++,
      uuid: this.freshUuid(spec.uuid),
      type,
      dimension: this.checkDimension(spec.dimension ?? OVERWORLD),
      x: spec.x,
      y: spec.y,
      z: spec.z,
      vx: spec.vx ?? 0,
      vy: spec.vy ?? (info.living && onGround ? RESTING_VY : 0),
      vz: spec.vz ?? 0,
      yaw: spec.yaw ?? 0,
      pitch: spec.pitch ?? 0,
      onGround,
      invulnerable: spec.invulnerable ?? false,
      health: info.living ? (spec.health ?? info.maxHealth) : 0,
      maxHealth: info.living ? info.maxHealth : 0,
      customName: spec.customName ?? null,
      tags: [...(spec.tags ?? [])],
      item: type === 'minecraft:item' ? (spec.item ?? { id: 'minecraft:stone', count: 1 }) : null,
      extraNbt: new Map(),
      vehicle: null,
      passengers: [],
      removed: false,
      deathTime: null,
      player: null,
    };
    this.entities.push(entity);
    if (spec.vehicle !== undefined) {
      const vehicle = this.findByUuid(parseUuid(spec.vehicle) ?? spec.vehicle);
      if (!vehicle) throw new Error(`no vehicle with UUID ${spec.vehicle}`);
      this.mount(entity, vehicle);
    }
    return entity;
  }

  addPlayer(spec: PlayerSpec): SimEntity {
    if (this.findPlayerByName(spec.name, true)) throw new Error(`player ${spec.name} is already online`);
    const entity = this.addEntity({
      type: 'minecraft:player',
      uuid: spec.uuid,
      x: spec.x ?? Math.floor(this.spawn.x) + 0.5,
      y: spec.y ?? this.spawn.y,
      z: spec.z ?? Math.floor(this.spawn.z) + 0.5,
      dimension: spec.dimension,
      yaw: spec.yaw,
      pitch: spec.pitch,
      health: spec.health,
    });
    entity.player = { name: spec.name, gameMode: spec.gameMode ?? 'survival', view: spec.view ?? null };
    this.players.push(entity);
    return entity;
  }

  mount(passenger: SimEntity, vehicle: SimEntity): void {
    this.dismount(passenger);
    passenger.vehicle = vehicle;
    vehicle.passengers.push(passenger);
    passenger.dimension = vehicle.dimension;
    passenger.x = vehicle.x;
    passenger.y = vehicle.y;
    passenger.z = vehicle.z;
  }

  dismount(passenger: SimEntity): void {
    const vehicle = passenger.vehicle;
    if (!vehicle) return;
    vehicle.passengers = vehicle.passengers.filter((p) => p !== passenger);
    passenger.vehicle = null;
  }

  /** Removes an entity (kill, discard, player leaving); its passengers stay, dismounted. */
  removeEntity(entity: SimEntity): void {
    if (entity.removed) return;
    this.dismount(entity);
    for (const passenger of [...entity.passengers]) this.dismount(passenger);
    entity.removed = true;
    this.entities.splice(this.entities.indexOf(entity), 1);
    const playerIndex = this.players.indexOf(entity);
    if (playerIndex >= 0) this.players.splice(playerIndex, 1);
  }

  findByUuid(uuid: string): SimEntity | undefined {
    const wanted = uuid.toLowerCase();
    return this.entities.find((e) => e.uuid === wanted);
  }

  /** Exact name first, then case-insensitive (how PLAYER resolves names). */
  findPlayerByName(name: string, exactOnly = false): SimEntity | undefined {
    const exact = this.players.find((p) => p.player!.name === name);
    if (exact || exactOnly) return exact;
    const lower = name.toLowerCase();
    return this.players.find((p) => p.player!.name.toLowerCase() === lower);
  }

  /** Live entities of a dimension in tick order (dying bodies skipped, as ENTITIES, SNAPSHOT and `@e` skip them). */
  entitiesIn(dimension: string): SimEntity[] {
    return this.entities.filter((e) => e.dimension === dimension && e.deathTime === null);
  }

  /**
   * Moves an entity to another dimension the way vanilla does: it re-enters as a new entity
   * (new runtime id) at the end of the tick list. Same dimension: nothing changes.
   */
  changeDimension(entity: SimEntity, dimension: string): void {
    if (entity.dimension === dimension) return;
    entity.dimension = dimension;
    this.entities.splice(this.entities.indexOf(entity), 1);
    this.entities.push(entity);
    entity.id = this.nextEntityId++;
  }

  /** Server start on a saved world: non-player entities are dropped before loading them from disk. */
  clearNonPlayers(): void {
    for (const entity of this.entities.filter((e) => !e.player)) this.removeEntity(entity);
  }

  /** Players join after the spawn chunks load: move them behind every other entity in tick order. */
  playersLast(): void {
    const players = this.entities.filter((e) => e.player);
    const others = this.entities.filter((e) => !e.player);
    this.entities.splice(0, this.entities.length, ...others, ...players);
  }

  /** The first online player's dimension, else the overworld (the "primary level"). */
  primaryDimension(): string {
    return this.players[0]?.dimension ?? OVERWORLD;
  }

  firstPlayerIn(dimension: string): SimEntity | undefined {
    return this.players.find((p) => p.dimension === dimension);
  }

  displayName(entity: SimEntity): string {
    if (entity.player) return entity.player.name;
    if (entity.customName !== null) return entity.customName;
    if (entity.item) return typeInfo(entity.item.id).name;
    return typeInfo(entity.type).name;
  }

  blockAt(dimension: string, x: number, y: number, z: number): string {
    const placed = this.blocks.get(`${dimension} ${x} ${y} ${z}`);
    if (placed !== undefined) return placed;
    return y <= this.floorY ? (FLOOR_BLOCKS[dimension] ?? 'minecraft:stone') : 'minecraft:air';
  }

  setBlock(dimension: string, x: number, y: number, z: number, block: string): void {
    this.blocks.set(`${dimension} ${x} ${y} ${z}`, normaliseId(block));
  }

  /**
   * A new server start on the same save: the tick counter and the tick/save switches reset, and
   * entities get new runtime ids (same tick order). Blocks, entities and world time persist.
   */
  serverRestarted(tickRate: number): void {
    this.tick = 0;
    this.frozen = false;
    this.stepTicks = 0;
    this.saveEnabled = true;
    this.tickRate = tickRate;
    for (const body of this.entities.filter((e) => e.deathTime !== null)) this.removeEntity(body);
    this.renumber();
  }

  /** New runtime ids in tick order (a new server start hands them out again). */
  renumber(): void {
    for (const entity of this.entities) entity.id = this.nextEntityId++;
  }
}

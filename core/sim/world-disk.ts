/**
 * The sim's world folder on disk, in the Java Edition layout of 26.x (or the legacy one before
 * 26.1): `level.dat`, `session.lock`, per-dimension `region/`, `entities/` and `poi/` Anvil files,
 * saved data and per-player files. Region and POI files are filler of a chosen total size
 * (real bytes, never sparse) behind plausible Anvil headers; the entity files carry the sim's
 * entities as real zlib NBT chunks, written by `save-all` and on shutdown, and read back when a
 * sim starts on an existing folder, in chunk order: the tick order is not in the save.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { buildRegion, chunkIndex, decodeChunk, encodeChunk, fillRegion, parseRegionFileName, readRegion, regionFileName, HEADER_BYTES, SECTOR, type StoredChunk } from './anvil.js';
import { entityNbt, entityNbtWithId } from './entity-json.js';
import { readNbt, writeNbt } from './nbt-binary.js';
import { SeededRandom } from './random.js';
import { nbt, type CompoundTag, type Tag } from './snbt.js';
import { OVERWORLD, THE_END, THE_NETHER, type SimEntity, type World } from './world.js';

/** `26.x`: `dimensions/<ns>/<dim>/…` and `players/…` (26.1 and later); `legacy`: `region/` at the root, `DIM-1`, `DIM1`, `playerdata/`. */
export type WorldLayout = '26.x' | 'legacy';

export interface WorldDiskOptions {
  /** Approximate total size of the generated region, POI and entity files. Default 256 KiB. */
  bytes?: number;
  /** Layout of a new folder; an existing one keeps the layout it has. Default `26.x`. */
  layout?: WorldLayout;
  /** Delete an existing world folder and generate a new one. Default false: reuse it, like a server. */
  fresh?: boolean;
}

export const DEFAULT_WORLD_BYTES = 256 * 1024;
/** The sim's data version stamped into every file (a plausible 26.x value, not a looked-up one). */
export const DATA_VERSION = 4790;
const MINECRAFT = '26.2';

const KIND_SHARE = { region: 0.9, poi: 0.06, entities: 0.04 } as const;
const KIND_MAX_FILE = { region: 8 << 20, poi: 2 << 20, entities: 1 << 20 } as const;
type Kind = keyof typeof KIND_SHARE;
const POOL_BYTES = 4 << 20;
const SPAWN_CHUNK_RADIUS = 2;
const VIEW_DISTANCE = 10;
const PARALLEL_WRITES = 4;

/** The folder holding one dimension's `region/`, `entities/` and `poi/`. */
export function dimensionFolder(root: string, layout: WorldLayout, dimension: string): string {
  if (layout === 'legacy') {
    if (dimension === OVERWORLD) return root;
    if (dimension === THE_NETHER) return path.join(root, 'DIM-1');
    if (dimension === THE_END) return path.join(root, 'DIM1');
  }
  const [ns, id] = dimension.includes(':') ? dimension.split(':', 2) : ['minecraft', dimension];
  return path.join(root, 'dimensions', ns, ...id.split('/'));
}

/** Where a dimension's saved data (`chunks.dat`, the forced chunks) lives. */
function dimensionDataFolder(root: string, layout: WorldLayout, dimension: string): string {
  const base = path.join(dimensionFolder(root, layout, dimension), 'data');
  return layout === 'legacy' ? base : path.join(base, 'minecraft');
}

function worldDataFolder(root: string, layout: WorldLayout): string {
  return layout === 'legacy' ? path.join(root, 'data') : path.join(root, 'data', 'minecraft');
}

function playerFolders(root: string, layout: WorldLayout): { data: string; stats: string; advancements: string } {
  const base = layout === 'legacy' ? root : path.join(root, 'players');
  return {
    data: path.join(base, layout === 'legacy' ? 'playerdata' : 'data'),
    stats: path.join(base, 'stats'),
    advancements: path.join(base, 'advancements'),
  };
}

/** Region coordinates in an outward square spiral from r.0.0, as exploration fills a world. */
function spiral(n: number): [number, number][] {
  const out: [number, number][] = [];
  for (let ring = 0; out.length < n; ring++) {
    if (ring === 0) {
      out.push([0, 0]);
      continue;
    }
    for (let x = -ring; x <= ring && out.length < n; x++) out.push([x, -ring]);
    for (let z = -ring + 1; z <= ring && out.length < n; z++) out.push([ring, z]);
    for (let x = ring - 1; x >= -ring && out.length < n; x--) out.push([x, ring]);
    for (let z = ring - 1; z > -ring && out.length < n; z--) out.push([-ring, z]);
  }
  return out;
}

interface PlannedFile {
  file: string;
  size: number;
}

/** Splits `bytes` over dimensions (overworld 80 %) and kinds, in whole sectors, each file ≤ its kind's max. */
function planFiles(root: string, layout: WorldLayout, dimensions: readonly string[], bytes: number): PlannedFile[] {
  const others = dimensions.filter((d) => d !== OVERWORLD);
  const files: PlannedFile[] = [];
  for (const dimension of dimensions) {
    const share = dimensions.includes(OVERWORLD) && others.length > 0 ? (dimension === OVERWORLD ? 0.8 : 0.2 / others.length) : 1 / dimensions.length;
    for (const kind of Object.keys(KIND_SHARE) as Kind[]) {
      const budget = bytes * share * KIND_SHARE[kind];
      const count = Math.max(1, Math.ceil(budget / KIND_MAX_FILE[kind]));
      const size = Math.max(HEADER_BYTES, Math.round(budget / count / SECTOR) * SECTOR);
      const folder = path.join(dimensionFolder(root, layout, dimension), kind);
      for (const [rx, rz] of spiral(count)) files.push({ file: path.join(folder, regionFileName(rx, rz)), size });
    }
  }
  return files;
}

function gzipNbt(root: CompoundTag): Buffer {
  return zlib.gzipSync(writeNbt(root));
}

function savedData(data: CompoundTag): CompoundTag {
  return nbt.compound([
    ['data', data],
    ['DataVersion', nbt.int(DATA_VERSION)],
  ]);
}

function writeFileAtomic(file: string, data: Buffer | string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

function chunkKey(cx: number, cz: number): string {
  return `${cx} ${cz}`;
}

function chunkOf(entity: SimEntity): [number, number] {
  return [Math.floor(entity.x / 16), Math.floor(entity.z / 16)];
}

export interface GeneratedWorld {
  files: number;
  bytes: number;
}

/**
 * Writes the filler region/POI/entity files of a new world (real bytes from a seeded PRNG pool,
 * written with large buffers). Used by WorldDisk; exported for benchmarks that want a world
 * folder without a sim.
 */
export async function writeRegionFiller(root: string, options: { bytes: number; layout: WorldLayout; dimensions: readonly string[]; seed?: number; nowSeconds?: number }): Promise<GeneratedWorld> {
  const plan = planFiles(root, options.layout, options.dimensions, Math.max(0, options.bytes));
  const random = new SeededRandom(options.seed ?? 1);
  // The pool only needs to outsize one chunk span; small worlds get a small one.
  const poolBytes = Math.min(POOL_BYTES, Math.max(16 * SECTOR, Math.ceil(options.bytes / 4 / SECTOR) * SECTOR));
  const pool = Buffer.allocUnsafe(poolBytes);
  for (let i = 0; i < poolBytes; i += 4) pool.writeUInt32LE(random.nextUint32(), i);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  for (const dir of new Set(plan.map((p) => path.dirname(p.file)))) fs.mkdirSync(dir, { recursive: true });
  let next = 0;
  let total = 0;
  const largest = plan.reduce((max, p) => Math.max(max, p.size), 0);
  const worker = async () => {
    const buffer = Buffer.allocUnsafe(largest); // one per writer, reused: no per-file allocation
    while (next < plan.length) {
      const index = next++;
      const { file, size } = plan[index];
      const buf = buffer.subarray(0, size);
      fillRegion(buf, pool, index + 1, now);
      await fs.promises.writeFile(file, buf);
      total += size;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, plan.length) }, worker));
  return { files: plan.length, bytes: total };
}

/** Entities of one dimension as loaded from its entity chunks, nearest chunk to spawn first. */
export interface LoadedEntities {
  dimension: string;
  tags: CompoundTag[];
}

export interface SaveReport {
  /** Every file the save wrote or touched, absolute. */
  files: string[];
}

export class WorldDisk {
  layout: WorldLayout;
  /** Entity chunks holding sim entities on disk, per dimension: a later save clears those left empty. */
  private readonly persisted = new Map<string, Set<string>>();

  constructor(
    readonly root: string,
    layout: WorldLayout,
  ) {
    this.layout = layout;
  }

  get levelDat(): string {
    return path.join(this.root, 'level.dat');
  }

  /** A world folder exists here (a level.dat), i.e. a server would load it rather than create one. */
  exists(): boolean {
    return fs.existsSync(this.levelDat);
  }

  /** The layout an existing folder uses, or null when it has no dimension folders yet. */
  detectLayout(): WorldLayout | null {
    if (fs.existsSync(path.join(this.root, 'dimensions', 'minecraft', 'overworld'))) return '26.x';
    if (fs.existsSync(path.join(this.root, 'region')) || fs.existsSync(path.join(this.root, 'playerdata'))) return 'legacy';
    return null;
  }

  /** Generates a new world folder (filler files sized by `bytes`), then saves `world` into it. */
  async create(world: World, options: { bytes: number; seed: number; millis: number }): Promise<GeneratedWorld> {
    fs.rmSync(this.root, { recursive: true, force: true });
    fs.mkdirSync(this.root, { recursive: true });
    const generated = await writeRegionFiller(this.root, {
      bytes: options.bytes,
      layout: this.layout,
      dimensions: world.dimensions,
      seed: options.seed,
      nowSeconds: Math.floor(options.millis / 1000),
    });
    fs.mkdirSync(path.join(this.root, 'datapacks'), { recursive: true });
    const data = worldDataFolder(this.root, this.layout);
    fs.mkdirSync(data, { recursive: true });
    const rules = nbt.compound([
      ['doDaylightCycle', nbt.string('true')],
      ['doMobLoot', nbt.string('true')],
      ['keepInventory', nbt.string('false')],
    ]);
    fs.writeFileSync(path.join(data, 'scoreboard.dat'), gzipNbt(savedData(nbt.compound())));
    fs.writeFileSync(path.join(data, 'random_sequences.dat'), gzipNbt(savedData(nbt.compound([['sequences', nbt.compound()]]))));
    if (this.layout !== 'legacy') {
      fs.writeFileSync(path.join(data, 'game_rules.dat'), gzipNbt(savedData(rules)));
      fs.writeFileSync(path.join(data, 'world_gen_settings.dat'), gzipNbt(savedData(nbt.compound([['seed', nbt.long(1n)]]))));
    }
    this.save(world, options.millis);
    return generated;
  }

  /** Takes the session lock the way a starting server does (the file holds a snowman). */
  lock(): void {
    fs.mkdirSync(this.root, { recursive: true });
    fs.writeFileSync(path.join(this.root, 'session.lock'), '\u2603');
  }

  /**
   * `save-all`: every dimension's entity chunks (sim entities in tick order within a chunk),
   * the block regions around spawn, players and forced chunks (their headers' timestamps, as
   * the game re-saves loaded chunks), forced chunks, players and level.dat.
   */
  save(world: World, millis: number): SaveReport {
    const files: string[] = [];
    const seconds = Math.floor(millis / 1000);
    for (const dimension of world.dimensions) {
      files.push(...this.saveEntities(world, dimension, seconds));
      files.push(...this.touchLoadedRegions(world, dimension, seconds));
      files.push(...this.saveForcedChunks(world, dimension));
    }
    files.push(...this.savePlayers(world));
    files.push(this.saveLevel(world, millis));
    return { files };
  }

  private saveEntities(world: World, dimension: string, seconds: number): string[] {
    const byChunk = new Map<string, SimEntity[]>();
    for (const entity of world.entitiesIn(dimension)) {
      // Roots only (passengers are nested in their vehicle), no players, no dying bodies; a rider of a dying vehicle is a root.
      if (entity.player || entity.deathTime !== null || (entity.vehicle && entity.vehicle.deathTime === null)) continue;
      const key = chunkKey(...chunkOf(entity));
      byChunk.set(key, [...(byChunk.get(key) ?? []), entity]);
    }
    const before = this.persisted.get(dimension) ?? new Set<string>();
    const regions = new Map<string, string[]>();
    for (const key of new Set([...before, ...byChunk.keys()])) {
      const [cx, cz] = key.split(' ').map(Number);
      const region = regionFileName(cx >> 5, cz >> 5);
      regions.set(region, [...(regions.get(region) ?? []), key]);
    }
    const folder = path.join(dimensionFolder(this.root, this.layout, dimension), 'entities');
    const written: string[] = [];
    for (const [region, keys] of regions) {
      const file = path.join(folder, region);
      const chunks = fs.existsSync(file) ? readRegion(fs.readFileSync(file)) : new Map<number, StoredChunk>();
      for (const key of keys) {
        const [cx, cz] = key.split(' ').map(Number);
        const entities = byChunk.get(key);
        if (!entities) {
          chunks.delete(chunkIndex(cx, cz));
          continue;
        }
        const tag = nbt.compound([
          ['DataVersion', nbt.int(DATA_VERSION)],
          ['Position', nbt.intArray([cx, cz])],
          ['Entities', nbt.list(entities.map(entityNbtWithId))],
        ]);
        chunks.set(chunkIndex(cx, cz), { payload: encodeChunk(tag), timestamp: seconds });
      }
      if (chunks.size === 0 && !fs.existsSync(file)) continue;
      writeFileAtomic(file, buildRegion(chunks));
      written.push(file);
    }
    this.persisted.set(dimension, new Set(byChunk.keys()));
    return written;
  }

  /**
   * Re-stamps, in the block and POI regions, the chunks the server keeps loaded (spawn chunks,
   * view distance around players, forced chunks): loaded chunks tick and are saved again.
   */
  private touchLoadedRegions(world: World, dimension: string, seconds: number): string[] {
    const centres: [number, number, number][] = [];
    if (dimension === OVERWORLD) centres.push([Math.floor(world.spawn.x / 16), Math.floor(world.spawn.z / 16), SPAWN_CHUNK_RADIUS]);
    for (const player of world.players) if (player.dimension === dimension) centres.push([...chunkOf(player), VIEW_DISTANCE]);
    for (const key of world.forcedChunks.get(dimension) ?? []) centres.push([...(key.split(' ').map(Number) as [number, number]), 0]);
    const byRegion = new Map<string, Set<number>>();
    for (const [x, z, r] of centres) {
      for (let cx = x - r; cx <= x + r; cx++) {
        for (let cz = z - r; cz <= z + r; cz++) {
          const region = regionFileName(cx >> 5, cz >> 5);
          byRegion.set(region, (byRegion.get(region) ?? new Set()).add(chunkIndex(cx, cz)));
        }
      }
    }
    const touched: string[] = [];
    for (const kind of ['region', 'poi']) {
      for (const [region, indices] of byRegion) {
        const file = path.join(dimensionFolder(this.root, this.layout, dimension), kind, region);
        if (!fs.existsSync(file)) continue;
        const fd = fs.openSync(file, 'r+');
        try {
          const header = Buffer.alloc(HEADER_BYTES);
          fs.readSync(fd, header, 0, HEADER_BYTES, 0);
          for (const index of indices) if (header.readUInt32BE(index * 4) !== 0) header.writeUInt32BE(seconds >>> 0, SECTOR + index * 4);
          fs.writeSync(fd, header, SECTOR, SECTOR, SECTOR);
        } finally {
          fs.closeSync(fd);
        }
        touched.push(file);
      }
    }
    return touched;
  }

  private saveForcedChunks(world: World, dimension: string): string[] {
    const file = path.join(dimensionDataFolder(this.root, this.layout, dimension), 'chunks.dat');
    const forced = [...(world.forcedChunks.get(dimension) ?? [])];
    if (forced.length === 0 && !fs.existsSync(file)) return [];
    const longs = forced.map((key) => {
      const [cx, cz] = key.split(' ').map(Number);
      return (BigInt(cz >>> 0) << 32n) | BigInt(cx >>> 0);
    });
    writeFileAtomic(file, gzipNbt(savedData(nbt.compound([['Forced', { kind: 'longArray', values: longs }]]))));
    return [file];
  }

  private savePlayers(world: World): string[] {
    const folders = playerFolders(this.root, this.layout);
    const files: string[] = [];
    for (const player of world.players) {
      const dat = path.join(folders.data, `${player.uuid}.dat`);
      const tag = entityNbt(player);
      tag.entries.set('DataVersion', nbt.int(DATA_VERSION));
      writeFileAtomic(dat, gzipNbt(tag));
      const stats = path.join(folders.stats, `${player.uuid}.json`);
      writeFileAtomic(stats, JSON.stringify({ stats: { 'minecraft:custom': { 'minecraft:play_time': world.tick } }, DataVersion: DATA_VERSION }));
      const advancements = path.join(folders.advancements, `${player.uuid}.json`);
      if (!fs.existsSync(advancements)) writeFileAtomic(advancements, JSON.stringify({ DataVersion: DATA_VERSION }, null, 2));
      files.push(dat, stats);
    }
    return files;
  }

  /** level.dat (gzip NBT); the previous one becomes level.dat_old, as the game rotates them. */
  private saveLevel(world: World, millis: number): string {
    const level = nbt.compound([
      ['DataVersion', nbt.int(DATA_VERSION)],
      ['LevelName', nbt.string(world.levelName)],
      [
        'version',
        nbt.compound([
          ['Id', nbt.int(DATA_VERSION)],
          ['Name', nbt.string(MINECRAFT)],
          ['Series', nbt.string('main')],
          ['Snapshot', nbt.bool(false)],
        ]),
      ],
      ['Time', nbt.long(BigInt(world.gameTime))],
      ['DayTime', nbt.long(BigInt(world.dayTime))],
      ['LastPlayed', nbt.long(BigInt(millis))],
      ['GameType', nbt.int(0)],
      ['Difficulty', nbt.byte(2)],
      ['hardcore', nbt.bool(false)],
      ['initialized', nbt.bool(true)],
      ['allowCommands', nbt.bool(false)],
      ['WasModded', nbt.bool(true)],
      ['ServerBrands', nbt.list([nbt.string('fabric')])],
      ['raining', nbt.bool(world.weather !== 'clear')],
      ['thundering', nbt.bool(world.weather === 'thunder')],
      [
        'spawn',
        nbt.compound([
          ['dimension', nbt.string(OVERWORLD)],
          ['pos', nbt.intArray([world.spawn.x, world.spawn.y, world.spawn.z])],
          ['yaw', nbt.float(0)],
          ['pitch', nbt.float(0)],
        ]),
      ],
      [
        'DataPacks',
        nbt.compound([
          ['Enabled', nbt.list([nbt.string('vanilla'), nbt.string('fabric')])],
          ['Disabled', nbt.list([])],
        ]),
      ],
    ]);
    if (fs.existsSync(this.levelDat)) fs.copyFileSync(this.levelDat, path.join(this.root, 'level.dat_old'));
    writeFileAtomic(this.levelDat, gzipNbt(nbt.compound([['Data', level]])));
    return this.levelDat;
  }

  /**
   * Reads an existing folder back: world time and weather from level.dat, forced chunks, and
   * the entities of every readable entity chunk, nearest chunk to spawn first (chunk load
   * order), each chunk's entities in their saved order. Unreadable chunks (filler) are skipped.
   */
  load(world: World): LoadedEntities[] {
    this.readLevel(world);
    const loaded: LoadedEntities[] = [];
    for (const dimension of world.dimensions) {
      this.readForcedChunks(world, dimension);
      const spawn = dimension === OVERWORLD ? [Math.floor(world.spawn.x / 16), Math.floor(world.spawn.z / 16)] : [0, 0];
      const folder = path.join(dimensionFolder(this.root, this.layout, dimension), 'entities');
      const chunks: { cx: number; cz: number; entities: CompoundTag[] }[] = [];
      const names = fs.existsSync(folder) ? fs.readdirSync(folder).sort() : [];
      for (const name of names) {
        if (!parseRegionFileName(name)) continue;
        for (const stored of readRegion(fs.readFileSync(path.join(folder, name))).values()) {
          const tag = decodeChunk(stored.payload);
          const position = tag?.entries.get('Position');
          const list = tag?.entries.get('Entities');
          if (position?.kind !== 'intArray' || position.values.length !== 2 || list?.kind !== 'list') continue;
          const entities = list.items.filter((t): t is CompoundTag => t.kind === 'compound');
          chunks.push({ cx: position.values[0], cz: position.values[1], entities });
        }
      }
      const ring = (c: { cx: number; cz: number }) => Math.max(Math.abs(c.cx - spawn[0]), Math.abs(c.cz - spawn[1]));
      chunks.sort((a, b) => ring(a) - ring(b) || a.cz - b.cz || a.cx - b.cx);
      this.persisted.set(dimension, new Set(chunks.map((c) => chunkKey(c.cx, c.cz))));
      loaded.push({ dimension, tags: chunks.flatMap((c) => c.entities) });
    }
    return loaded;
  }

  private readLevel(world: World): void {
    let data: Tag | undefined;
    try {
      data = readNbt(zlib.gunzipSync(fs.readFileSync(this.levelDat))).root.entries.get('Data');
    } catch {
      return;
    }
    if (data?.kind !== 'compound') return;
    const time = data.entries.get('Time');
    const dayTime = data.entries.get('DayTime');
    if (time?.kind === 'long') world.gameTime = Number(time.value);
    if (dayTime?.kind === 'long') world.dayTime = Number(dayTime.value);
    const raining = data.entries.get('raining');
    const thundering = data.entries.get('thundering');
    if (raining?.kind === 'byte') world.weather = thundering?.kind === 'byte' && thundering.value ? 'thunder' : raining.value ? 'rain' : 'clear';
  }

  private readForcedChunks(world: World, dimension: string): void {
    const file = path.join(dimensionDataFolder(this.root, this.layout, dimension), 'chunks.dat');
    if (!fs.existsSync(file)) return;
    try {
      const data = readNbt(zlib.gunzipSync(fs.readFileSync(file))).root.entries.get('data');
      const forced = data?.kind === 'compound' ? data.entries.get('Forced') : undefined;
      if (forced?.kind !== 'longArray') return;
      const set = new Set<string>();
      for (const value of forced.values) set.add(chunkKey(Number(BigInt.asIntN(32, value)), Number(BigInt.asIntN(32, value >> 32n))));
      world.forcedChunks.set(dimension, set);
    } catch {
      // An unreadable chunks.dat loads no forced chunks, as the game logs and carries on.
    }
  }
}

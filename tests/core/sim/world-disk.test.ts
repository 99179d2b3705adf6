import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeChunk, HEADER_BYTES, readNbt, readRegion, SECTOR, STEVE_UUID } from '../../../core/sim/index.js';
import { filesUnder, LineClient, useSims } from '../../support/line-client.js';

const { start, tempDir, track } = useSims();

const MB2 = 2 * 1024 * 1024;
const OVERWORLD = 'dimensions/minecraft/overworld';

function nbtFile(file: string) {
  return readNbt(zlib.gunzipSync(fs.readFileSync(file))).root;
}

/** The UUIDs (as int arrays joined) of every entity stored in a dimension's entity region files. */
function storedEntities(entitiesDir: string): { uuid: string; id: string; chunk: [number, number] }[] {
  const out: { uuid: string; id: string; chunk: [number, number] }[] = [];
  for (const name of fs.readdirSync(entitiesDir).sort()) {
    for (const stored of readRegion(fs.readFileSync(path.join(entitiesDir, name))).values()) {
      const tag = decodeChunk(stored.payload);
      const list = tag?.entries.get('Entities');
      const pos = tag?.entries.get('Position');
      if (list?.kind !== 'list' || pos?.kind !== 'intArray') continue;
      for (const e of list.items) {
        if (e.kind !== 'compound') continue;
        const uuid = e.entries.get('UUID');
        const id = e.entries.get('id');
        out.push({
          uuid: uuid?.kind === 'intArray' ? uuid.values.join(',') : '',
          id: id?.kind === 'string' ? id.value : '',
          chunk: [pos.values[0], pos.values[1]],
        });
      }
    }
  }
  return out;
}

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('world folder', () => {
  it('is created in the 26.x layout with region files of about the requested size, real bytes and Anvil headers', async () => {
    const dir = tempDir();
    const { sim, client } = await start({ dir, worldDisk: { bytes: MB2 } });
    expect(sim.worldRoot).toBe(path.join(dir, 'world'));
    const files = filesUnder(sim.worldRoot);
    for (const dim of ['overworld', 'the_nether', 'the_end']) {
      for (const kind of ['region', 'entities', 'poi']) expect(files.has(`dimensions/minecraft/${dim}/${kind}/r.0.0.mca`)).toBe(true);
    }
    for (const file of [
      'level.dat',
      'session.lock',
      'data/minecraft/game_rules.dat',
      'data/minecraft/scoreboard.dat',
      `players/data/${STEVE_UUID}.dat`,
      `players/stats/${STEVE_UUID}.json`,
      `players/advancements/${STEVE_UUID}.json`,
    ])
      expect(files.has(file)).toBe(true);
    expect(fs.existsSync(path.join(sim.worldRoot, 'datapacks'))).toBe(true);
    expect([...files.keys()].filter((f) => /^(region|DIM-1|DIM1|playerdata)\//.test(f))).toEqual([]);
    expect(fs.readFileSync(path.join(sim.worldRoot, 'session.lock'), 'utf8')).toBe('\u2603');

    const mca = [...files].filter(([f]) => f.endsWith('.mca'));
    const total = mca.reduce((sum, [, size]) => sum + size, 0);
    expect(total).toBeGreaterThanOrEqual(0.9 * MB2);
    expect(total).toBeLessThanOrEqual(1.15 * MB2);
    for (const [file, size] of mca) {
      expect(size % SECTOR, file).toBe(0);
      expect(size, file).toBeGreaterThanOrEqual(HEADER_BYTES);
    }
    const regionFile = path.join(sim.worldRoot, OVERWORLD, 'region', 'r.0.0.mca');
    const region = fs.readFileSync(regionFile);
    expect(region.length).toBeGreaterThan(MB2 / 2); // the overworld's blocks are most of the world
    let chunks = 0;
    for (let i = 0; i < 1024; i++) {
      const location = region.readUInt32BE(i * 4);
      if (location === 0) continue;
      chunks++;
      const [offset, count] = [location >>> 8, location & 0xff];
      expect(offset).toBeGreaterThanOrEqual(2);
      expect((offset + count) * SECTOR).toBeLessThanOrEqual(region.length);
      expect(region.readUInt32BE(offset * SECTOR)).toBeLessThanOrEqual(count * SECTOR - 4);
      expect(region.readUInt32BE(SECTOR + i * 4)).toBeGreaterThan(1_600_000_000);
    }
    expect(chunks).toBeGreaterThan(50);
    // Real data, not holes: the blocks on disk cover the size, and the bytes are as incompressible as chunk data.
    expect(fs.statSync(regionFile).blocks * 512).toBeGreaterThanOrEqual(region.length);
    expect(zlib.deflateSync(region, { level: 1 }).length).toBeGreaterThan(0.7 * region.length);

    const level = nbtFile(path.join(sim.worldRoot, 'level.dat')).entries.get('Data');
    expect(level?.kind).toBe('compound');
    if (level?.kind === 'compound') {
      expect(level.entries.get('LevelName')).toEqual({ kind: 'string', value: 'world' });
      const version = level.entries.get('version');
      expect(version?.kind === 'compound' && version.entries.get('Name')).toEqual({ kind: 'string', value: '26.2' });
    }
    const state = await client.request('STATE');
    expect(state.worldDir).toBe(`${sim.worldRoot}/.`);
    expect(fs.existsSync(path.join(path.normalize(state.worldDir), 'level.dat'))).toBe(true);
  });

  it('can use the legacy layout: region/ at the root, DIM-1, DIM1, playerdata, stats, advancements', async () => {
    const { sim } = await start({ dir: tempDir(), worldDisk: { bytes: 256 * 1024, layout: 'legacy' } });
    const files = [...filesUnder(sim.worldRoot).keys()];
    for (const file of [
      'region/r.0.0.mca',
      'entities/r.0.0.mca',
      'poi/r.0.0.mca',
      'DIM-1/region/r.0.0.mca',
      'DIM1/region/r.0.0.mca',
      `playerdata/${STEVE_UUID}.dat`,
      `stats/${STEVE_UUID}.json`,
      `advancements/${STEVE_UUID}.json`,
      'data/scoreboard.dat',
      'level.dat',
      'session.lock',
    ])
      expect(files).toContain(file);
    expect(files.filter((f) => f.startsWith('dimensions/') || f.startsWith('players/'))).toEqual([]);
  });

  it('is only an empty folder for a temp-dir sim unless asked for, and never for worldDisk:false', async () => {
    const { sim } = await start({});
    expect(fs.readdirSync(sim.worldRoot)).toEqual([]);
    const { sim: asked } = await start({ worldDisk: {} });
    expect(fs.existsSync(path.join(asked.worldRoot, 'level.dat'))).toBe(true);
    const { sim: off, client } = await start({ dir: tempDir(), worldDisk: false });
    expect(await client.command('save-all flush')).toEqual(['Saving the game (this may take a moment!)', 'Saved the game']);
    expect(fs.readdirSync(off.worldRoot)).toEqual([]);
  });
});

describe('save-all', () => {
  it('flush writes entity chunks, re-stamps the loaded block regions and level.dat before the ack', async () => {
    const { sim, client } = await start({ dir: tempDir(), worldDisk: { bytes: 512 * 1024 } });
    const entitiesDir = path.join(sim.worldRoot, OVERWORLD, 'entities');
    const regionFile = path.join(sim.worldRoot, OVERWORLD, 'region', 'r.0.0.mca');
    const levelDat = path.join(sim.worldRoot, 'level.dat');
    expect(
      storedEntities(entitiesDir)
        .map((e) => e.id)
        .sort(),
    ).toEqual(['minecraft:chicken', 'minecraft:cow', 'minecraft:item', 'minecraft:pig', 'minecraft:zombie']);
    const before = { region: sha(regionFile), level: sha(levelDat) };
    await client.command('summon minecraft:sheep 40 64 40 {UUID:[I;1,2,3,4]}');
    sim.advanceClock(120_000);
    sim.tick(5);
    expect(await client.command('save-all flush')).toEqual(['Saving the game (this may take a moment!)', 'Saved the game']);
    const stored = storedEntities(entitiesDir);
    expect(stored.find((e) => e.uuid === '1,2,3,4')).toEqual({ uuid: '1,2,3,4', id: 'minecraft:sheep', chunk: [2, 2] });
    expect(sha(regionFile)).not.toBe(before.region);
    expect(sha(levelDat)).not.toBe(before.level);
    const data = nbtFile(levelDat).entries.get('Data');
    expect(data?.kind === 'compound' && data.entries.get('Time')).toEqual({ kind: 'long', value: 1005n });
    expect(fs.existsSync(path.join(sim.worldRoot, 'level.dat_old'))).toBe(true);
  });

  it('without flush writes on the next server tick, and removes what was killed', async () => {
    const { sim, client } = await start({ dir: tempDir() });
    const entitiesDir = path.join(sim.worldRoot, OVERWORLD, 'entities');
    await client.command('kill @e[type=minecraft:pig]');
    expect(await client.command('save-all')).toEqual(['Saving the game (this may take a moment!)', 'Saved the game']);
    expect(storedEntities(entitiesDir).map((e) => e.id)).toContain('minecraft:pig');
    sim.tick();
    expect(storedEntities(entitiesDir).map((e) => e.id)).not.toContain('minecraft:pig');
  });

  it('autosaves every 6000 ticks unless save-off, which save-all still overrides', async () => {
    const { sim, client } = await start({ dir: tempDir() });
    const entitiesDir = path.join(sim.worldRoot, OVERWORLD, 'entities');
    const types = () => storedEntities(entitiesDir).map((e) => e.id);
    await client.command('save-off');
    await client.command('kill @e[type=minecraft:cow]');
    sim.tick(6000);
    expect(types()).toContain('minecraft:cow');
    await client.command('save-on');
    sim.tick(6000);
    expect(types()).not.toContain('minecraft:cow');
    await client.command('save-off');
    await client.command('kill @e[type=minecraft:zombie]');
    await client.command('save-all flush');
    expect(types()).not.toContain('minecraft:zombie');
  });

  it('reports vanilla failure text when the folder cannot be written', async () => {
    const { sim, client } = await start({ dir: tempDir() });
    fs.rmSync(sim.worldRoot, { recursive: true });
    fs.writeFileSync(sim.worldRoot, 'not a folder');
    expect(await client.command('save-all flush')).toEqual(['Saving the game (this may take a moment!)', 'Unable to save the game (is there enough disk space?)']);
  });
});

describe('loading a saved world', () => {
  it('reuses an existing folder: filler untouched, entities back in chunk order, players last', async () => {
    const dir = tempDir();
    const first = await start({ dir, worldDisk: { bytes: 512 * 1024 } });
    await first.client.command('summon minecraft:sheep 100 64 -40');
    await first.client.command('forceload add 160 160');
    const region = path.join(first.sim.worldRoot, OVERWORLD, 'region', 'r.-1.-1.mca');
    const regionSha = fs.existsSync(region) ? sha(region) : null;
    const liveOrder = (await first.client.request('ENTITIES')).entities.map((e: { type: string }) => e.type);
    expect(liveOrder).toEqual(['minecraft:pig', 'minecraft:cow', 'minecraft:zombie', 'minecraft:chicken', 'minecraft:item', 'minecraft:player', 'minecraft:sheep']);
    first.sim.tick(20);
    first.client.close();
    await first.sim.stop(); // a given dir is saved on the way down

    const lab = await start({ dir });
    if (regionSha) expect(sha(region)).toBe(regionSha);
    expect(await lab.client.command('time query gametime')).toEqual(['The time is 1020']);
    const loaded = (await lab.client.request('ENTITIES')).entities.map((e: { type: string }) => e.type);
    // Chunk (0,0) first, then ring 1 by z then x: (0,-1), (-1,0); the sheep's chunk (6,-3) last.
    expect(loaded).toEqual(['minecraft:pig', 'minecraft:chicken', 'minecraft:zombie', 'minecraft:item', 'minecraft:cow', 'minecraft:sheep', 'minecraft:player']);
    expect(await lab.client.command('forceload query')).toEqual(['A force loaded chunk was found in minecraft:overworld at: [10, 10]']);
  });

  it('takes explicit entities over the saved ones, and fresh:true generates a new folder', async () => {
    const dir = tempDir();
    const first = await start({ dir, entities: [{ type: 'minecraft:cow', x: 1, y: 64, z: 1 }] });
    first.sim.save();
    const explicit = await start({ dir, port: 0, entities: [{ type: 'minecraft:pig', x: 1, y: 64, z: 1 }] });
    expect(explicit.sim.world.entities.map((e) => e.type)).toEqual(['minecraft:pig', 'minecraft:player']);
    const levelBefore = sha(path.join(dir, 'world', 'level.dat'));
    const timed = await start({ dir, port: 0, world: { gameTime: 7 } });
    expect(await timed.client.command('time query gametime')).toEqual(['The time is 7']);
    const fresh = await start({ dir, port: 0, worldDisk: { fresh: true }, world: { gameTime: 5 } });
    expect(fs.existsSync(path.join(dir, 'world', 'level.dat_old'))).toBe(false);
    expect(sha(path.join(dir, 'world', 'level.dat'))).not.toBe(levelBefore);
    expect(fresh.sim.world.entities).toHaveLength(6);
  });

  it('restart saves and reloads: the tick order becomes chunk order and dead entities stay dead', async () => {
    const { sim, client } = await start({ dir: tempDir() });
    await client.command('kill @e[type=minecraft:chicken]');
    await sim.restart();
    const again = track((await LineClient.open(sim.port)).client);
    const order = (await again.request('ENTITIES')).entities.map((e: { type: string }) => e.type);
    expect(order).toEqual(['minecraft:pig', 'minecraft:zombie', 'minecraft:item', 'minecraft:cow', 'minecraft:player']);
  });
});

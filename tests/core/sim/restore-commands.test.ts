/**
 * The vanilla commands a fork and a restore send through CMD, with
 * their feedback texts and effects: tick freeze/unfreeze/query, summon with recorded NBT, kill
 * with narrow selectors, dying bodies and drops, forceload, data get entity.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { orderHash, STEVE_UUID, type SimOptions, type SimulatedMod } from '../../../core/sim/index.js';
import { type LineClient, until, useSims, type Json } from '../../support/line-client.js';

const sims = useSims();
let sim: SimulatedMod;
let client: LineClient;

async function open(options: SimOptions = {}): Promise<void> {
  ({ sim, client } = await sims.start(options));
}

const entities = async (): Promise<Json[]> => (await client.request('ENTITIES')).entities;

function snapshotLines(name: string): Json[] {
  const text = fs.readFileSync(path.join(sim.snapshotsDir, name, 'entities.jsonl'), 'utf8').trim();
  return text === '' ? [] : text.split('\n').map((l) => JSON.parse(l));
}

const PIG = '1f6a3c2e-8b4d-4f7a-9e05-3c2b1a0f9e8d';
const CART_UUID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const CART_INTS = '[I;169552957,1314867819,-1937924593,439041101]';

describe('tick freeze, unfreeze and query', () => {
  it('answers with vanilla texts and query reports the state in its first line', async () => {
    await open();
    expect(await client.command('tick query')).toEqual([
      'The game is running normally',
      'Target tick rate: 20.0 per second.\nAverage time per tick: 1.2ms (Target: 50.0ms)',
      'Percentiles: P50: 1.1ms P95: 1.6ms P99: 2.0ms, sample: 100',
    ]);
    expect(await client.command('/tick freeze')).toEqual(['The game is frozen']);
    expect((await client.command('tick query'))[0]).toBe('The game is frozen');
    expect(await client.command('tick freeze')).toEqual(['The game is frozen']);
    expect(await client.command('/tick unfreeze')).toEqual(['The game is running normally']);
    expect((await client.command('tick query'))[0]).toBe('The game is running normally');
  });

  it('frozen: game time and entities stop, the server tick counter and WAIT keep going', async () => {
    await open({ motion: true });
    await client.command(`summon minecraft:item 0.5 70.0 0.5 {UUID:${CART_INTS},Item:{id:"minecraft:stone",count:1},Motion:[0.2d,0.0d,0.0d]}`);
    sim.tick(2);
    const moving = sim.world.findByUuid(CART_UUID)!;
    const after2 = { x: moving.x, y: moving.y };
    expect(after2.x).toBeGreaterThan(0.5);
    expect(after2.y).toBeLessThan(70);
    await client.command('tick freeze');
    const gametime = async () => (await client.command('time query gametime'))[0];
    const frozenAt = await gametime();
    client.send('WAIT 3');
    await until(() => sim.received.includes('WAIT 3'));
    sim.tick(3);
    expect(await client.nextNonEvent()).toMatchObject({ type: 'wait_ack', detail: 'ticks=0' });
    expect(await gametime()).toBe(frozenAt);
    expect((await client.request('STATE')).tick).toBe(5);
    expect({ x: moving.x, y: moving.y }).toEqual(after2);
    const record = (await entities()).find((e) => e.uuid === CART_UUID)!;
    expect(record).toMatchObject({ x: after2.x, y: after2.y });
    await client.command('tick unfreeze');
    sim.tick(1);
    expect(moving.x).toBeGreaterThan(after2.x);
    expect(await gametime()).not.toBe(frozenAt);
  });

  it('tick step lets n ticks of entity motion through while frozen', async () => {
    await open({ motion: true });
    await client.command('summon minecraft:pig 0.5 64.0 0.5 {Motion:[0.5d,0.0d,0.0d]}');
    const pig = sim.world.entities.find((e) => e.type === 'minecraft:pig' && e.x === 0.5)!;
    await client.command('tick freeze');
    sim.tick(4);
    expect(pig.x).toBe(0.5);
    expect(await client.command('tick step 1')).toEqual(['Stepping 1 tick(s)']);
    sim.tick(4);
    expect(pig.x).toBe(1);
  });
});

describe('summon with recorded NBT', () => {
  it('keeps UUID, Motion, Rotation and unmodelled fields; the entity is last in tick order everywhere', async () => {
    await open();
    const nbt =
      `{"Motion":[0.0d,-0.0784000015258789d,0.25d],"Rotation":[45.0f,10.0f],"UUID":${CART_INTS},` +
      `"Items":[{"Slot":0b,"id":"minecraft:diamond","count":3}],"CustomName":"Cart A","Tags":["restored"],"PersistenceRequired":1b}`;
    expect(await client.command(`/summon minecraft:chest_minecart 10.5 64.0 -3.5 ${nbt}`)).toEqual(['Summoned new Cart A']);
    const list = await entities();
    expect(list[list.length - 1]).toMatchObject({
      uuid: CART_UUID,
      type: 'minecraft:chest_minecart',
      class: 'MinecartChest',
      x: 10.5,
      y: 64,
      z: -3.5,
      vx: 0,
      vy: -0.0784000015258789,
      vz: 0.25,
      yaw: 45,
      pitch: 10,
    });
    const ack = await client.request('SNAPSHOT after');
    const lines = snapshotLines('after');
    const last = lines[lines.length - 1];
    expect(ack.orderHash).toBe(orderHash(lines.map((l) => l.uuid)));
    expect(last).toMatchObject({ order: 5, uuid: CART_UUID, type: 'minecraft:chest_minecart', pos: [10.5, 64, -3.5], vel: [0, -0.0784000015258789, 0.25], yaw: 45, pitch: 10, restorable: true });
    for (const part of [
      `"UUID":${CART_INTS}`,
      '"Motion":[0.0d,-0.0784000015258789d,0.25d]',
      '"Rotation":[45.0f,10.0f]',
      '"Items":[{"Slot":0b,"id":"minecraft:diamond","count":3}]',
      '"Tags":["restored"]',
      '"PersistenceRequired":1b',
      '"CustomName":"Cart A"',
    ]) {
      expect(last.nbt).toContain(part);
    }
    expect(await client.command(`data get entity ${CART_UUID} Items[0].count`)).toEqual(['Cart A has the following entity data: 3']);
    expect(await client.command(`data get entity ${CART_UUID} PersistenceRequired`)).toEqual(['Cart A has the following entity data: 1b']);
    expect(await client.command(`data get entity ${CART_UUID} Rotation`)).toEqual(['Cart A has the following entity data: [45.0f, 10.0f]']);
  });

  it('refuses a UUID still in use, and a coordinate in exponent form', async () => {
    await open();
    expect(await client.command(`summon minecraft:pig 0.0 64.0 0.0 {UUID:[I;527055918,-1957867654,-1643824085,437231245]}`)).toEqual(['Unable to summon entity due to duplicate UUIDs']);
    expect((await client.command('summon minecraft:pig 1e-05 64.0 0.0'))[0]).toBe('Expected a coordinate');
  });

  it('an entity that changes dimension re-enters last in its new tick order with a new id', async () => {
    await open();
    const target = sim.summon({ type: 'minecraft:zombie', uuid: 'abcdef01-2345-4678-9abc-def012345678', x: 0.5, y: 64, z: 0.5, dimension: 'minecraft:the_nether' });
    const cow = sim.summon({ type: 'minecraft:cow', x: 3.5, y: 64, z: 3.5, dimension: 'minecraft:the_nether' });
    const pigId = sim.world.findByUuid(PIG)!.id;
    expect(await client.command(`tp ${PIG} ${target.uuid}`)).toEqual(['Teleported Pig to Zombie']);
    await client.request('SNAPSHOT nether minecraft:the_nether');
    expect(snapshotLines('nether').map((l) => l.uuid)).toEqual([target.uuid, cow.uuid, PIG]);
    expect(sim.world.findByUuid(PIG)!.id).not.toBe(pigId);
  });
});

describe('kill with the selectors a restore clears with', () => {
  it('narrow type+position+distance kills only the entity at the recorded spot, item kills its drops', async () => {
    await open();
    await client.command(`summon minecraft:chest_minecart 10.5 64.0 -3.5 {UUID:${CART_INTS}}`);
    await client.command('summon minecraft:chest_minecart 12.5 64.0 -3.5');
    await client.command('summon minecraft:item 10.0 64.0 -3.0 {Item:{id:"minecraft:chest",count:1}}');
    await client.command('summon minecraft:item 14.0 64.0 -3.5 {Item:{id:"minecraft:rail",count:1}}');
    expect(await client.command('kill @e[type=minecraft:chest_minecart,x=10.5,y=64.0,z=-3.5,distance=..1]')).toEqual(['Killed Minecart with Chest']);
    expect(sim.world.findByUuid(CART_UUID)).toBeUndefined();
    expect(await client.command('kill @e[type=minecraft:item,x=10.5,y=64.0,z=-3.5,distance=..2]')).toEqual(['Killed Chest']);
    const left = (await entities()).map((e) => `${e.type}@${e.x}`);
    expect(left).toContain('minecraft:chest_minecart@12.5');
    expect(left).toContain('minecraft:item@14');
    expect(await client.command('kill @e[type=!player,x=6.5,y=64.0,z=-5.5,distance=..0.75]')).toEqual(['Killed Zombie']);
    expect(await client.command('kill @e[type=!player,x=6.5,y=64.0,z=-5.5,distance=..0.75]')).toEqual(['No entity was found']);
  });

  it('by UUID, tag, volume (dx), limit with sort, and never a player through type=!player', async () => {
    await open();
    await client.command('summon minecraft:sheep 20.5 64.0 20.5 {Tags:["lab"]}');
    await client.command('summon minecraft:sheep 22.5 64.0 20.5 {Tags:["lab"]}');
    await client.command('summon minecraft:sheep 24.5 64.0 20.5 {Tags:["lab"]}');
    expect(await client.command('kill @e[tag=lab,x=20,y=64,z=20,sort=furthest,limit=1]')).toEqual(['Killed Sheep']);
    expect((await entities()).filter((e) => e.type === 'minecraft:sheep').map((e) => e.x)).toEqual([20.5, 22.5]);
    expect(await client.command('kill @e[x=20,y=63,z=20,dx=1,dy=2,dz=1]')).toEqual(['Killed Sheep']);
    expect(await client.command(`kill ${PIG}`)).toEqual(['Killed Pig']);
    expect(await client.command('kill @e[tag=lab]')).toEqual(['Killed Sheep']);
    expect(await client.command('kill @e[type=!player]')).toEqual(['Killed 4 entities']);
    expect((await entities()).map((e) => e.uuid)).toEqual([STEVE_UUID]);
  });
});

describe('deaths: vanilla', () => {
  it('a living entity drops loot and its body keeps its UUID for 20 running ticks, however long the world is frozen', async () => {
    await open({ deaths: 'vanilla' });
    await client.command('tick freeze');
    expect(await client.command(`kill ${PIG}`)).toEqual(['Killed Pig']);
    const list = await entities();
    expect(list.map((e) => e.uuid)).not.toContain(PIG);
    const drops = list.filter((e) => e.type === 'minecraft:item' && e.x === 3.5 && e.z === 2.5);
    expect(drops.length).toBe(1);
    expect(await client.command(`data get entity ${drops[0].uuid} Item.id`)).toEqual(['Porkchop has the following entity data: "minecraft:porkchop"']);
    await client.request('SNAPSHOT dying');
    expect(snapshotLines('dying').map((l) => l.uuid)).not.toContain(PIG);
    const summonPig = `summon minecraft:pig 3.5 64.0 2.5 {UUID:[I;527055918,-1957867654,-1643824085,437231245]}`;
    sim.tick(100);
    expect(await client.command(summonPig)).toEqual(['Unable to summon entity due to duplicate UUIDs']);
    expect(await client.command(`data get entity ${PIG} DeathTime`)).toEqual(['Pig has the following entity data: 0s']);
    await client.command('tick unfreeze');
    sim.tick(19);
    expect(await client.command(summonPig)).toEqual(['Unable to summon entity due to duplicate UUIDs']);
    sim.tick(1);
    expect(await client.command(summonPig)).toEqual(['Summoned new Pig']);
  });

  it('non-living entities and armor stands go at once, without drops', async () => {
    await open({ deaths: 'vanilla' });
    await client.command('summon minecraft:armor_stand 30.5 64.0 30.5');
    const before = (await entities()).length;
    expect(await client.command('kill @e[type=minecraft:armor_stand]')).toEqual(['Killed Armor Stand']);
    expect(await client.command('kill @e[type=minecraft:item]')).toEqual(['Killed Diamond']);
    expect((await entities()).length).toBe(before - 2);
    expect(sim.world.entities.some((e) => e.deathTime !== null)).toBe(false);
  });
});

describe('forceload as a restore sends it', () => {
  it('adds and removes the recorded box, and answers query, with vanilla texts', async () => {
    await open();
    expect(await client.command('forceload add -6 -20 27 13')).toEqual(['Marked 9 chunks in minecraft:overworld from [-1, -2] to [1, 0] to be force loaded']);
    expect(await client.command('forceload query 0 0')).toEqual(['Chunk at [0, 0] in minecraft:overworld is marked for force loading']);
    expect((await client.command('forceload query'))[0]).toMatch(/^9 force loaded chunks were found in minecraft:overworld at: \[-1, -2\], /);
    expect(await client.command('forceload add -6 -20 27 13')).toEqual(['No chunks were marked for force loading']);
    expect(await client.command('forceload remove -6 -20 27 13')).toEqual(['Unmarked 9 chunks in minecraft:overworld from [-1, -2] to [1, 0] for force loading']);
    expect(await client.command('forceload query 0 0')).toEqual(['Chunk at [0, 0] in minecraft:overworld is not marked for force loading']);
    expect(await client.command('forceload query')).toEqual(['No force loaded chunks were found in minecraft:overworld']);
    expect(await client.command('forceload add 0 0 272 0')).toEqual(['Marked 18 chunks in minecraft:overworld from [0, 0] to [17, 0] to be force loaded']);
    expect(await client.command('forceload add -200 -200 200 200')).toEqual(['Too many chunks in the specified area (maximum 256, found 676)']);
  });
});

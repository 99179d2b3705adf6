import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { orderHash, STEVE_UUID, type SimulatedMod } from '../../../core/sim/index.js';
import { type Json, type LineClient, useSims } from '../../support/line-client.js';

const sims = useSims();
let sim: SimulatedMod;
let client: LineClient;

beforeEach(async () => {
  ({ sim, client } = await sims.start());
});

const DEFAULT_ORDER = [
  '1f6a3c2e-8b4d-4f7a-9e05-3c2b1a0f9e8d',
  '2a7b4d3f-9c5e-4a8b-8f16-4d3c2b1a0f9e',
  '3b8c5e4a-0d6f-4b9c-a027-5e4d3c2b1a0f',
  '4c9d6f5b-1e7a-4cad-b138-6f5e4d3c2b1a',
  '5d0e7a6c-2f8b-4dbe-8249-7a6f5e4d3c2b',
];

function readLines(dir: string): Json[] {
  return fs
    .readFileSync(path.join(dir, 'entities.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('orderHash', () => {
  it('is the first 16 hex chars of sha256 over the dashed UUIDs joined with ":"', () => {
    expect(orderHash([])).toBe('e3b0c44298fc1c14');
    const expected = createHash('sha256').update(DEFAULT_ORDER.join(':')).digest('hex').slice(0, 16);
    expect(orderHash(DEFAULT_ORDER)).toBe(expected);
  });
});

describe('SNAPSHOT', () => {
  it('writes entities.jsonl and meta.json, excludes players, and acks with the hash', async () => {
    sim.tick(7);
    client.send('SNAPSHOT');
    const event = await client.next();
    const ack = await client.next();
    const hash = orderHash(DEFAULT_ORDER);
    expect(event).toEqual({ type: 'snapshot', millis: expect.any(Number), text: `name=snap-7 entities=5 orderHash=${hash}`, event: true });
    const dir = path.join(sim.modDir, 'snapshots', 'snap-7');
    expect(ack).toEqual({
      type: 'snapshot_ack',
      millis: expect.any(Number),
      detail: 'name=snap-7 entities=5',
      id: 'snap-7',
      dir,
      entities: 5,
      orderHash: hash,
      tick: 7,
      dimension: 'minecraft:overworld',
      bytes: fs.statSync(path.join(dir, 'entities.jsonl')).size,
      replaced: false,
    });
    const lines = readLines(dir);
    expect(lines.map((l) => l.uuid)).toEqual(DEFAULT_ORDER);
    expect(lines.map((l) => l.order)).toEqual([0, 1, 2, 3, 4]);
    const raw = fs.readFileSync(path.join(dir, 'entities.jsonl'), 'utf8').split('\n')[0];
    expect(raw).toMatch(
      /^\{"order":0,"uuid":"1f6a3c2e-[^"]+","type":"minecraft:pig","entityId":1,"pos":\[3\.5,64\.0,2\.5\],"vel":\[0\.0,-0\.0784000015258789,0\.0\],"yaw":90\.0,"pitch":0\.0,"nbt":"\{.*\}","passengers":\[\],"vehicle":null,"restorable":true\}$/,
    );
    expect(lines[0].nbt).toContain('"UUID":[I;527055918,-1957867654,-1643824085,437231245]');
    expect(lines[0].nbt).toContain('"Health":10.0f');
    expect(lines[0].nbt).toContain('"Motion":[0.0d,-0.0784000015258789d,0.0d]');
    expect(lines[0].nbt).toContain('"Rotation":[90.0f,0.0f]');
    expect(lines[0].nbt).not.toMatch(/\s/);
    const metaText = fs.readFileSync(path.join(dir, 'meta.json'), 'utf8');
    const meta = JSON.parse(metaText);
    expect(Object.keys(meta)).toEqual([
      'type',
      'millis',
      'protocol',
      'mod',
      'modVersion',
      'minecraft',
      'instance',
      'tick',
      'dimension',
      'radius',
      'entities',
      'playersSkipped',
      'players',
      'orderHash',
      'createdAt',
      'worldDir',
      'levelName',
    ]);
    expect(meta).toMatchObject({ type: 'meta', protocol: 1, modVersion: '0.8.0', instance: 'server', tick: 7, entities: 5, playersSkipped: 1, orderHash: hash, levelName: 'world' });
    expect(meta.players).toEqual([{ name: 'Steve', uuid: STEVE_UUID, x: 0.5, y: 64, z: 0.5 }]);
    expect(metaText).toContain('"radius":0.0');
    expect(meta.worldDir).toBe(`${sim.dir}/world/.`);
  });

  it('reads [radius] [name] [dimension] positionally, filters by radius, and marks replaced', async () => {
    const first = await client.request('SNAPSHOT 3 near');
    expect(first).toMatchObject({ id: 'near', entities: 1, orderHash: orderHash([DEFAULT_ORDER[4]]), replaced: false });
    const again = await client.request('SNAPSHOT near');
    expect(again).toMatchObject({ id: 'near', entities: 5, replaced: true });
    expect(readLines(path.join(sim.modDir, 'snapshots', 'near'))).toHaveLength(5);
    const nether = await client.request('SNAPSHOT minecraft:the_nether');
    expect(nether).toMatchObject({ id: 'snap-0', dimension: 'minecraft:the_nether', entities: 0, orderHash: 'e3b0c44298fc1c14', bytes: 0 });
    expect(await client.request('SNAPSHOT 0 end the_end')).toMatchObject({ id: 'end', dimension: 'minecraft:the_end' });
  });

  it('rejects bad names, negative radius, unknown dimension, radius without player', async () => {
    const message = async (line: string) => (await client.request(line)).message as string;
    for (const name of ['con', 'LPT1.txt', '..', '.hidden', 'trail.', 'a/b', 'x'.repeat(65)]) {
      expect(await message(`SNAPSHOT ${name}`)).toMatch(/^snapshot name rejected: /);
    }
    expect(await message('SNAPSHOT -2 x')).toBe('radius cannot be negative');
    expect(await message('SNAPSHOT minecraft:the_moon')).toBe('no such dimension: minecraft:the_moon');
    expect(await message('SNAPSHOT 5 minecraft:the_nether')).toBe('a radius needs a player in that dimension; use radius 0 for everything');
    expect(await message('SNAPSHOT Bad:Dim')).toMatch(/^task failed: /);
    expect(fs.existsSync(path.join(sim.modDir, 'snapshots'))).toBe(false);
  });

  it('keeps passengers with restorable:false and nests them in the vehicle NBT', async () => {
    const horse = sim.summon({ type: 'minecraft:horse', x: 20, y: 64, z: 20 });
    const rider = sim.summon({ type: 'minecraft:zombie', x: 20, y: 64, z: 20, vehicle: horse.uuid });
    const ack = await client.request('SNAPSHOT rides');
    expect(ack.orderHash).toBe(orderHash([...DEFAULT_ORDER, horse.uuid, rider.uuid]));
    const lines = readLines(path.join(sim.modDir, 'snapshots', 'rides'));
    expect(lines[5]).toMatchObject({ uuid: horse.uuid, passengers: [rider.uuid], vehicle: null, restorable: true });
    expect(lines[6]).toMatchObject({ uuid: rider.uuid, passengers: [], vehicle: horse.uuid, restorable: false });
    expect(lines[5].nbt).toContain('"Passengers":[{"id":"minecraft:zombie",');
  });

  it('restores through CMD summon from its own lines, same UUIDs and motion', async () => {
    sim.summon({ type: 'minecraft:pig', x: 1, y: 64, z: 1, vx: 0.25, vy: 0, vz: -1e-4, tags: ['keep'] });
    const before = await client.request('SNAPSHOT base');
    const lines = readLines(path.join(sim.modDir, 'snapshots', 'base'));
    await client.request('CMD kill @e[type=!player]');
    for (const line of lines.filter((l) => l.restorable)) {
      const [x, y, z] = line.pos;
      const ack = await client.request(`CMD summon ${line.type} ${x} ${y} ${z} ${line.nbt}`);
      expect(ack.output[0]).toMatch(/^Summoned new /);
    }
    const after = await client.request('SNAPSHOT restored');
    expect(after.orderHash).toBe(before.orderHash);
    const restored = readLines(path.join(sim.modDir, 'snapshots', 'restored'));
    expect(restored.map((l) => [l.vel, l.nbt.replace(/"Pos":\[[^\]]*\],/, '')])).toEqual(lines.map((l) => [l.vel, l.nbt.replace(/"Pos":\[[^\]]*\],/, '')]));
  });
});

describe('SNAPSHOTS', () => {
  it('lists folders sorted by name with six meta keys, unreadable and missing meta', async () => {
    expect((await client.request('SNAPSHOTS')).snapshots).toEqual([]);
    await client.request('SNAPSHOT 4 beta');
    await client.request('SNAPSHOT alpha');
    fs.mkdirSync(path.join(sim.modDir, 'snapshots', 'nometa'));
    fs.mkdirSync(path.join(sim.modDir, 'snapshots', 'broken'));
    fs.writeFileSync(path.join(sim.modDir, 'snapshots', 'broken', 'meta.json'), '{not json');
    const line = await client.requestRaw('SNAPSHOTS');
    const list = JSON.parse(line).snapshots;
    expect(list.map((s: Json) => s.id)).toEqual(['alpha', 'beta', 'broken', 'nometa']);
    expect(Object.keys(list[0])).toEqual(['id', 'entities', 'tick', 'orderHash', 'createdAt', 'dimension', 'radius']);
    expect(list[2]).toEqual({ id: 'broken', metaError: 'unreadable' });
    expect(list[3]).toEqual({ id: 'nometa' });
    expect(line).toContain('"radius":4.0');
  });
});

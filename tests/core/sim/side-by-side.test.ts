/**
 * Two sims at once, as a fork/restore test runs them: a live server and a lab on a copy of its
 * world. They share nothing, and the lab loads what the copy holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { orderHash } from '../../../core/sim/index.js';
import { filesUnder, LineClient, useSims, type Json } from '../../support/line-client.js';

const { start, tempDir, track } = useSims();

function lines(dir: string): Json[] {
  return fs
    .readFileSync(path.join(dir, 'entities.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** The predecessor's copy rules: skip session.lock and player data at any depth, strip entity storage. */
const SKIP = new Set(['session.lock', 'playerdata', 'players', 'stats', 'advancements', 'logs']);
function copyWorld(from: string, to: string): void {
  fs.cpSync(from, to, {
    recursive: true,
    filter: (src) => {
      const name = path.basename(src).toLowerCase();
      if (SKIP.has(name)) return false;
      return !(path.basename(path.dirname(src)) === 'entities' && name.endsWith('.mca'));
    },
  });
}

/** Coordinates as a restore must write them: always with a fraction, or summon centres integers. */
const coord = (v: number) => (Number.isInteger(v) ? v.toFixed(1) : String(v));

describe('two sims side by side', () => {
  it('share no state: ports, folders, tick switches, entities, faults, snapshots and random streams are their own', async () => {
    const live = await start({ dir: tempDir() });
    const lab = await start({ dir: tempDir() });
    expect(live.sim.port).not.toBe(lab.sim.port);
    const [liveState, labState] = [await live.client.request('STATE'), await lab.client.request('STATE')];
    expect(liveState.worldDir).not.toBe(labState.worldDir);
    expect(liveState.worldDir).toBe(`${live.sim.worldRoot}/.`);

    await live.client.command('tick freeze');
    expect((await lab.client.command('tick query'))[0]).toBe('The game is running normally');
    live.sim.failNext('summon');
    expect(await lab.client.command('summon minecraft:sheep 5.0 64.0 5.0')).toEqual(['Summoned new Sheep']);
    expect(await live.client.command('summon minecraft:sheep 5.0 64.0 5.0')).toEqual(['Unable to summon entity']);
    expect(await live.client.command('summon minecraft:sheep 5.0 64.0 5.0')).toEqual(['Summoned new Sheep']);
    // Same seed, separate generators: both sheep got the first generated UUID of their own sim.
    const sheep = async (c: LineClient) => (await c.request('ENTITIES')).entities.filter((e: Json) => e.type === 'minecraft:sheep').map((e: Json) => e.uuid);
    expect(await sheep(live.client)).toEqual(await sheep(lab.client));
    expect(await sheep(lab.client)).toHaveLength(1);

    const labLevel = fs.readFileSync(path.join(lab.sim.worldRoot, 'level.dat'));
    await live.client.command('kill @e[type=minecraft:pig]');
    await live.client.command('save-all flush');
    expect(fs.readFileSync(path.join(lab.sim.worldRoot, 'level.dat'))).toEqual(labLevel);
    const [a, b] = [await live.client.request('SNAPSHOT 0 same'), await lab.client.request('SNAPSHOT 0 same')];
    expect(a.dir).not.toBe(b.dir);
    expect([a.entities, b.entities]).toEqual([5, 6]);
    expect(lines(a.dir).map((l) => l.type)).not.toContain('minecraft:pig');
  });

  it('fork the live world, restore into a lab on the copy, verify the tick order; a lab restart loses it', async () => {
    const live = await start({ dir: tempDir(), worldDisk: { bytes: 512 * 1024 } });
    await live.client.command('summon minecraft:chest_minecart -20.0 64.0 40.0 {Items:[{Slot:0b,id:"minecraft:diamond",count:3}]}');
    await live.client.command('summon minecraft:tnt 12.0 70.0 -3.25 {fuse:80s}');

    // fork: freeze, flush, snapshot, copy the world folder, unfreeze
    await live.client.command('tick freeze');
    await live.client.command('save-all flush');
    const fork = await live.client.request('SNAPSHOT 0 base');
    const worldDir = path.normalize((await live.client.request('STATE')).worldDir);
    copyWorld(worldDir, path.join(fork.dir, 'world'));
    await live.client.command('tick unfreeze');
    const copied = [...filesUnder(path.join(fork.dir, 'world')).keys()];
    expect(copied).toContain('level.dat');
    expect(copied).toContain('dimensions/minecraft/overworld/region/r.0.0.mca');
    expect(copied.filter((f) => f.includes('/entities/') || f.startsWith('players/') || f === 'session.lock')).toEqual([]);

    // lab: a server on a copy of the fork's world; it loads no entities (their storage was stripped)
    const labDir = tempDir();
    fs.cpSync(path.join(fork.dir, 'world'), path.join(labDir, 'world'), { recursive: true });
    const lab = await start({ dir: labDir });
    expect(path.normalize((await lab.client.request('STATE')).worldDir)).toBe(path.join(labDir, 'world'));
    expect((await lab.client.request('ENTITIES')).entities.map((e: Json) => e.type)).toEqual(['minecraft:player']);

    // restore: freeze, forceload the box, summon in recorded order, verify, unfreeze
    const recorded = lines(fork.dir);
    expect(recorded.map((l) => l.type)).toEqual(['minecraft:pig', 'minecraft:cow', 'minecraft:zombie', 'minecraft:chicken', 'minecraft:item', 'minecraft:chest_minecart', 'minecraft:tnt']);
    expect(recorded[5].nbt).toContain('"Items":[{"Slot":0b,"id":"minecraft:diamond","count":3}]');
    expect(recorded[6].nbt).toContain('"fuse":80s');
    expect((await lab.client.command('tick query'))[0]).toBe('The game is running normally');
    await lab.client.command('tick freeze');
    expect((await lab.client.command('forceload add -37 -20 29 57'))[0]).toMatch(/^Marked \d+ chunks in minecraft:overworld/);
    for (const line of recorded) {
      const output = await lab.client.command(`summon ${line.type} ${line.pos.map(coord).join(' ')} ${line.nbt}`);
      expect(output[0]).toMatch(/^Summoned new /);
    }
    const check = await lab.client.request('SNAPSHOT 0 restore-check');
    await lab.client.command('tick unfreeze');
    expect(check.orderHash).toBe(fork.orderHash);
    expect(lines(check.dir).map((l) => [l.uuid, l.pos, l.vel, l.nbt])).toEqual(recorded.map((l) => [l.uuid, l.pos, l.vel, l.nbt]));

    // the save holds no tick order: after a lab restart the same entities come back in chunk order
    await lab.sim.restart();
    const again = track((await LineClient.open(lab.sim.port)).client);
    const after = await again.request('SNAPSHOT 0 after-restart');
    expect(after.entities).toBe(recorded.length);
    expect(new Set(lines(after.dir).map((l) => l.uuid))).toEqual(new Set(recorded.map((l) => l.uuid)));
    expect(after.orderHash).not.toBe(fork.orderHash);
    expect(after.orderHash).toBe(orderHash(lines(after.dir).map((l) => l.uuid)));
  });
});

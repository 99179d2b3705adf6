import { beforeEach, describe, expect, it } from 'vitest';
import type { SimulatedMod } from '../../../core/sim/index.js';
import { type Json, type LineClient, useSims } from '../../support/line-client.js';

const sims = useSims();
let sim: SimulatedMod;
let client: LineClient;

beforeEach(async () => {
  ({ sim, client } = await sims.start());
});

/** Sends CMD and returns the ack plus the game events pushed with it. */
async function cmd(command: string): Promise<{ ack: Json; games: string[] }> {
  client.send(`CMD ${command}`);
  const games: string[] = [];
  for (;;) {
    const message = await client.next();
    if (message.event && message.type === 'game') games.push(message.text);
    else if (!message.event) return { ack: message, games };
  }
}

const output = async (command: string) => (await cmd(command)).ack.output as string[];

describe('CMD envelope', () => {
  it('strips one leading slash, shows it in detail, and pushes one game event per line', async () => {
    const { ack, games } = await cmd('/save-all flush');
    expect(ack).toEqual({
      type: 'cmd_ack',
      millis: expect.any(Number),
      detail: 'save-all flush',
      output: ['Saving the game (this may take a moment!)', 'Saved the game'],
    });
    expect(games).toEqual(ack.output);
  });

  it('answers COMMAND alias and any-case verb; bare CMD is unknown', async () => {
    client.send('command time query daytime');
    expect((await client.nextNonEvent()).output).toEqual(['The time is 1000']);
    expect((await client.request('CMD')).message).toBe('unknown command: CMD');
  });

  it('treats unknown and malformed commands as a cmd_ack with vanilla failure text', async () => {
    expect(await output('frobnicate now')).toEqual(['Unknown or incomplete command, see below for error', 'frobnicate now<--[HERE]']);
    expect(await output('time query')).toEqual(['Unknown or incomplete command, see below for error', 'time query<--[HERE]']);
    expect(await output('time query weekday')).toEqual(['Incorrect argument for command', '...ime query weekday<--[HERE]']);
  });

  it('sends no game events when events:game is not advertised', async () => {
    sim.setCapabilities(['command']);
    const { ack, games } = await cmd('list');
    expect(ack.output).toHaveLength(1);
    expect(games).toEqual([]);
  });
});

describe('world commands', () => {
  it('save-off and save-on toggle, and refuse a repeat', async () => {
    expect(await output('save-off')).toEqual(['Automatic saving is now disabled']);
    expect(await output('save-off')).toEqual(['Saving is already turned off']);
    expect(await output('save-on')).toEqual(['Automatic saving is now enabled']);
    expect(sim.world.saveEnabled).toBe(true);
  });

  it('time query, set and add', async () => {
    expect(await output('time set noon')).toEqual(['Set the time to 6000']);
    expect(await output('time query daytime')).toEqual(['The time is 6000']);
    expect(await output('time add 20000')).toEqual(['Set the time to 2000']);
    expect(await output('time query day')).toEqual(['The time is 1']);
    expect(await output('time set 1d')).toEqual(['Set the time to 24000']);
  });

  it('list names the online players', async () => {
    expect(await output('list')).toEqual(['There are 1 of a max of 20 players online: Steve']);
    sim.addPlayer({ name: 'Alex', x: 0, y: 64, z: 0 });
    expect(await output('list')).toEqual(['There are 2 of a max of 20 players online: Steve, Alex']);
    expect((await output('list uuids'))[0]).toMatch(/^There are 2 of a max of 20 players online: Steve \(5c0ad0c4-[^)]+\), Alex \([0-9a-f-]{36}\)$/);
  });

  it('gamemode sets the mode of a named player and needs a player from the console', async () => {
    expect(await output('gamemode creative Steve')).toEqual(["Set Steve's game mode to Creative Mode"]);
    expect((await client.request('PLAYER Steve')).player.gameMode).toBe('creative');
    expect(await output('gamemode creative Steve')).toEqual([]);
    expect(await output('gamemode creative')).toEqual(['A player is required to run this command here']);
    expect(await output('gamemode flying Steve')).toEqual(['Unknown game mode: flying', 'gamemode flying Steve<--[HERE]']);
    expect((await output('gamemode survival @e'))[0]).toBe('Only players may be affected by this command, but the provided selector includes entities');
  });

  it('weather, forceload and setblock answer with vanilla lines', async () => {
    expect(await output('weather clear')).toEqual(['Set the weather to clear']);
    expect(await output('forceload add 0 0')).toEqual(['Marked chunk [0, 0] in minecraft:overworld to be force loaded']);
    expect(await output('forceload add 0 0')).toEqual(['No chunks were marked for force loading']);
    expect(await output('forceload add -16 -16 31 15')).toEqual(['Marked 5 chunks in minecraft:overworld from [-1, -1] to [1, 0] to be force loaded']);
    expect(await output('forceload query')).toEqual(['6 force loaded chunks were found in minecraft:overworld at: [0, 0], [-1, -1], [-1, 0], [0, -1], [1, -1], [1, 0]']);
    expect(await output('forceload remove 0 0')).toEqual(['Unmarked chunk [0, 0] in minecraft:overworld for force loading']);
    expect(await output('forceload remove all')).toEqual(['Unmarked all force loaded chunks in minecraft:overworld']);
    expect(await output('setblock 0 63 -2 minecraft:gold_block')).toEqual(['Changed the block at 0, 63, -2']);
    expect((await client.request('PLAYER Steve')).view.target.block).toMatchObject({ id: 'minecraft:gold_block', name: 'Gold Block' });
  });

  it('say from the console answers `[Server] <text>` as the mod does: the feedback line and its game event, no chat event', async () => {
    const { ack, games } = await cmd('say hello there');
    expect(ack.output).toEqual(['[Server] hello there']);
    expect(games).toEqual(['[Server] hello there']);
    expect(await client.drain(50)).toEqual([]);
    expect((await output('say'))[0]).toMatch(/^Unknown or incomplete command/);
  });
});

describe('entity commands', () => {
  it('summon creates an entity at centred integer coordinates, honouring NBT UUID and Motion', async () => {
    const uuid = '069a79f4-44e9-4726-a5be-fca90e38aaf5';
    const { ack, games } = await cmd('summon minecraft:pig 10 64 -3 {UUID:[I;110787060,1156138790,-1514210135,238594805],Motion:[0.5d,0.0d,-0.25d],Health:7.5f}');
    expect(ack.output).toEqual(['Summoned new Pig']);
    expect(games).toEqual(['Summoned new Pig']);
    const pig = sim.world.findByUuid(uuid)!;
    expect(pig).toMatchObject({ x: 10.5, y: 64, z: -2.5, vx: 0.5, vy: 0, vz: -0.25, health: 7.5 });
    const entities = (await client.request('ENTITIES')).entities;
    expect(entities[entities.length - 1].uuid).toBe(uuid); // spawned last in tick order
    expect(await output(`summon pig 0 64 0 {UUID:[I;110787060,1156138790,-1514210135,238594805]}`)).toEqual(['Unable to summon entity due to duplicate UUIDs']);
  });

  it('summon refuses unknown types and bad NBT with a context line', async () => {
    expect(await output('summon minecraft:dragonfly')).toEqual(["Can't find element 'minecraft:dragonfly' of type 'minecraft:entity_type'", 'summon minecraft:dragonfly<--[HERE]']);
    expect((await output('summon pig 0 64 0 {Health:}'))[0]).toBe('Expected value');
    expect((await output('summon pig 0 64'))[0]).toBe('Incomplete (expected 3 coordinates)');
  });

  it('summon with Passengers mounts them; records link vehicle and passenger ids', async () => {
    expect(await output('summon minecraft:horse 5 64 5 {Passengers:[{id:"minecraft:zombie"}]}')).toEqual(['Summoned new Horse']);
    const horse = sim.world.entities.find((e) => e.type === 'minecraft:horse')!;
    expect(horse.passengers.map((p) => p.type)).toEqual(['minecraft:zombie']);
    const records = (await client.request('ENTITIES')).entities as Json[];
    const horseRecord = records.find((r) => r.type === 'minecraft:horse')!;
    const rider = records.find((r) => r.vehicle === horseRecord.id)!;
    expect(horseRecord).toMatchObject({ isVehicle: true, passengers: [rider.id] });
  });

  it('kill by selector, name, uuid; fails with "No entity was found"', async () => {
    expect(await output('kill @e[type=minecraft:pig]')).toEqual(['Killed Pig']);
    await output('summon cow 10 64 10');
    expect(await output('kill @e[type=cow]')).toEqual(['Killed 2 entities']);
    expect(await output('kill @e[type=cow]')).toEqual(['No entity was found']);
    expect(await output('kill @e[type=zombie,x=6,y=64,z=-5,distance=..1]')).toEqual(['Killed Zombie']);
    expect(await output('kill 4c9d6f5b-1e7a-4cad-b138-6f5e4d3c2b1a')).toEqual(['Killed Chicken']);
    expect(await output('kill @e[type=!player]')).toEqual(['Killed Diamond']);
    expect(await output('kill Nobody')).toEqual(['No entity was found']);
    expect(await output('kill')).toEqual(['An entity is required to run this command here']);
    expect((await output('kill @e[colour=red]'))[0]).toBe("Unknown option 'colour'");
    expect((await client.request('ENTITIES')).entities.map((e: Json) => e.type)).toEqual(['minecraft:player']);
  });

  it('kill on a player respawns it at world spawn', async () => {
    await output('tp Steve 100 70 100');
    expect(await output('kill Steve')).toEqual(['Killed Steve']);
    expect((await client.request('STATE')).playerList[0]).toMatchObject({ name: 'Steve', x: 0.5, y: 64, z: 0.5 });
  });

  it('data get entity prints vanilla pretty SNBT', async () => {
    expect(await output('data get entity Steve Motion')).toEqual(['Steve has the following entity data: [0.0d, -0.0784000015258789d, 0.0d]']);
    expect(await output('data get entity Steve Pos')).toEqual(['Steve has the following entity data: [0.5d, 64.0d, 0.5d]']);
    expect(await output('data get entity @e[type=pig,limit=1] Health')).toEqual(['Pig has the following entity data: 10.0f']);
    expect(await output('data get entity @e[type=item,limit=1] Item.id')).toEqual(['Diamond has the following entity data: "minecraft:diamond"']);
    expect(await output('data get entity @e[type=pig,limit=1] Motion[1]')).toEqual(['Pig has the following entity data: -0.0784000015258789d']);
    expect(await output('data get entity @e[type=pig,limit=1] Health 10')).toEqual(['Health in Pig after scale factor of 10.0 is 100']);
    expect(await output('data get entity Steve Nope')).toEqual(['Found no elements matching Nope']);
    expect((await output('data get entity @e Pos'))[0]).toBe('Only one entity is allowed, but the provided selector allows more than one');
    const whole = (await output('data get entity @e[type=cow,limit=1]'))[0];
    expect(whole).toMatch(/^Cow has the following entity data: \{AbsorptionAmount: 0\.0f, Air: 300s, .*UUID: \[I; 712723775, -1671542133, -1894363844, 723128222\], fall_distance: 0\.0d\}$/);
  });

  it('tp moves entities to coordinates or to another entity', async () => {
    expect(await output('tp Steve 1 70.25 -2')).toEqual(['Teleported Steve to 1.500000, 70.250000, -1.500000']);
    expect(await output('teleport @e[type=pig] Steve')).toEqual(['Teleported Pig to Steve']);
    expect(sim.world.entities[0]).toMatchObject({ type: 'minecraft:pig', x: 1.5, y: 70.25, z: -1.5 });
    expect(await output('tp @e[type=!player] 0 80 0')).toEqual(['Teleported 5 entities to 0.500000, 80.000000, 0.500000']);
    expect(await output('tp 1 2 3')).toEqual(['An entity is required to run this command here']);
  });
});

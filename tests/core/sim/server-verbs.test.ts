import { beforeEach, describe, expect, it } from 'vitest';
import { RESTING_VY, STEVE_UUID, type SimulatedMod } from '../../../core/sim/index.js';
import { type LineClient, useSims } from '../../support/line-client.js';

const sims = useSims();
let sim: SimulatedMod;
let client: LineClient;

beforeEach(async () => {
  ({ sim, client } = await sims.start());
});

describe('reader-thread verbs', () => {
  it('PING answers pong with t and no millis; extra text makes it unknown', async () => {
    const pong = await client.request('PING');
    expect(Object.keys(pong)).toEqual(['type', 't']);
    expect((await client.request('PING now')).message).toBe('unknown command: PING now');
  });

  it('ECHO keeps the text after the first space as is; bare ECHO is unknown', async () => {
    expect(await client.request('ECHO  two  spaces')).toEqual({ type: 'echo_ack', millis: expect.any(Number), detail: ' two  spaces' });
    expect((await client.request('ECHO')).message).toBe('unknown command: ECHO');
  });

  it('CAPS and its aliases report instance, protocol and version', async () => {
    for (const verb of ['CAPS', 'capabilities', 'CAPS_GET']) {
      const caps = await client.request(verb);
      expect(Object.keys(caps)).toEqual(['type', 'millis', 'protocol', 'mod', 'version', 'instance', 'capabilities']);
      expect(caps).toMatchObject({ type: 'capabilities', protocol: 1, version: '0.8.0', instance: 'server' });
    }
  });

  it('MARK acks and broadcasts a mark event; bare MARK (even with trailing space) is unknown', async () => {
    client.send('MARK experiment 3 begins');
    expect(await client.next()).toEqual({ type: 'mark_ack', millis: expect.any(Number), detail: 'experiment 3 begins' });
    expect(await client.next()).toEqual({ type: 'mark', millis: expect.any(Number), text: 'experiment 3 begins', event: true });
    expect((await client.request('MARK ')).message).toBe('unknown command: MARK');
  });

  it('lists no other verbs: FREEZE, SAY, TICK, SNAPSHOTX, PLAYERX, CONTEXT_STATS x are unknown', async () => {
    for (const line of ['FREEZE', 'SAY hi', 'TICK', 'SAVE', 'SNAPSHOTX', 'PLAYERX Steve', 'CONTEXT_STATS x', 'CHAT hi']) {
      expect((await client.request(line)).message).toBe(`unknown command: ${line}`);
    }
  });
});

describe('STATE', () => {
  it('has the documented shape with a worldDir ending in /. and per-level counts', async () => {
    sim.tick(3);
    const line = await client.requestRaw('state_get');
    const state = JSON.parse(line);
    expect(Object.keys(state)).toEqual([
      'type',
      'millis',
      'instance',
      'protocol',
      'modVersion',
      'tick',
      'inWorld',
      'levelName',
      'worldDir',
      'players',
      'serverVersion',
      'playerList',
      'levels',
      'samePortSpike',
      'control',
    ]);
    expect(state).toMatchObject({ type: 'state', instance: 'server', tick: 3, inWorld: true, levelName: 'world', players: 1 });
    expect(state.worldDir).toBe(`${sim.dir}/world/.`);
    expect(state.levels).toEqual([
      { dimension: 'minecraft:overworld', entities: 6 },
      { dimension: 'minecraft:the_nether', entities: 0 },
      { dimension: 'minecraft:the_end', entities: 0 },
    ]);
    expect(line).toContain(`"playerList":[{"name":"Steve","uuid":"${STEVE_UUID}","x":0.5,"y":64.0,"z":0.5,"dimension":"minecraft:overworld"}]`);
    expect(line).toContain('"samePortSpike":{"enabled":false,"transport":"same-port-spike","allowRemote":false,"sessions":0,"open":[]},"control":{"enabled":false,"transport":"same-port-tls"}');
  });

  it('STATE with arguments is unknown', async () => {
    expect((await client.request('STATE now')).message).toBe('unknown command: STATE now');
  });
});

describe('ENTITIES', () => {
  it('lists the primary level in tick order with players included', async () => {
    const reply = await client.request('ENTITIES');
    expect(reply).toMatchObject({ type: 'entities', instance: 'server', tick: 0, radius: 0, dimension: 'minecraft:overworld' });
    expect(Object.keys(reply)).toEqual(['type', 'millis', 'instance', 'tick', 'radius', 'dimension', 'entities']);
    expect(reply.entities.map((e: { type: string }) => e.type)).toEqual(['minecraft:pig', 'minecraft:cow', 'minecraft:zombie', 'minecraft:chicken', 'minecraft:item', 'minecraft:player']);
    const steve = reply.entities[5];
    expect(steve).toMatchObject({ name: 'Steve', gameMode: 'survival', class: 'ServerPlayer', vehicle: -1, vy: RESTING_VY });
  });

  it('writes entity records with the field order of the mod and Java doubles', async () => {
    const line = await client.requestRaw('ENTITIES');
    expect(line).toContain('"radius":0.0,"dimension":"minecraft:overworld"');
    expect(line).toContain(
      '{"id":1,"uuid":"1f6a3c2e-8b4d-4f7a-9e05-3c2b1a0f9e8d","type":"minecraft:pig","class":"Pig","x":3.5,"y":64.0,"z":2.5,' +
        '"vx":0.0,"vy":-0.0784000015258789,"vz":0.0,"yaw":90.0,"pitch":0.0,"alive":true,"removed":false,"invulnerable":false,' +
        '"onGround":true,"vehicle":-1,"isVehicle":false,"passengers":[],"health":10.0,"maxHealth":10.0,"bodyEmpty":true}',
    );
    // The item is not living: no health fields.
    expect(line).toMatch(/"type":"minecraft:item","class":"ItemEntity",[^}]*"passengers":\[\]\}/);
  });

  it('filters by 3-D distance from the first player, boundary inclusive, and echoes the radius', async () => {
    // The item sits at distance sqrt(1.75^2 + 2.25^2) = 2.850… from Steve.
    const reply = await client.request('ENTITY_LIST 2.8504385627478448');
    expect(reply.radius).toBe(2.8504385627478448);
    expect(reply.entities.map((e: { type: string }) => e.type)).toEqual(['minecraft:item', 'minecraft:player']);
    expect((await client.request('ENTITIES 2.85')).entities.map((e: { type: string }) => e.type)).toEqual(['minecraft:player']);
    const negative = await client.requestRaw('ENTITIES -5');
    expect(negative).toContain('"radius":-5.0');
    expect(JSON.parse(negative).entities).toHaveLength(6);
  });

  it('reports bad numbers and radius without players', async () => {
    expect((await client.request('ENTITIES x')).message).toBe('bad command: java.lang.NumberFormatException: For input string: "x"');
    sim.removePlayer('Steve');
    expect((await client.request('ENTITIES 5')).message).toBe('a radius needs at least one player; use ENTITIES for everything');
    expect((await client.request('ENTITIES')).entities).toHaveLength(5);
  });

  it('follows the first player into its dimension', async () => {
    client.send('CMD summon pig 0 64 0'); // overworld
    await client.nextNonEvent();
    sim.removePlayer('Steve');
    sim.addPlayer({ name: 'Alex', x: 0, y: 70, z: 0, dimension: 'minecraft:the_nether' });
    sim.summon({ type: 'minecraft:zombie', x: 1, y: 70, z: 1, dimension: 'minecraft:the_nether' });
    const reply = await client.request('ENTITIES');
    expect(reply.dimension).toBe('minecraft:the_nether');
    expect(reply.entities.map((e: { type: string }) => e.type)).toEqual(['minecraft:player', 'minecraft:zombie']);
  });
});

describe('PLAYER', () => {
  it('finds by name in any case, with the true game mode, dimension, eye and a view block', async () => {
    sim.world.players[0].player!.gameMode = 'adventure';
    const line = await client.requestRaw('PLAYER_GET steve');
    const reply = JSON.parse(line);
    expect(reply).toMatchObject({ type: 'player', instance: 'server', protocol: 1, modVersion: '0.8.0', query: 'steve', found: true, matchedBy: 'name' });
    expect(reply.player).toMatchObject({ name: 'Steve', gameMode: 'adventure', dimension: 'minecraft:overworld', eye: [0.5, 65.62, 0.5] });
    expect(Object.keys(reply.player).slice(-4)).toEqual(['name', 'gameMode', 'dimension', 'eye']);
    expect(line).toContain('"view":{"eye":[0.5,65.62,0.5],"direction":[-0.0,-0.7071,-0.7071],"blockRange":4.5,"entityRange":3.0,');
    expect(reply.view.target).toEqual({
      hit: [0.5, 64, -1.12],
      distance: 2.291,
      type: 'block',
      block: { x: 0, y: 63, z: -2, id: 'minecraft:stone', name: 'Stone', face: 'up', inside: false },
    });
    // ENTITIES still says survival for an adventure-mode player.
    expect((await client.request('ENTITIES')).entities[5].gameMode).toBe('survival');
  });

  it('matches a dashed or 32-hex UUID of an online player', async () => {
    expect((await client.request(`PLAYER ${STEVE_UUID}`)).matchedBy).toBe('uuid');
    expect((await client.request(`PLAYER_STATE ${STEVE_UUID.replace(/-/g, '').toUpperCase()}`)).matchedBy).toBe('uuid');
  });

  it('targets the nearest entity in range, and misses beyond the ranges', async () => {
    sim.summon({ type: 'minecraft:pig', x: 0.5, y: 64, z: -0.5 }); // under Steve's gaze
    const entity = (await client.request('PLAYER Steve')).view.target;
    expect(entity.type).toBe('entity');
    expect(entity.entity).toMatchObject({ type: 'minecraft:pig', class: 'Pig' });
    sim.world.players[0].pitch = 0; // looking at the horizon: nothing within reach
    const miss = (await client.request('PLAYER Steve')).view.target;
    expect(miss).toEqual({ hit: [0.5, 65.62, -4], distance: 4.5, type: 'miss' });
  });

  it('leaves the view block out without player:view', async () => {
    sim.setCapabilities(['player']);
    expect((await client.request('PLAYER Steve')).view).toBeUndefined();
  });

  it('answers found:false for unknown players and errors on bare PLAYER', async () => {
    const missing = await client.request('PLAYER ghost');
    expect(Object.keys(missing)).toEqual(['type', 'millis', 'instance', 'protocol', 'modVersion', 'tick', 'query', 'found', 'error']);
    expect(missing).toMatchObject({ found: false, error: 'no online player matches ghost' });
    expect((await client.request('player')).message).toBe('PLAYER needs a player uuid or name');
  });
});

describe('WAIT', () => {
  it('acks at once for n <= 0 and rejects bad numbers', async () => {
    expect(await client.request('WAIT 0')).toEqual({ type: 'wait_ack', millis: expect.any(Number), detail: 'ticks=0' });
    expect(await client.request('WAIT -3')).toMatchObject({ detail: 'ticks=0' });
    expect((await client.request('WAIT abc')).message).toBe('bad command: java.lang.NumberFormatException: For input string: "abc"');
    expect((await client.request('WAIT')).message).toBe('unknown command: WAIT');
  });
});

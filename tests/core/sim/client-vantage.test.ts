import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_CAPABILITIES, startSim, type SimOptions, type SimulatedMod } from '../../../core/sim/index.js';
import { LineClient, until, type Json } from '../../support/line-client.js';

let sim: SimulatedMod | undefined;
let client: LineClient | undefined;

afterEach(async () => {
  client?.close();
  await sim?.stop();
  sim = undefined;
});

async function open(options: SimOptions = {}): Promise<{ s: SimulatedMod; c: LineClient; hello: Json }> {
  sim = await startSim({ vantage: 'client', autoTick: false, ...options });
  const opened = await LineClient.open(sim.port);
  client = opened.client;
  return { s: sim, c: client, hello: opened.hello };
}

/** Client requests run on the next client tick: send, wait until read, tick once, read the reply. */
async function ask(s: SimulatedMod, c: LineClient, line: string): Promise<Json> {
  const seen = s.received.length;
  c.send(line);
  await until(() => s.received.length > seen);
  s.tick();
  return c.nextNonEvent();
}

describe('client vantage', () => {
  it('greets as instance client in mc-agent/ and CAPS has no instance', async () => {
    const { s, c, hello } = await open();
    expect(hello).toMatchObject({ instance: 'client', capabilities: CLIENT_CAPABILITIES });
    expect(fs.readFileSync(`${s.dir}/mc-agent/port.txt`, 'utf8')).toBe(String(s.port));
    const startup = JSON.parse(fs.readFileSync(s.eventsFile, 'utf8').trim());
    expect(startup.text).toBe(`mc-agent-interface started port=${s.port}`);
    const caps = await ask(s, c, 'CAPS');
    expect(Object.keys(caps)).toEqual(['type', 'millis', 'protocol', 'mod', 'version', 'capabilities']);
  });

  it('queues requests until the next tick, except PING, ECHO and MARK', async () => {
    const { s, c } = await open();
    c.send('STATE', 'PING');
    expect((await c.next()).type).toBe('pong');
    await until(() => s.received.length === 2);
    expect(await c.drain(40)).toEqual([]);
    s.tick();
    expect((await c.next()).type).toBe('state');
  });

  it('STATE has the client shape with a ResourceKey dimension', async () => {
    const { s, c } = await open();
    const line = JSON.stringify(await ask(s, c, 'STATE'));
    const state = JSON.parse(line);
    expect(Object.keys(state)).toEqual([
      'type',
      'millis',
      'protocol',
      'modVersion',
      'tick',
      'clients',
      'bridgePort',
      'inWorld',
      'name',
      'x',
      'y',
      'z',
      'vx',
      'vy',
      'vz',
      'yaw',
      'pitch',
      'health',
      'onGround',
      'dimension',
      'entityCount',
      'server',
    ]);
    expect(state).toMatchObject({ tick: 1, clients: 1, bridgePort: s.port, inWorld: true, name: 'Steve', entityCount: 6, server: 'null' });
    expect(state.dimension).toBe('ResourceKey[minecraft:dimension / minecraft:overworld]');
  });

  it('out of a world: STATE without player fields, empty ENTITIES, CMD and CHAT refused, WORLD opens one', async () => {
    const { s, c } = await open({ inWorld: false });
    const state = await ask(s, c, 'STATE');
    expect(Object.keys(state)).toEqual(['type', 'millis', 'protocol', 'modVersion', 'tick', 'clients', 'bridgePort', 'inWorld', 'server']);
    expect((await ask(s, c, 'ENTITIES')).entities).toEqual([]);
    expect((await ask(s, c, 'CMD time query daytime')).message).toBe('no server connection');
    expect((await ask(s, c, 'SAY hi')).message).toBe('no server connection');
    expect((await ask(s, c, 'SCREEN')).screen).toBe('net.minecraft.client.gui.screens.TitleScreen');
    expect(await ask(s, c, 'WORLD New World')).toEqual({ type: 'world_ack', millis: expect.any(Number), detail: 'New World' });
    expect((await ask(s, c, 'WORLD Other')).message).toBe('already in a world');
    expect((await ask(s, c, 'SCREEN')).screen).toBe('null');
  });

  it('ENTITIES has no instance or dimension; the local player is LocalPlayer', async () => {
    const { s, c } = await open();
    const reply = await ask(s, c, 'ENTITIES 3');
    expect(Object.keys(reply)).toEqual(['type', 'millis', 'tick', 'radius', 'entities']);
    expect(reply.entities.map((e: Json) => e.class)).toEqual(['ItemEntity', 'LocalPlayer']);
    expect((await c.request('ENTITIES x')).message).toBe('bad command: java.lang.NumberFormatException: For input string: "x"');
  });

  it('CMD acks without output; feedback arrives later as game events with overlay', async () => {
    const { s, c } = await open();
    c.send('CMD /time query daytime');
    await until(() => s.received.length === 1);
    s.tick();
    expect(await c.next()).toEqual({ type: 'cmd_ack', millis: expect.any(Number), detail: 'time query daytime' });
    expect(await c.next()).toEqual({ type: 'game', millis: expect.any(Number), text: 'The time is 1001', overlay: false, event: true });
  });

  it('CHAT keeps its raw text and the message comes back as a chat event with a sender', async () => {
    const { s, c } = await open();
    expect(await ask(s, c, 'SAY  two spaces')).toEqual({ type: 'chat_ack', millis: expect.any(Number), detail: ' two spaces' });
    const event = await c.nextEvent('chat');
    expect(event.text).toBe('<Steve>  two spaces');
    expect(event.sender).toMatch(/^GameProfile\[id=5c0ad0c4-.*name=Steve/);
  });

  it('WAIT answers on the next tick whatever n is', async () => {
    const { s, c } = await open();
    expect(await ask(s, c, 'WAIT 100')).toEqual({ type: 'wait_ack', millis: expect.any(Number), detail: 'ticks=0' });
    expect((await c.request('WAIT x')).message).toBe('bad command: java.lang.NumberFormatException: For input string: "x"');
  });

  it('SAMPLE_START matches by prefix, clamps, records to samples.jsonl and reports progress', async () => {
    const { s, c } = await open();
    expect(await ask(s, c, 'SAMPLE_STARTX 0 32 0')).toEqual({ type: 'sample_start_ack', millis: expect.any(Number), detail: 'ticks=1' });
    expect((await c.nextEvent('sample_start')).text).toBe('ticks=1 radius=32.0 interval=1');
    expect((await c.nextEvent('sample_done')).text).toBe('samples=1');
    await ask(s, c, 'RECORD_START 45');
    s.tick(19);
    expect((await c.nextEvent('sample_progress')).text).toBe('sampled=20');
    expect(await ask(s, c, 'SAMPLE_STOP')).toEqual({ type: 'sample_stop_ack', millis: expect.any(Number), detail: 'samples=20' });
    expect(fs.readFileSync(s.samplesFile, 'utf8').trim().split('\n')).toHaveLength(21);
    expect((await c.request('SAMPLE_START x')).message).toBe('bad command: java.lang.NumberFormatException: For input string: "x"');
  });

  it('LAN publishes once, then polls; mode words are checked', async () => {
    const { s, c } = await open();
    expect((await ask(s, c, 'LAN 25570 offline')).detail).toBe('port=25570 address=127.0.0.1 gamemode=survival cheats=false online=false');
    expect((await c.nextEvent('lan')).text).toBe('port=25570 address=127.0.0.1');
    expect((await ask(s, c, 'LAN')).detail).toBe('port=25570 address=127.0.0.1 online=false');
    expect((await c.request('LAN 1 maybe')).message).toBe('bad command: java.lang.IllegalArgumentException: expected online or offline, got maybe');
    expect((await c.request('LAN x')).message).toBe('bad command: java.lang.NumberFormatException: For input string: "x"');
  });

  it('LAN needs a single-player world; CONNECT joins a server', async () => {
    const { s, c } = await open({ inWorld: false });
    expect((await ask(s, c, 'LAN')).message).toBe('no single-player world is open');
    expect(await ask(s, c, 'CONNECT mc.example.org:25565')).toEqual({ type: 'connect_ack', millis: expect.any(Number), detail: 'mc.example.org:25565' });
    expect((await ask(s, c, 'STATE')).server).toMatch(/^net\.minecraft\.client\.multiplayer\.ServerData@[0-9a-f]+$/);
    expect((await ask(s, c, 'LAN')).message).toBe('no single-player server');
  });

  it('has no PLAYER, CONTEXT or SNAPSHOT verbs', async () => {
    const { c } = await open();
    for (const line of ['PLAYER Steve', 'CONTEXT', 'CONTEXT ctx-1', 'SNAPSHOT', 'SNAPSHOTS']) {
      expect((await c.request(line)).message).toBe(`unknown command: ${line}`);
    }
  });

  it('scripted chat from another player arrives as a chat event', async () => {
    const { s, c } = await open();
    s.addPlayer({ name: 'Alex', x: 3, y: 64, z: 3 });
    s.chat('Alex', 'hey');
    expect(await c.next()).toMatchObject({ type: 'chat', text: '<Alex> hey', event: true });
  });
});

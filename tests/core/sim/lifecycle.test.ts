import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultWorld, startSim, type SimulatedMod } from '../../../core/sim/index.js';
import { LineClient, until } from '../../support/line-client.js';

const sims: SimulatedMod[] = [];
const blockers: net.Server[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const s of sims.splice(0)) await s.stop();
  for (const b of blockers.splice(0)) await new Promise((r) => b.close(r));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startSim>[0]): Promise<SimulatedMod> {
  const s = await startSim(options);
  sims.push(s);
  return s;
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-test-'));
  dirs.push(dir);
  return dir;
}

function occupy(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      blockers.push(server);
      resolve();
    });
  });
}

describe('lifecycle', () => {
  it('restart hangs up clients, resets tick, rebinds on a new port and rewrites port.txt', async () => {
    const dir = tempDir();
    const s = await start({ dir, autoTick: false });
    expect(s.modDir).toBe(path.join(dir, 'mc-agent-server'));
    const { client } = await LineClient.open(s.port);
    s.tick(5);
    const oldPort = s.port;
    const oldIds = s.world.entities.map((e) => e.id);
    const blocker = new net.Server();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const newPort = (blocker.address() as net.AddressInfo).port;
    await new Promise((r) => blocker.close(r));
    await s.restart({ port: newPort });
    await until(() => client.closed);
    expect(s.port).toBe(newPort);
    expect(s.port).not.toBe(oldPort);
    expect(fs.readFileSync(path.join(dir, 'mc-agent-server', 'port.txt'), 'utf8')).toBe(String(newPort));
    const { client: again, hello } = await LineClient.open(newPort);
    expect(hello.port).toBe(newPort);
    expect((await again.request('STATE')).tick).toBe(0);
    // Runtime entity ids change across a server start; the tick order stays.
    expect(s.world.entities.map((e) => e.id)).not.toEqual(oldIds);
    const hellos = fs
      .readFileSync(s.eventsFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'hello');
    expect(hellos.map((e) => e.text)).toEqual([`mc-agent-interface server started port=${oldPort} dir=${s.modDir}`, `mc-agent-interface server started port=${newPort} dir=${s.modDir}`]);
    again.close();
    await expect(LineClient.connect(oldPort)).rejects.toThrow();
  });

  it('walks basePort..basePort+19 like the mod', async () => {
    // Other suites take ephemeral ports concurrently: retry until two neighbours are ours.
    let base = 0;
    for (let attempt = 0; attempt < 20 && base === 0; attempt += 1) {
      const probe = net.createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
      const candidate = (probe.address() as net.AddressInfo).port;
      await new Promise((r) => probe.close(r));
      if (candidate > 65535 - 20) continue;
      try {
        await occupy(candidate);
        await occupy(candidate + 1);
        base = candidate;
      } catch {
        for (const b of blockers.splice(0)) await new Promise((r) => b.close(r));
      }
    }
    expect(base).toBeGreaterThan(0);
    const s = await start({ basePort: base, autoTick: false });
    // base and base+1 are taken; the first free one after them (normally base+2) wins.
    expect(s.port).toBeGreaterThanOrEqual(base + 2);
    expect(s.port).toBeLessThanOrEqual(base + 19);
    expect(fs.readFileSync(s.portFile, 'utf8')).toBe(String(s.port));
  });

  it('stops cleanly: the port closes, a given dir stays', async () => {
    const dir = tempDir();
    const s = await startSim({ dir });
    const port = s.port;
    await s.stop();
    await expect(LineClient.connect(port)).rejects.toThrow();
    expect(fs.existsSync(path.join(dir, 'mc-agent-server', 'port.txt'))).toBe(true);
  });

  it('client vantage writes its files under <dir>/mc-agent', async () => {
    const dir = tempDir();
    const s = await start({ dir, vantage: 'client', autoTick: false });
    expect(fs.readFileSync(path.join(dir, 'mc-agent', 'port.txt'), 'utf8')).toBe(String(s.port));
    expect(fs.existsSync(path.join(dir, 'mc-agent', 'samples.jsonl'))).toBe(true);
  });
});

describe('default world and scripting', () => {
  it('defaultWorld() is fresh data each call, and options replace players or entities', async () => {
    const a = defaultWorld();
    a.players.length = 0;
    expect(defaultWorld().players).toHaveLength(1);
    const s = await start({ autoTick: false, players: [], entities: [] });
    const { client } = await LineClient.open(s.port);
    const state = await client.request('STATE');
    expect(state).toMatchObject({ players: 0, playerList: [] });
    expect(state.levels[0].entities).toBe(0);
    client.close();
  });

  it('the same seed gives the same generated UUIDs', async () => {
    const one = await start({ autoTick: false, seed: 42 });
    const two = await start({ autoTick: false, seed: 42 });
    const three = await start({ autoTick: false, seed: 43 });
    const uuid = (s: SimulatedMod) => s.summon({ type: 'minecraft:pig', x: 0, y: 64, z: 0 }).uuid;
    expect(uuid(one)).toBe(uuid(two));
    expect(uuid(one)).not.toBe(uuid(three));
  });

  it('addPlayer / removePlayer / summon script the world seen over the wire', async () => {
    const s = await start({ autoTick: false });
    const { client } = await LineClient.open(s.port);
    s.addPlayer({ name: 'Alex', x: 10, y: 70, z: 10, gameMode: 'creative', view: { type: 'block', pos: [10, 69, 12], face: 'north' } });
    const alex = await client.request('PLAYER alex');
    expect(alex.player).toMatchObject({ name: 'Alex', gameMode: 'creative' });
    expect(alex.view).toMatchObject({ blockRange: 5, entityRange: 5 });
    expect(alex.view.target).toMatchObject({ type: 'block', block: { x: 10, y: 69, z: 12, face: 'north', id: 'minecraft:stone' } });
    expect(s.removePlayer('STEVE')).toBe(true);
    expect((await client.request('STATE')).playerList.map((p: { name: string }) => p.name)).toEqual(['Alex']);
    client.close();
  });
});

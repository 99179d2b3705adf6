import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSnapshot, tickStateOf } from '../../plugins/snapshot/kit.js';
import { copyWorld, writeFailure } from '../../plugins/fork/copy-world.js';
import { FORK_MANIFEST } from '../../plugins/fork/run.js';
import type { McbridgeError } from '../../core/host/errors.js';
import { failure, sentSince, useStacks } from '../support/plugins.js';

const stacks = useStacks();
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-fork-'));
  temps.push(dir);
  return dir;
};

/** A live sim with a world folder of about `bytes` of region files. */
const live = (bytes = 4e6, sim: Record<string, unknown> = {}) => stacks.start({ sim: { autoTick: false, dir: tmp(), worldDisk: { bytes }, ...sim } });

function listFiles(root: string, dirs = false): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, e.name);
      if (e.isDirectory()) {
        if (dirs) out.push(child);
        walk(child);
      } else if (!dirs) out.push(child);
    }
  };
  walk('');
  return out.sort();
}

describe('copyWorld', () => {
  function world(): string {
    const src = path.join(tmp(), 'world');
    const files: Record<string, string> = {
      'level.dat': 'L',
      'session.lock': '☃',
      'region/r.0.0.mca': 'RR',
      'entities/r.0.0.mca': 'EEE',
      'poi/r.0.0.mca': 'P',
      'data/raids.dat': 'D',
      'playerdata/u.dat': 'x',
      'players/data/u.dat': 'x',
      'stats/u.json': 'x',
      'advancements/u.json': 'x',
      'logs/latest.log': 'x',
      'dimensions/minecraft/the_nether/entities/r.0.0.mca': 'E',
      'dimensions/minecraft/the_nether/region/r.0.0.mca': 'NN',
      'dimensions/minecraft/the_nether/Session.LOCK': 'x',
    };
    for (const [rel, body] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(src, rel)), { recursive: true });
      fs.writeFileSync(path.join(src, rel), body);
    }
    fs.utimesSync(path.join(src, 'region/r.0.0.mca'), 1_000_000, 1_000_000); // long ago: a copy with fresh times shows
    return src;
  }

  it('copies the world, reports files/bytes/skipped/stripped exactly, and skipped things never reach the target', async () => {
    const src = world();
    const dest = path.join(tmp(), 'copy');
    const manifest = await copyWorld(src, dest);
    expect(manifest).toEqual({
      files: 5,
      bytes: 1 + 2 + 1 + 1 + 2,
      skipped: ['advancements', 'dimensions/minecraft/the_nether/Session.LOCK', 'logs', 'playerdata', 'players', 'session.lock', 'stats'],
      stripped: ['dimensions/minecraft/the_nether/entities/r.0.0.mca', 'entities/r.0.0.mca'],
      followed: [],
    });
    expect(listFiles(dest)).toEqual(['data/raids.dat', 'dimensions/minecraft/the_nether/region/r.0.0.mca', 'level.dat', 'poi/r.0.0.mca', 'region/r.0.0.mca']);
    // Times are kept (to the millisecond Date carries), not set to the copy's time.
    const mtime = (root: string) => fs.statSync(path.join(root, 'region/r.0.0.mca')).mtimeMs;
    expect(Math.abs(mtime(dest) - mtime(src))).toBeLessThan(2);
  });

  it('streams the same bytes with method "stream"', async () => {
    const src = world();
    const dest = path.join(tmp(), 'copy');
    expect((await copyWorld(src, dest, { method: 'stream' })).files).toBe(5);
    expect(fs.readFileSync(path.join(dest, 'region/r.0.0.mca'), 'utf8')).toBe('RR');
  });

  it('refuses a missing world and a copy into itself; an empty world gives zeros and the target exists', async () => {
    const nope = path.join(tmp(), 'nope');
    const missing = await failure(copyWorld(nope, path.join(tmp(), 'x')));
    expect(missing).toMatchObject({ code: 'invalid_params', details: { src: nope } });
    expect(missing.message).toMatch(/does not exist/);
    const src = world();
    expect(await failure(copyWorld(src, src))).toMatchObject({ code: 'invalid_params', details: { src, dest: src } });
    await expect(copyWorld(src, src)).rejects.toThrow(/into itself/);
    await expect(copyWorld(src, path.join(src, 'fork'))).rejects.toThrow(/into itself/);
    const empty = tmp();
    const dest = path.join(tmp(), 'copy');
    expect(await copyWorld(empty, dest)).toEqual({ files: 0, bytes: 0, skipped: [], stripped: [], followed: [] });
    expect(fs.statSync(dest).isDirectory()).toBe(true);
  });
});

describe('copyWorld: the copy itself', () => {
  it('makes the same folders (and only those) under a new parent, with progress from zero to the total', async () => {
    const src = path.join(tmp(), 'world');
    for (const [rel, body] of Object.entries({ 'level.dat': 'L', 'region/r.0.0.mca': 'RR', 'entities/notes.txt': 'NOTES', 'data/empty/.keep': '', 'logs/latest.log': 'x' })) {
      fs.mkdirSync(path.dirname(path.join(src, rel)), { recursive: true });
      fs.writeFileSync(path.join(src, rel), body);
    }
    const dest = path.join(tmp(), 'not', 'yet', 'copy');
    const seen: Array<[unknown, unknown]> = [];
    const manifest = await copyWorld(src, dest, { onProgress: (done, total) => seen.push([done, total]) });
    // Only `.mca` files under entities/ are entity storage; other files there are copied.
    expect(manifest).toEqual({ files: 4, bytes: 1 + 2 + 5, skipped: ['logs'], stripped: [], followed: [] });
    expect(listFiles(dest, true)).toEqual(['data', 'data/empty', 'entities', 'region']);
    expect(seen[0]).toEqual([
      { files: 0, bytes: 0 },
      { files: 4, bytes: 8 },
    ]);
    expect(seen.at(-1)).toEqual([
      { files: 4, bytes: 8 },
      { files: 4, bytes: 8 },
    ]);
    expect(seen).toHaveLength(5);
  });

  it('a socket in the world is listed as skipped, not copied', async () => {
    const src = path.join(tmp(), 'w');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'level.dat'), 'L');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(src, 'rcon.sock'), resolve));
    try {
      const dest = path.join(tmp(), 'copy');
      expect(await copyWorld(src, dest)).toMatchObject({ files: 1, skipped: ['rcon.sock'] });
      expect(fs.readdirSync(dest)).toEqual(['level.dat']);
    } finally {
      server.close();
    }
  });

  it('a file that vanishes mid-copy fails it with its own error: the other copies stop and the partial copy goes', async () => {
    const src = path.join(tmp(), 'w');
    fs.mkdirSync(path.join(src, 'region'), { recursive: true });
    for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(src, 'region', `r.${String(i).padStart(2, '0')}.mca`), 'R');
    const dest = path.join(tmp(), 'copy');
    let calls = 0;
    const onProgress = () => {
      if (calls++ === 0) fs.rmSync(path.join(src, 'region', 'r.02.mca'));
    };
    const err = (await copyWorld(src, dest, { onProgress }).catch((e: unknown) => e)) as NodeJS.ErrnoException;
    expect(err.code).toBe('ENOENT');
    expect(calls).toBeLessThan(20);
    expect(fs.existsSync(dest)).toBe(false);
  });

  it('a world 64 folders deep is refused by name, 63 deep is copied', async () => {
    const nested = (depth: number) => {
      const src = path.join(tmp(), 'w');
      const deepest = path.join(src, ...Array.from({ length: depth }, () => 'd'));
      fs.mkdirSync(deepest, { recursive: true });
      fs.writeFileSync(path.join(deepest, 'f'), 'F');
      return src;
    };
    expect((await copyWorld(nested(63), path.join(tmp(), 'copy'))).files).toBe(1);
    const err = await failure(copyWorld(nested(64), path.join(tmp(), 'copy')));
    const rel = Array.from({ length: 64 }, () => 'd').join('/');
    expect(err).toMatchObject({ code: 'invalid_params', details: { path: rel } });
    expect(err.message).toBe(`${rel} is more than 64 folders deep; nothing was copied. Fix the world folder, or fork with regions: false`);
  });

  it('a write the disk refused says why and what to do; any other error is passed on as it is', () => {
    const full = writeFailure(Object.assign(new Error('write failed'), { code: 'ENOSPC' }), 'copying the world') as McbridgeError;
    expect(full).toMatchObject({ code: 'unavailable', details: { errno: 'ENOSPC' } });
    expect(full.message).toBe(
      'copying the world failed: no space left on the device (ENOSPC: write failed); the partial copy was removed. Free space (or fix the permissions) where the snapshots are written, then fork again',
    );
    const other = Object.assign(new Error('gone'), { code: 'ENOENT' });
    expect(writeFailure(other, 'copying')).toBe(other);
    const plain = new Error('no code');
    expect(writeFailure(plain, 'copying')).toBe(plain);
  });
});

describe('tick state', () => {
  it('reads vanilla tick query text; "not frozen" is not frozen; unknown text is unknown', () => {
    expect(tickStateOf(['The game is frozen'])).toBe('frozen');
    expect(tickStateOf(['The game is running normally'])).toBe('running');
    expect(tickStateOf(["The game is running, but can't keep up with the target tick rate"])).toBe('running');
    expect(tickStateOf(['The game is sprinting'])).toBe('running');
    expect(tickStateOf(['The game is not frozen'])).toBeNull();
    expect(tickStateOf(['Le jeu est gelé'])).toBeNull();
  });
});

describe('fork', () => {
  it('freezes a running game, saves, snapshots, copies the world and unfreezes: exact requests, result, manifest file', async () => {
    const stack = await live();
    const sideRequests = async () => ((await stack.call('status')) as any).link.stats.sideRequests as number;
    const side = await sideRequests();
    const before = stack.sim.received.length;
    const progress: number[] = [];
    const messages: string[] = [];
    const onProgress = (f: { progress: number; message?: string }) => {
      progress.push(f.progress);
      messages.push(f.message ?? '');
    };
    const result = (await stack.call('fork', { name: 'before', radius: 64 }, { onProgress })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['CMD tick query', 'CMD tick freeze', 'CMD save-all flush', 'SNAPSHOT 64.0 before', 'STATE', 'CMD tick unfreeze']);
    expect(stack.sim.world.frozen).toBe(false);
    // Nothing is owed on success: the unfreeze goes on the main connection, after the SNAPSHOT's reply.
    expect(await sideRequests()).toBe(side);
    const snapshotDir = path.join(stack.sim.modDir, 'snapshots', 'before');
    expect(result).toMatchObject({
      name: 'before',
      snapshotDir,
      forkDir: path.join(snapshotDir, 'world'),
      worldDir: path.join(stack.sim.dir, 'world'),
      entities: 5,
      dimension: 'minecraft:overworld',
      replaced: false,
      requested: { name: 'before', radius: 64, regions: true, freeze: true, world_dir: null },
      tickState: { before: 'running', froze: true, after: 'running', restored: true, problem: null },
      verified: { snapshotFiles: { read: true, entities: 5, orderHashMatches: true }, manifestWritten: true },
    });
    const files = listFiles(result.forkDir);
    expect(files).toContain('level.dat');
    expect(files.some((f) => f.startsWith('dimensions/minecraft/overworld/region/'))).toBe(true);
    expect(files.some((f) => /(^|\/)(session\.lock|players)(\/|$)/.test(f) || /\/entities\//.test(f))).toBe(false);
    expect(result.manifest.stripped).toContain('dimensions/minecraft/overworld/entities/r.0.0.mca');
    expect(result.manifest.skipped).toEqual(expect.arrayContaining(['players', 'session.lock']));
    expect(result.manifest.files).toBe(files.length);
    const onDisk = JSON.parse(fs.readFileSync(path.join(snapshotDir, FORK_MANIFEST), 'utf8'));
    expect(onDisk).toMatchObject({ ...result.manifest, protocol: 1, source: result.worldDir, world: 'world', orderHash: result.orderHash });
    expect(progress.at(-1)).toBe(result.manifest.bytes);
    expect(messages.at(-1)).toBe(`copied ${result.manifest.files}/${result.manifest.files} files`);
    expect((await readSnapshot(snapshotDir)).orderHash).toBe(result.orderHash);
  });

  it('leaves a frozen game frozen and never sends tick freeze or unfreeze', async () => {
    const stack = await live();
    await stack.call('command', { command: 'tick freeze' });
    const before = stack.sim.received.length;
    const result = (await stack.call('fork', { name: 'cold' })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['CMD tick query', 'CMD save-all flush', 'SNAPSHOT 0 cold', 'STATE']);
    expect(stack.sim.world.frozen).toBe(true);
    expect(result.tickState).toEqual({ before: 'frozen', froze: false, after: 'frozen', restored: true, problem: null });
  });

  it('entity-only without freeze sends just save-all flush and SNAPSHOT', async () => {
    const stack = await live();
    const before = stack.sim.received.length;
    const result = (await stack.call('fork', { name: 'entities-only', regions: false, freeze: false })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['CMD save-all flush', 'SNAPSHOT 0 entities-only']);
    expect(result).toMatchObject({ forkDir: null, worldDir: null, manifest: null, verified: { manifestWritten: false } });
    expect(result.tickState).toEqual({ before: null, froze: false, after: null, restored: true, problem: null });
    expect(result.name).toBe('entities-only');
  });

  it('a failure without freeze says the tick state was not touched', async () => {
    const stack = await live();
    const err = await failure(stack.call('fork', { name: 'etc', world_dir: '/etc', freeze: false }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/no level\.dat.* \(the tick state was not touched \(freeze: false\)\)$/);
    expect(err.details).toMatchObject({ worldDir: '/etc', tickBefore: null, outcome: 'the tick state was not touched (freeze: false)' });
  });

  it('a second fork while one runs is refused with busy, naming the fork', async () => {
    const stack = await live();
    stack.sim.fault('SNAPSHOT', { delayMs: 400 }, { times: 1 });
    const first = stack.call('fork', { name: 'one' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await failure(stack.call('fork', { name: 'two' }));
    expect(second.code).toBe('busy');
    expect(second.message).toMatch(/^a fork is changing this game .*retry when the fork has ended$/);
    expect(await first).toMatchObject({ name: 'one' });
  });

  it("takes world_dir, and the predecessor spelling dir, for a world inside the game's server folder", async () => {
    const stack = await live();
    const elsewhere = path.join(stack.sim.dir, 'lab');
    fs.mkdirSync(path.join(elsewhere, 'region'), { recursive: true });
    fs.writeFileSync(path.join(elsewhere, 'region', 'r.0.0.mca'), 'abc');
    fs.writeFileSync(path.join(elsewhere, 'level.dat'), 'L');
    const result = (await stack.call('fork', { name: 'x', dir: elsewhere })) as Record<string, any>;
    expect(result).toMatchObject({ worldDir: elsewhere, manifest: { files: 2, bytes: 4 }, requested: { world_dir: elsewhere } });
    expect((await failure(stack.call('fork', { dir: elsewhere, world_dir: elsewhere }))).code).toBe('invalid_params');
  });

  it('a replaced fork replaces the old copy entirely', async () => {
    const stack = await live();
    const first = (await stack.call('fork', { name: 'again' })) as Record<string, any>;
    fs.writeFileSync(path.join(first.forkDir, 'stale.txt'), 'old');
    const second = (await stack.call('fork', { name: 'again' })) as Record<string, any>;
    expect(second.replaced).toBe(true);
    expect(fs.existsSync(path.join(second.forkDir, 'stale.txt'))).toBe(false);
  });

  it('refuses bad names before anything is sent; is hidden on the client vantage and without snapshot', async () => {
    const stack = await live();
    const before = stack.sim.received.length;
    expect((await failure(stack.call('fork', { name: '../up' }))).message).toMatch(/may hold only/);
    expect((await failure(stack.call('fork', { radius: -2 }))).message).toMatch(/negative/);
    expect(sentSince(stack, before)).toEqual([]);
    const client = await stacks.start({ sim: { vantage: 'client' } });
    expect(Object.keys(await client.hidden())).toContain('fork');
    const bare = await stacks.start({ sim: { capabilities: ['state', 'command'] } });
    expect(Object.keys(await bare.hidden())).toContain('fork');
  });

  it('passes dimension to SNAPSHOT; refuses a malformed one before sending; an unknown one fails unfrozen', async () => {
    const stack = await live();
    const before = stack.sim.received.length;
    const result = (await stack.call('fork', { name: 'hot', dimension: 'the_nether', regions: false })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['CMD tick query', 'CMD tick freeze', 'CMD save-all flush', 'SNAPSHOT 0 hot minecraft:the_nether', 'CMD tick unfreeze']);
    expect(result).toMatchObject({ dimension: 'minecraft:the_nether', requested: { dimension: 'the_nether' }, verified: { snapshotFiles: { read: true } } });
    expect(result.entities).toBe(stack.sim.world.entitiesIn('minecraft:the_nether').length);
    const mid = stack.sim.received.length;
    const bad = await failure(stack.call('fork', { dimension: 'Minecraft:Nether!' }));
    expect(bad.code).toBe('invalid_params');
    expect(bad.message).toMatch(/dimension id/);
    expect(sentSince(stack, mid)).toEqual([]);
    const unknown = await failure(stack.call('fork', { name: 'far', dimension: 'minecraft:nowhere' }));
    expect(unknown.code).toBe('mod_error');
    expect(unknown.message).toMatch(/no such dimension: minecraft:nowhere.*unfrozen again/);
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('says what to pass when STATE has no worldDir, and unfreezes', async () => {
    const stack = await stacks.start({ sim: { autoTick: false } }); // no world folder: a temp dir without worldDisk
    fs.rmSync(path.join(stack.sim.dir, 'world'), { recursive: true, force: true });
    const err = await failure(stack.call('fork', { name: 'nowhere' }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/world directory does not exist: .*pass world_dir=.*unfrozen again/);
    expect(stack.sim.world.frozen).toBe(false);
  });
});

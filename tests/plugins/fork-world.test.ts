import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyWorld } from '../../plugins/fork/copy-world.js';
import { failure, useStacks, type StackOptions } from '../support/plugins.js';

/**
 * What fork may copy (issue 24, N10 and N12): only a world (a level.dat) in the game's folder or
 * an allowed root, and symlinks inside it followed safely or refused, never silently skipped.
 */
const stacks = useStacks();
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-forkw-'));
  temps.push(dir);
  return dir;
};
const live = (config?: StackOptions['config']) => stacks.start({ sim: { autoTick: false, dir: tmp(), worldDisk: { bytes: 2e5 } }, config });

/** A world folder with a level.dat and one region file. */
function world(parent: string, name = 'w'): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(path.join(dir, 'region'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'level.dat'), 'L');
  fs.writeFileSync(path.join(dir, 'region', 'r.0.0.mca'), 'RR');
  return dir;
}

describe('fork: which folders it copies', () => {
  it("refuses a folder without level.dat (/etc) and a world outside the game's folder; unfrozen, nothing copied", async () => {
    const stack = await live();
    const etc = await failure(stack.call('fork', { name: 'etc', world_dir: '/etc' }));
    expect(etc.code).toBe('invalid_params');
    expect(etc.message).toMatch(/\/etc is not a Minecraft world: it has no level\.dat/);
    const outside = world(tmp());
    const err = await failure(stack.call('fork', { name: 'out', world_dir: outside }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/outside the game's folder .*allowedWorldRoots/);
    expect(err.message).toContain(`(the game's server folder is ${stack.sim.dir})`);
    expect(err.details).toMatchObject({ worldDir: outside, serverDir: stack.sim.dir, allowedWorldRoots: [] });
    expect(etc.details).toMatchObject({ worldDir: '/etc' });
    const none = path.join(tmp(), 'none');
    expect(await failure(stack.call('fork', { name: 'none', world_dir: none }))).toMatchObject({ code: 'invalid_params', details: { worldDir: none } });
    expect(stack.sim.world.frozen).toBe(false);
    for (const name of ['etc', 'out']) expect(fs.existsSync(path.join(stack.sim.modDir, 'snapshots', name, 'world'))).toBe(false);
  });

  it("copies a world outside the game's folder when the config gives the fork plugin its parent in allowedWorldRoots", async () => {
    const root = tmp();
    const outside = world(root);
    // A listed folder that does not exist (yet) is passed over, not an error.
    const stack = await live({ plugins: [['fork', { allowedWorldRoots: [path.join(root, 'not-mounted'), root] }]] });
    const result = (await stack.call('fork', { name: 'ok', world_dir: outside })) as Record<string, any>;
    expect(result).toMatchObject({ worldDir: outside, manifest: { files: 2, bytes: 3 } });
    // A symlink into the allowed root does not open anything beyond it.
    const sneaky = path.join(root, 'sneaky');
    fs.symlinkSync('/', sneaky);
    expect((await failure(stack.call('fork', { name: 'up', world_dir: path.join(sneaky, 'etc') }))).code).toBe('invalid_params');
  });
});

describe("fork: the game's own world", () => {
  it("follows a link from the world into the game's server folder, without allowedWorldRoots", async () => {
    const stack = await live();
    const shared = path.join(stack.sim.dir, 'shared-data');
    fs.mkdirSync(shared);
    fs.writeFileSync(path.join(shared, 'extra.dat'), 'X');
    fs.symlinkSync(shared, path.join(stack.sim.dir, 'world', 'shared'));
    const result = (await stack.call('fork', { name: 'linked' })) as Record<string, any>;
    expect(result.manifest.followed).toEqual(['shared']);
    expect(fs.readFileSync(path.join(result.forkDir, 'shared', 'extra.dat'), 'utf8')).toBe('X');
  });

  it('copies the world STATE names even when its folder is a link to another disk', async () => {
    const stack = await live();
    const elsewhere = path.join(tmp(), 'big-disk-world');
    fs.renameSync(path.join(stack.sim.dir, 'world'), elsewhere);
    fs.symlinkSync(elsewhere, path.join(stack.sim.dir, 'world'));
    const result = (await stack.call('fork', { name: 'moved' })) as Record<string, any>;
    expect(result).toMatchObject({ worldDir: elsewhere, verified: { manifestWritten: true } });
    expect(result.manifest.files).toBeGreaterThan(1);
  });
});

describe('fork: a STATE without worldDir (the mod fills it only when the server has a world loaded)', () => {
  /** The sim always reports its world folder; this one answers STATE as the mod does before a world is loaded. */
  const withoutWorldDir = async (config?: StackOptions['config']) => {
    const stack = await live(config);
    Object.defineProperty(stack.sim, 'worldDir', { value: '' });
    expect(((await stack.call('state')) as Record<string, unknown>).worldDir).toBeFalsy();
    return stack;
  };

  it('without world_dir: mod_error saying to pass one, unfrozen, nothing copied', async () => {
    const stack = await withoutWorldDir();
    const err = await failure(stack.call('fork', { name: 'blind' }));
    expect(err.code).toBe('mod_error');
    expect(err.message).toMatch(
      /^the mod reported no STATE "worldDir" \(it fills it only when the server vantage has a world loaded\); pass world_dir=<path> to fork a world it cannot see \(the game was unfrozen again/,
    );
    expect(err.details).toMatchObject({ step: 'STATE', tickBefore: 'running' });
    expect(stack.sim.world.frozen).toBe(false);
    expect(fs.existsSync(path.join(stack.sim.modDir, 'snapshots', 'blind', 'world'))).toBe(false);
  });

  it('with world_dir: only an allowed root admits it, and the refusal says the game reports no world folder', async () => {
    const root = tmp();
    const allowed = world(root);
    const stack = await withoutWorldDir({ plugins: [['fork', { allowedWorldRoots: [root] }]] });
    const inGame = path.join(stack.sim.dir, 'world');
    const err = await failure(stack.call('fork', { name: 'in-game', world_dir: inGame }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toContain(`world_dir ${inGame} is outside the game's folder (the game reports no world folder)`);
    expect(err.details).toMatchObject({ worldDir: inGame, serverDir: null, allowedWorldRoots: [root] });
    const result = (await stack.call('fork', { name: 'allowed', world_dir: allowed })) as Record<string, any>;
    expect(result).toMatchObject({ worldDir: allowed, manifest: { files: 2, bytes: 3 }, verified: { manifestWritten: true } });
  });
});

describe('copyWorld: symlinks inside the world', () => {
  it('a symlinked region folder inside the link roots is followed: its files are copied and the link listed', async () => {
    const server = tmp();
    const src = world(server);
    const disk = path.join(server, 'fast-disk', 'region');
    fs.mkdirSync(disk, { recursive: true });
    fs.writeFileSync(path.join(disk, 'r.1.0.mca'), 'FAST');
    fs.renameSync(path.join(src, 'region'), path.join(server, 'old-region'));
    fs.symlinkSync(disk, path.join(src, 'region'));
    const dest = path.join(tmp(), 'copy');
    const manifest = await copyWorld(src, dest, { linkRoots: [path.join(server, 'unmounted'), server] });
    expect(manifest).toMatchObject({ files: 2, bytes: 5, followed: ['region'] });
    expect(fs.readFileSync(path.join(dest, 'region', 'r.1.0.mca'), 'utf8')).toBe('FAST');
    expect(fs.lstatSync(path.join(dest, 'region')).isSymbolicLink()).toBe(false);
  });

  it('a link outside the roots, a dangling link and a loop each fail the copy, and no half copy is left', async () => {
    const cases: Array<[string, (src: string) => void, RegExp]> = [
      ['outside', (src) => fs.symlinkSync('/etc', path.join(src, 'region', 'etc')), /region\/etc links to \/etc, outside the world/],
      ['dangling', (src) => fs.symlinkSync(path.join(src, 'gone'), path.join(src, 'region', 'r.9.9.mca')), /symlink to nothing/],
      ['loop', (src) => fs.symlinkSync('..', path.join(src, 'region', 'up')), /symlink loop/],
    ];
    for (const [name, plant, message] of cases) {
      const src = world(tmp(), name);
      plant(src);
      const dest = path.join(tmp(), 'copy');
      const err = await failure(copyWorld(src, dest));
      expect(err.code).toBe('invalid_params');
      expect(err.message).toMatch(message);
      expect(err.message).toMatch(/nothing was copied/);
      expect(err.details?.path).toMatch(/^region\/(etc|r\.9\.9\.mca|up)$/);
      expect(fs.existsSync(dest)).toBe(false);
    }
  });
});

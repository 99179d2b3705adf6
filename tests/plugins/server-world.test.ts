/**
 * Putting a world in place (plugins/server/world.ts): a copy swapped in whole, the template never
 * changed, every state a killed reset can leave finished or undone, and a full disk during the
 * copy leaving the world as it was (a small tmpfs, as tests/faults/fork-disk-full.test.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recoverWorld, replaceWorld, WorldError } from '../../plugins/server/world.js';

const dirs: string[] = [];
const mounts: string[] = [];
afterEach(() => {
  for (const dir of mounts.splice(0)) execFileSync('umount', ['-l', dir]);
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tmp(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-world-')));
  dirs.push(dir);
  return dir;
}

/** A folder of files: name -> content. */
function tree(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
}

function read(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out[path.relative(root, path.join(e.parentPath, e.name))] = fs.readFileSync(path.join(e.parentPath, e.name), 'utf8');
  }
  return out;
}

const TEMPLATE = { 'level.dat': 'clean', 'region/r.0.0.mca': 'chunks', 'datapacks/p/pack.mcmeta': '{}' };
const OLD = { 'level.dat': 'played', 'ops.json': '["bot"]', 'region/r.0.0.mca': 'dirty' };

describe('replaceWorld', () => {
  it('swaps the world for a copy of the template whole: nothing of the old one stays, the template is unchanged', async () => {
    const root = tmp();
    tree(path.join(root, 'templates/clean'), TEMPLATE);
    tree(path.join(root, 'world'), OLD);
    const progress: string[] = [];
    const done = await replaceWorld({ kind: 'template', name: 'clean', dir: path.join(root, 'templates/clean') }, path.join(root, 'world'), (m) => progress.push(m));
    expect(read(path.join(root, 'world'))).toEqual(TEMPLATE);
    expect(read(path.join(root, 'templates/clean'))).toEqual(TEMPLATE);
    expect(done).toMatchObject({ files: 3, replaced: true, bytes: 5 + 6 + 2 });
    expect(fs.readdirSync(root).sort()).toEqual(['templates', 'world']);
    expect(progress).toEqual(['copying the template clean into place']);
  });

  it('creates a world that was missing, and refuses a source that is not a folder or is the world itself', async () => {
    const root = tmp();
    tree(path.join(root, 't'), TEMPLATE);
    expect((await replaceWorld({ kind: 'template', name: 't', dir: path.join(root, 't') }, path.join(root, 'world'))).replaced).toBe(false);
    await expect(replaceWorld({ kind: 'template', name: 'none', dir: path.join(root, 'none') }, path.join(root, 'world'))).rejects.toThrow(/is not a folder/);
    await expect(replaceWorld({ kind: 'template', name: 'w', dir: path.join(root, 'world') }, path.join(root, 'world'))).rejects.toThrow(/is the world folder itself/);
    expect(read(path.join(root, 'world'))).toEqual(TEMPLATE);
  });

  it('keeps a symbolic link in the template as a link: the copy never writes through it', async () => {
    const root = tmp();
    tree(path.join(root, 'outside'), { 'keep.txt': 'mine' });
    tree(path.join(root, 't'), TEMPLATE);
    fs.symlinkSync(path.join(root, 'outside'), path.join(root, 't', 'shared'));
    await replaceWorld({ kind: 'template', name: 't', dir: path.join(root, 't') }, path.join(root, 'world'));
    expect(fs.readlinkSync(path.join(root, 'world', 'shared'))).toBe(path.join(root, 'outside'));
    expect(read(path.join(root, 'outside'))).toEqual({ 'keep.txt': 'mine' });
  });
});

describe('recoverWorld: what a reset killed at each step leaves', () => {
  const setup = (parts: { world?: boolean; incoming?: boolean; outgoing?: boolean }) => {
    const root = tmp();
    if (parts.world) tree(path.join(root, 'world'), TEMPLATE);
    if (parts.incoming) tree(path.join(root, '.world.mcbridge-incoming'), { 'level.dat': 'half' });
    if (parts.outgoing) tree(path.join(root, '.world.mcbridge-outgoing'), OLD);
    return root;
  };

  it('killed during the copy: the partial copy goes, the previous world stays', () => {
    const root = setup({ incoming: true });
    tree(path.join(root, 'world'), OLD);
    expect(recoverWorld(path.join(root, 'world'))).toMatch(/removed the partial copy/);
    expect(read(path.join(root, 'world'))).toEqual(OLD);
    expect(fs.readdirSync(root)).toEqual(['world']);
  });

  it('killed between the two renames: the previous world is put back', () => {
    const root = setup({ incoming: true, outgoing: true });
    expect(recoverWorld(path.join(root, 'world'))).toMatch(/put the previous world back/);
    expect(read(path.join(root, 'world'))).toEqual(OLD);
    expect(fs.readdirSync(root)).toEqual(['world']);
  });

  it('killed after the new world was moved in: it is kept, the old one removed', () => {
    const root = setup({ world: true, outgoing: true });
    expect(recoverWorld(path.join(root, 'world'))).toMatch(/removed the previous world/);
    expect(read(path.join(root, 'world'))).toEqual(TEMPLATE);
    expect(fs.readdirSync(root)).toEqual(['world']);
  });

  it('nothing interrupted: nothing done', () => {
    const root = setup({ world: true });
    expect(recoverWorld(path.join(root, 'world'))).toBeNull();
    expect(read(path.join(root, 'world'))).toEqual(TEMPLATE);
  });
});

describe('a full disk during the copy', () => {
  it('fails with a coded message, removes the partial copy and leaves the world as it was', async () => {
    const disk = tmp();
    // Root in a container with CAP_SYS_ADMIN: the CI machine; elsewhere this fails loudly rather than skipping.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk]);
    mounts.push(disk);
    const source = tmp();
    tree(source, { 'level.dat': 'clean', 'region/r.0.0.mca': 'x'.repeat(2 * 1024 * 1024) });
    tree(path.join(disk, 'world'), OLD);
    const err = await replaceWorld({ kind: 'template', name: 'big', dir: source }, path.join(disk, 'world')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorldError);
    expect((err as WorldError).message).toMatch(/the disk is full \(ENOSPC\)\. The world was left as it was; free some space and reset again/);
    expect((err as WorldError).details).toEqual({ errno: 'ENOSPC' });
    expect(read(path.join(disk, 'world'))).toEqual(OLD);
    expect(fs.readdirSync(disk)).toEqual(['world']);
  });
});

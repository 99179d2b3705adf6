import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failure, useStacks } from '../support/plugins.js';

/**
 * A full disk under a fork (issue 24, item 1): the copy ends with a coded error, the half-written
 * fork is removed, the game is unfrozen and the daemon goes on serving. Needs a small tmpfs, so
 * it runs where `mount -t tmpfs` works (root in a container with CAP_SYS_ADMIN).
 */
const stacks = useStacks();
const mounts: string[] = [];
afterEach(async () => {
  for (const dir of mounts.splice(0)) {
    execFileSync('umount', ['-l', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function smallDisk(bytes: number): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    return null;
  }
  mounts.push(dir);
  return dir;
}

const canMount = (() => {
  const probe = smallDisk(64 * 1024);
  if (probe === null) return false;
  execFileSync('umount', ['-l', mounts.pop()!]);
  fs.rmSync(probe, { recursive: true, force: true });
  return true;
})();

describe.skipIf(!canMount)('fork on a full disk', () => {
  it('ENOSPC mid-copy: unavailable with the reason, no world/ and no manifest left, unfrozen, the daemon serves on', async () => {
    const disk = smallDisk(1024 * 1024)!;
    const stack = await stacks.start({ sim: { autoTick: false, dir: disk, worldDisk: { bytes: 6e5 } } });
    const err = await failure(stack.call('fork', { name: 'full' }));
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/copying the world into .*full\/world failed: no space left on the device \(ENOSPC.*the partial copy was removed.*Free space/);
    expect(err.message).toMatch(/the game was unfrozen again/);
    const forkDir = path.join(stack.sim.modDir, 'snapshots', 'full');
    expect(fs.existsSync(path.join(forkDir, 'world'))).toBe(false);
    expect(fs.existsSync(path.join(forkDir, 'fork-manifest.json'))).toBe(false);
    expect(stack.sim.world.frozen).toBe(false);
    expect(await stack.call('state')).toMatchObject({ type: 'state' });
    // Space back: the same fork succeeds.
    fs.rmSync(path.join(forkDir), { recursive: true, force: true });
    execFileSync('mount', ['-o', 'remount,size=4m', disk]);
    expect(await stack.call('fork', { name: 'full' })).toMatchObject({ verified: { manifestWritten: true } });
  });

  it('no inode left for the manifest, after the copy: unavailable naming it, the copy removed, unfrozen, the journal cleared', async () => {
    const disk = smallDisk(8 * 1024 * 1024)!;
    const stack = await stacks.start({ sim: { autoTick: false, dir: disk, worldDisk: { bytes: 2e5 } } });
    const used = () => {
      const s = fs.statfsSync(disk);
      return s.files - s.ffree;
    };
    // Two forks measure what one leaves behind (snapshot, copy, manifest; the first also made the
    // journal's folder). The third gets all of that but one: while it runs its journal file takes
    // one, so the last file it writes, the manifest, finds none.
    await stack.call('fork', { name: 'a' });
    const before = used();
    await stack.call('fork', { name: 'b' });
    const perFork = used() - before;
    // Each fork is remembered by name in the state folder, written after the manifest: one inode
    // fewer leaves the manifest without one.
    const record = path.join(disk, '.mcbridge', 'forks', 'b.json');
    expect(JSON.parse(fs.readFileSync(record, 'utf8'))).toMatchObject({ name: 'b', forkDir: path.join(stack.sim.modDir, 'snapshots', 'b', 'world') });
    execFileSync('mount', ['-o', `remount,nr_inodes=${used() + perFork - 1}`, disk]);
    const err = await failure(stack.call('fork', { name: 'c' }));
    const snapshotDir = path.join(stack.sim.modDir, 'snapshots', 'c');
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/^writing .*\/c\/fork-manifest\.json failed: no space left on the device \(ENOSPC.*the partial copy was removed.*\(the game was unfrozen again/);
    expect(fs.existsSync(path.join(snapshotDir, 'world'))).toBe(false);
    expect(fs.existsSync(path.join(snapshotDir, 'fork-manifest.json'))).toBe(false);
    expect(fs.existsSync(path.join(disk, '.mcbridge', 'forks', 'c.json'))).toBe(false);
    expect(stack.sim.world.frozen).toBe(false);
    // Room again, and no journal left holding the removed copy: the same fork is not refused as busy.
    execFileSync('mount', ['-o', 'remount,nr_inodes=100000', disk]);
    expect(await stack.call('fork', { name: 'c' })).toMatchObject({ verified: { manifestWritten: true } });
  });
});

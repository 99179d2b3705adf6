/**
 * The fork records `server_reset { from: { fork } }` reads (plugins/fork/kit.ts): a file in the
 * state folder, so hostile until read: a bad name, a missing, oversized, non-JSON, wrong-shaped or
 * symbolically linked record, and a world copy that is gone each give a problem saying what to do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findFork, rememberFork } from '../../plugins/fork/kit.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function stateDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-forks-')));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, 'forks'));
  return dir;
}

const problem = (found: ReturnType<typeof findFork>) => ('problem' in found ? found.problem : null);

describe('fork records', () => {
  it('remembers a fork and finds it again by name', async () => {
    const dir = stateDir();
    const forkDir = path.join(dir, 'snap', 'world');
    fs.mkdirSync(forkDir, { recursive: true });
    await rememberFork(dir, { name: 'before', target: 'live', forkDir, snapshotDir: path.dirname(forkDir), at: 1 });
    expect(findFork(dir, 'before')).toEqual({ name: 'before', target: 'live', forkDir, snapshotDir: path.dirname(forkDir), at: 1 });
  });

  it('refuses a name that is a path, and says when there is nowhere to look', () => {
    expect(problem(findFork(stateDir(), '../../etc/passwd'))).toMatch(/is not a fork name/);
    expect(problem(findFork(null, 'before'))).toMatch(/keeps no state folder/);
    expect(problem(findFork(stateDir(), 'never'))).toMatch(/no fork named "never" was taken by this daemon: call `fork`/);
  });

  it('a record that is too big, not JSON, of the wrong shape or a symbolic link is not followed', () => {
    const dir = stateDir();
    const file = (name: string) => path.join(dir, 'forks', `${name}.json`);
    fs.writeFileSync(file('big'), `{"name":"big","pad":"${'x'.repeat(70 * 1024)}"}`);
    fs.writeFileSync(file('text'), 'not json at all');
    fs.writeFileSync(file('shape'), JSON.stringify({ name: 'shape', forkDir: 42 }));
    fs.writeFileSync(path.join(dir, 'elsewhere.json'), JSON.stringify({ name: 'link', target: 't', forkDir: dir, snapshotDir: dir, at: 1 }));
    fs.symlinkSync(path.join(dir, 'elsewhere.json'), file('link'));
    expect(problem(findFork(dir, 'big'))).toMatch(/the record of fork "big" cannot be used \(it is \d+ bytes, over the 65536 a fork record can take\): take the fork again/);
    expect(problem(findFork(dir, 'text'))).toMatch(/is not JSON: take the fork again/);
    expect(problem(findFork(dir, 'shape'))).toMatch(/is damaged: take the fork again/);
    expect(problem(findFork(dir, 'link'))).toMatch(/the record of fork "link" cannot be used \(it is a symbolic link; the daemon writes a plain file there\): take the fork again/);
  });

  it('a record whose world copy is gone says so', async () => {
    const dir = stateDir();
    await rememberFork(dir, { name: 'gone', target: 'live', forkDir: path.join(dir, 'nowhere'), snapshotDir: dir, at: 1 });
    expect(problem(findFork(dir, 'gone'))).toMatch(/the world copy of fork "gone" .* is gone: take the fork again/);
  });
});

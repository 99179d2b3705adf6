/**
 * The ledger's lock file is hostile input too: a pipe, a huge file or a link in its place must
 * neither hang the daemon's start nor be taken for a holder.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { lockLedger, unlockLedger } from '../../../../core/host/link/ledger-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function ledger(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-ledger-lock-'));
  dirs.push(dir);
  return path.join(dir, 'write-ledger-default.json');
}

it.each([
  ['a pipe', (lock: string) => execFileSync('mkfifo', [lock])],
  ['a file of a MiB naming a live pid first', (lock: string) => fs.writeFileSync(lock, JSON.stringify({ pid: 1, pad: 'x'.repeat(2 ** 20) }))],
  [
    'a link to a lock naming a live pid',
    (lock: string) => {
      fs.writeFileSync(`${lock}.elsewhere`, JSON.stringify({ pid: 1 }));
      fs.symlinkSync(`${lock}.elsewhere`, lock);
    },
  ],
])('%s as the lock is taken over, and the daemon holds a lock of its own', (_what, plant) => {
  const file = ledger();
  plant(`${file}.lock`);
  expect(lockLedger(file)).toEqual({ held: true });
  expect(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
  unlockLedger(file);
  expect(fs.existsSync(`${file}.lock`)).toBe(false);
});

it('a lock of a live process of another daemon is its holder', () => {
  const file = ledger();
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 1, at: 0 }));
  expect(lockLedger(file)).toEqual({ held: false, by: 'the process 1' });
});

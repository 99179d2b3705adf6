/** StateFile (mcbridge/kit): coalesced atomic writes whose failures are counted and reported, never thrown. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { StateFile, writeFileAtomic } from '../../../core/util/state-file.js';
import { waitUntil } from '../../support/helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-state-file-'));
  dirs.push(d);
  return d;
}

it('a burst of changes is one write of the newest state, and flush writes now', async () => {
  const file = path.join(tempDir(), 'nested', 'state.json');
  let value = 0;
  let renders = 0;
  const state = new StateFile(file, {
    render: () => {
      renders += 1;
      return JSON.stringify({ value });
    },
    minIntervalMs: 20,
  });
  for (value = 1; value <= 100; value += 1) state.changed();
  await waitUntil(() => state.status().writes === 1, 5_000, 'the coalesced write');
  expect(renders).toBe(1);
  expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ value: 101 });
  value = 7;
  await state.flush();
  expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ value: 7 });
  expect(state.status()).toMatchObject({ writes: 2, failures: 0, failing: false, bytes: 11 });
  expect(fs.existsSync(`${file}.tmp`)).toBe(false);
});

it('a failing write is counted, reported once per run of failures, retried, and never thrown', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'state.json');
  fs.mkdirSync(`${file}.tmp`); // where the temporary file goes: every write fails (EISDIR)
  const reports: string[] = [];
  const state = new StateFile(file, {
    render: () => 'x',
    minIntervalMs: 1,
    retryMs: 20,
    onFailure: (err, s) => reports.push(`failed ${err.code} ${s.failures}`),
    onRecovery: (s) => reports.push(`recovered after ${s.failures}`),
  });
  state.changed();
  await waitUntil(() => state.status().failures >= 3, 5_000, 'retries while failing');
  expect(state.status()).toMatchObject({ failing: true, writes: 0 });
  expect(state.status().lastError).toMatch(/^EISDIR/);
  expect(reports).toEqual(['failed EISDIR 1']);
  fs.rmdirSync(`${file}.tmp`);
  await waitUntil(() => state.status().writes === 1, 5_000, 'the write once space returns');
  expect(reports[1]).toMatch(/^recovered after \d+$/);
  expect(fs.readFileSync(file, 'utf8')).toBe('x');
  state.close();
  await expect(writeFileAtomic(path.join(file, 'under-a-file'), 'y')).rejects.toMatchObject({ code: expect.any(String) });
});

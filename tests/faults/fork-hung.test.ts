import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, it, expect } from 'vitest';
import { failure, useStacks } from '../support/plugins.js';

const stacks = useStacks();
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

// The known gap (docs/decisions.md): a cancel while the mod never answers SNAPSHOT. The game stays
// frozen, so the error must say so and what to do, not only that a clean-up did not finish.
it('a cancel while SNAPSHOT is never answered: the error says the game is still frozen', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-forkh-'));
  temps.push(dir);
  const stack = await stacks.start({ sim: { autoTick: false, dir, worldDisk: { bytes: 1e6 } } });
  stack.sim.fault('SNAPSHOT', { noReply: true }, { times: 1 });
  const abort = new AbortController();
  stack.sim.onRequest(({ verb }) => {
    if (verb === 'SNAPSHOT') abort.abort();
  });
  const err = await failure(stack.call('fork', { name: 'hung' }, { signal: abort.signal }));
  expect(err.code).toBe('cancelled');
  expect(err.message).toMatch(/clean-up failed: the game is still frozen: .*run `tick unfreeze`/);
  expect(stack.sim.world.frozen).toBe(true);
}, 30_000);

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

// A cancel while the mod never answers SNAPSHOT. Replies carry no ids, so the main connection
// sends nothing expecting a reply until the owed one came or the connection is reset (10 s, the
// whole clean-up budget). The fork's undo goes on a connection of its own instead.
it('a cancel while SNAPSHOT is never answered: cancelled, and the game ends unfrozen', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-forkh-'));
  temps.push(dir);
  const stack = await stacks.start({ sim: { autoTick: false, dir, worldDisk: { bytes: 1e6 } } });
  stack.sim.fault('SNAPSHOT', { noReply: true }, { times: 1 });
  const abort = new AbortController();
  stack.sim.onRequest(({ verb }) => {
    if (verb === 'SNAPSHOT') abort.abort();
  });
  const sideBefore = ((await stack.call('status')) as any).link.stats.sideRequests as number;
  const err = await failure(stack.call('fork', { name: 'hung' }, { signal: abort.signal }));
  expect(err.code).toBe('cancelled');
  expect(err.message).not.toMatch(/still frozen|clean-up/);
  expect(stack.sim.world.frozen).toBe(false);
  expect(stack.sim.received.at(-1)).toBe('CMD tick unfreeze');
  const status = (await stack.call('status')) as any;
  // The SNAPSHOT's reply is still owed on the main connection: the unfreeze did not wait for it.
  expect(status.link.owed).toEqual([expect.objectContaining({ line: 'SNAPSHOT 0 hung', why: 'abandoned' })]);
  expect(status.link.stats.sideRequests).toBe(sideBefore + 1);
}, 30_000);

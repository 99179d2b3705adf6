import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { waitUntil } from '../support/helpers.js';
import { failure, sentSince, useStacks, type Stack } from '../support/plugins.js';
import { endsWithoutRecovery, journalNow, journalPathOf, recordedCarts } from '../support/restore.js';

/**
 * What an apply changes besides the summons (tick state, forceload) and how it is put back, seen
 * from the game and from the world journal: what a daemon killed at that moment would undo.
 */
const stacks = useStacks();
const REMOVE = 'forceload remove -6 -20 27 13';
const isSummon = (l: string) => l.startsWith('CMD /summon');
const freezes = (lines: string[]) => lines.filter((l) => l === 'CMD tick freeze' || l === 'CMD tick unfreeze');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait until a request starting with `prefix` reached the game (after `from`). */
const arrived = (stack: Stack, prefix: string, from = 0) => waitUntil(() => stack.sim.received.slice(from).some((l) => l.startsWith(prefix)), 10_000, `${prefix} to reach the game`);

describe('the forceload, in the game and in the journal', () => {
  it('journaled before the add is sent, and kept there while the chunks are held', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('forceload add', { delayMs: 300 }, { times: 1 });
    stack.sim.fault('SNAPSHOT restore-pre', { delayMs: 600 }, { times: 1 });
    const call = stack.call('restore', { dir, dry_run: false, ...proof });
    await arrived(stack, 'CMD forceload add');
    expect(journalNow(stack)?.forceloads).toEqual([REMOVE]);
    await arrived(stack, 'SNAPSHOT 0 restore-pre');
    await sleep(200); // room for a wrong "added nothing" write to land
    expect(journalNow(stack)?.forceloads).toEqual([REMOVE]);
    expect((await call).forceload).toMatchObject({ added: true, answer: 'added', released: null });
  });

  /** An apply whose add the game answered with `answer`: dropped from the journal at once, never removed. */
  async function addedNothing(stack: Stack, dir: string, proof: Record<string, unknown>, answer: string) {
    stack.sim.fault('SNAPSHOT restore-pre', { delayMs: 1_500 }, { times: 1 });
    const call = stack.call('restore', { dir, dry_run: false, release_forceload: true, ...proof });
    await arrived(stack, 'SNAPSHOT 0 restore-pre');
    // Before the apply goes on: a recovery must not unmark chunks this restore did not mark.
    await waitUntil(() => journalNow(stack)?.forceloads.length === 0, 1_000, 'the journal to drop the forceload');
    const result = await call;
    expect(result.forceload).toMatchObject({ added: false, answer, released: null });
    expect(stack.sim.received.filter((l) => l.startsWith('CMD forceload remove'))).toEqual([]);
  }

  it('refused by the game: not journaled past the answer, never removed', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('forceload add', { output: 'Too many chunks in the specified area (maximum 256, found 289)' }, { times: 1 });
    await addedNothing(stack, dir, proof, 'refused');
  });

  it('chunks someone else forced already: not journaled past the answer, and still forced after a release_forceload apply', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    await stack.call('command', { command: 'forceload add -6 -20 27 13' });
    const forced = stack.sim.world.forcedChunks.get('minecraft:overworld')?.size;
    await addedNothing(stack, dir, proof, 'already-forced');
    expect(stack.sim.world.forcedChunks.get('minecraft:overworld')?.size).toBe(forced);
  });

  it('an answer it cannot read is a maybe (added: null): released when asked', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('forceload add', { output: 'Forceloading is switched off here' }, { times: 1 });
    const result = await stack.call('restore', { dir, dry_run: false, release_forceload: true, ...proof });
    expect(result.forceload).toMatchObject({ added: null, answer: 'unknown', output: ['Forceloading is switched off here'], released: true });
    expect(stack.sim.received.at(-1)).toBe(`CMD ${REMOVE}`);
  });

  it('released: the journal is gone when the apply ends', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const result = await stack.call('restore', { dir, dry_run: false, release_forceload: true, ...proof });
    expect(result.forceload).toMatchObject({ released: true });
    await endsWithoutRecovery(stack);
  });

  it('a release the game refuses: released false with its error, failed, and the journal keeps it for a recovery', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('forceload remove', { error: 'remove refused' }, { times: 1 });
    const result = await stack.call('restore', { dir, dry_run: false, release_forceload: true, ...proof });
    expect(result).toMatchObject({ verdict: 'failed', forceload: { released: false, releaseError: expect.stringMatching(/remove refused/) } });
    expect(journalNow(stack)?.forceloads).toEqual([REMOVE]);
  });

  it('a refused release after a failed step: the error says so', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.failNext('SNAPSHOT restore-pre');
    stack.sim.fault('forceload remove', { error: 'remove refused' }, { times: 1 });
    const err = await failure(stack.call('restore', { dir, dry_run: false, release_forceload: true, ...proof }));
    expect(err.message).toMatch(/\(the game was unfrozen again, as it was running before; releasing the forceload failed \(.*remove refused.*\)\)$/);
  });
});

describe('the tick state around a replace_existing clear', () => {
  /** A replace_existing apply whose first kill and cleared snapshot wait: the journal as a kill at each would leave it. */
  async function clearReadingJournal(stack: Stack, dir: string, proof: Record<string, unknown>) {
    stack.sim.fault('kill', { delayMs: 300 }, { times: 1 });
    stack.sim.fault('SNAPSHOT restore-pre-cleared', { delayMs: 300 }, { times: 1 });
    const before = stack.sim.received.length;
    const call = stack.call('restore', { dir, dry_run: false, replace_existing: true, ...proof });
    await arrived(stack, 'CMD kill', before);
    const duringClear = journalNow(stack)?.tick;
    await arrived(stack, 'SNAPSHOT 0 restore-pre-cleared', before);
    const afterRefreeze = journalNow(stack)?.tick;
    return { result: await call, duringClear, afterRefreeze, sent: sentSince(stack, before) };
  }

  it('a frozen world: journaled as frozen-and-changed while the clear runs, cleared once refrozen; one unfreeze, one freeze', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    await stack.call('command', { command: 'tick freeze' });
    const { result, duringClear, afterRefreeze, sent } = await clearReadingJournal(stack, dir, proof);
    expect(duringClear).toEqual({ before: 'frozen', changed: true });
    expect(afterRefreeze).toBeNull();
    expect(freezes(sent)).toEqual(['CMD tick unfreeze', 'CMD tick freeze']);
    expect(result).toMatchObject({ verdict: 'ok', tick: { prior: 'frozen', frozenByBridge: false, clearedWhileRunning: true, refrozen: true, restored: null, preserved: true } });
    expect(stack.sim.world.frozen).toBe(true);
  });

  it('a running world: journaled as running-and-changed during the clear and after the refreeze', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    const { result, duringClear, afterRefreeze } = await clearReadingJournal(stack, dir, proof);
    expect(duringClear).toEqual({ before: 'running', changed: true });
    expect(afterRefreeze).toEqual({ before: 'running', changed: true });
    expect(result.verdict).toBe('ok');
  });

  it('freeze=false: the clear leaves the tick state alone too', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    const before = stack.sim.received.length;
    const result = await stack.call('restore', { dir, dry_run: false, replace_existing: true, freeze: false, ...proof });
    expect(sentSince(stack, before).filter((l) => l.startsWith('CMD tick'))).toEqual([]);
    expect(result).toMatchObject({ verdict: 'ok', tick: { clearedWhileRunning: false, preserved: null } });
    expect(result.tick.refrozen).toBeUndefined();
  });

  it('the watchdog released the game before the clear: no second unfreeze for it, no refreeze after it', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    stack.sim.fault('SNAPSHOT restore-pre', { delayMs: 300 }, { times: 1 });
    const before = stack.sim.received.length;
    const result = await stack.call('restore', { dir, dry_run: false, replace_existing: true, freeze_timeout_seconds: 0.05, ...proof });
    const sent = sentSince(stack, before);
    expect(freezes(sent)).toEqual(['CMD tick freeze', 'CMD tick unfreeze']);
    expect(result).toMatchObject({ verdict: 'failed', tick: { watchdogUnfroze: true, clearedWhileRunning: false, restored: true, preserved: true } });
    expect(sent.filter(isSummon)).toEqual([]);
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('a frozen world whose refreeze fails in the clean-up: said to be left running, what to run, and kept in the journal', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    await stack.call('command', { command: 'tick freeze' });
    stack.sim.failNext('save-all');
    stack.sim.fault('tick freeze', { output: 'freeze refused' }, { times: 1 });
    const err = await failure(stack.call('restore', { dir, dry_run: false, replace_existing: true, ...proof }));
    expect(err.message).toMatch(/\(the game was left running: refreezing failed \(.*freeze refused.*\); run `tick freeze`\)$/);
    expect(err.details).toMatchObject({ tick: { prior: 'frozen', clearedWhileRunning: true, refrozen: false, preserved: false } });
    expect(stack.sim.world.frozen).toBe(false);
    // Not put back, so a recovery still owes the freeze.
    expect(journalNow(stack)?.tick).toEqual({ before: 'frozen', changed: true });
  });
});

describe('the tick state on other paths', () => {
  it("the watchdog's unfreeze refused: its error is kept, and the clean-up unfreezes", async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('summon', { delayMs: 300 });
    stack.sim.fault('tick unfreeze', { output: 'unfreeze refused' }, { times: 1 });
    const result = await stack.call('restore', { dir, dry_run: false, freeze_timeout_seconds: 0.05, ...proof });
    expect(result.tick).toMatchObject({ watchdogUnfroze: true, watchdogUnfreezeError: expect.stringMatching(/unfreeze refused/), restored: true, preserved: true });
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('the journal write before the freeze failing: no freeze is sent, and the error says the tick state was not changed', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const temp = `${journalPathOf(stack)}.${process.pid}.tmp`;
    // The journal's next write (the freeze's, after the query) finds a folder where its temp file goes.
    stack.sim.onRequest(({ line }) => {
      if (line === 'CMD tick query') fs.mkdirSync(temp);
    });
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, dry_run: false, ...proof }));
    fs.rmdirSync(temp);
    expect(err.message).toMatch(/\(the tick state was not changed\)$/);
    expect(err.details).toMatchObject({ tick: { prior: 'running', frozenByBridge: false, restored: null } });
    expect(sentSince(stack, before)).toEqual(['STATE', 'CMD tick query']);
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('freeze=false and a failed step: the error says the tick state was not touched', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.failNext('SNAPSHOT restore-pre');
    const err = await failure(stack.call('restore', { dir, dry_run: false, freeze: false, ...proof }));
    expect(err.message).toMatch(/simulated fault \(SNAPSHOT restore-pre\) \(the tick state was not touched \(freeze=false\)\)$/);
  });
});

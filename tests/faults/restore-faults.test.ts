import { afterEach, describe, expect, it, vi } from 'vitest';
import { FreezeWatchdog } from '../../plugins/restore/watchdog.js';
import { waitUntil } from '../support/helpers.js';
import { failure, sentSince, useStacks, type Stack } from '../support/plugins.js';
import { CART_A, CART_B, endsWithoutRecovery, recordedCarts } from '../support/restore.js';

/**
 * A fault at each step of an apply: the game must end in the tick state it had (a running game
 * unfrozen, a frozen one frozen), the forceload released when asked, and the result or error
 * must say what happened.
 */
const stacks = useStacks();
const isSummon = (l: string) => l.startsWith('CMD /summon');
const apply = { dry_run: false, release_forceload: true };
afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * The freeze watchdog armed when the mod reads the first line `when` matches, not at the freeze:
 * its deadline then falls while that request runs. Counted from the freeze, a deadline of 50 ms
 * had to outlast the forceload, the baseline snapshot and the duplicate check, which a loaded
 * machine does not promise (docs/reliability.md, "restore-faults under load").
 */
function armWatchdogOn(stack: Stack, when: (line: string) => boolean): void {
  const start = FreezeWatchdog.prototype.start;
  vi.spyOn(FreezeWatchdog.prototype, 'start').mockImplementation(function (this: FreezeWatchdog, seconds, onFire) {
    const off = stack.sim.onRequest(({ line }) => {
      if (!when(line)) return;
      off();
      start.call(this, seconds, onFire);
    });
  });
}

describe('restore under faults', () => {
  it('the mod disconnecting mid-summons: that summon fails, the rest is not sent, unfrozen after the reconnect, forceload released', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.disconnectOn('summon', 'after');
    const result = await stack.call('restore', { dir, ...apply, ...proof });
    expect(result).toMatchObject({ ok: false, verdict: 'failed', issued: 0, notAttempted: 1, partial: true, tick: { restored: true, preserved: true } });
    expect(result.failed).toEqual([expect.objectContaining({ uuid: CART_A, error: expect.stringMatching(/not connected|closed|lost/i) })]);
    expect(result.verification.ok).toBe(false);
    expect(result.forceload).toMatchObject({ added: true, released: true });
    expect(stack.sim.world.frozen).toBe(false);
    expect(stack.sim.received.filter(isSummon)).toHaveLength(1);
  });

  it('the link dropping before the freeze runs: refused with not_connected, and the undo still unfreezes', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.disconnectOn('tick freeze');
    const err = await failure(stack.call('restore', { dir, ...apply, ...proof }));
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(/the game was unfrozen again, as it was running before/);
    expect(stack.sim.world.frozen).toBe(false);
    expect(stack.sim.received.filter(isSummon)).toEqual([]);
  });

  it('the link dropping after forceload add ran: refused, unfrozen after the reconnect, and the forceload still released', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.disconnectOn('forceload add', 'after');
    const err = await failure(stack.call('restore', { dir, ...apply, ...proof }));
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(/the game was unfrozen again, as it was running before; forceload released/);
    // The add's answer was lost: only the game's word makes it added.
    expect(err.details).toMatchObject({ forceload: { added: false, answer: null, output: [] } });
    expect(stack.sim.world.frozen).toBe(false);
    expect(stack.sim.world.forcedChunks.get('minecraft:overworld')?.size ?? 0).toBe(0);
  });

  it('a failing baseline SNAPSHOT: mod_error, nothing summoned, unfrozen, forceload released', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.failNext('SNAPSHOT restore-pre');
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, ...apply, ...proof }));
    expect(err.code).toBe('mod_error');
    expect(err.message).toMatch(/simulated fault \(SNAPSHOT restore-pre\) \(the game was unfrozen again, as it was running before; forceload released\)/);
    expect(sentSince(stack, before).slice(-2)).toEqual(['CMD tick unfreeze', 'CMD forceload remove -6 -20 27 13']);
    expect(stack.sim.world.frozen).toBe(false);
  });

  for (const prior of ['running', 'frozen'] as const) {
    it(`a failing save-all during replace_existing: refused, and a ${prior} game ends ${prior}`, async () => {
      const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
      if (prior === 'frozen') await stack.call('command', { command: 'tick freeze' });
      stack.sim.failNext('save-all');
      const err = await failure(stack.call('restore', { dir, ...apply, replace_existing: true, ...proof }));
      expect(err.message).toMatch(/save-all flush after clearing failed .*Unable to save the game.*nothing was summoned/);
      expect(err.message).toContain(prior === 'running' ? 'the game was unfrozen again' : 'the game stays frozen, as it was before');
      expect(stack.sim.world.frozen).toBe(prior === 'frozen');
      expect(stack.sim.received.filter(isSummon)).toEqual([]);
      await endsWithoutRecovery(stack);
    });
  }

  it('a failing unfreeze after a failed step: the error says the game is still frozen and what to run', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.failNext('SNAPSHOT restore-pre');
    stack.sim.failNext('tick unfreeze');
    const err = await failure(stack.call('restore', { dir, ...apply, ...proof }));
    expect(err.message).toMatch(/unfreezing failed, so the game is still frozen .*run `tick unfreeze`/);
    expect(stack.sim.world.frozen).toBe(true);
  });

  it('the link dropping at the final unfreeze is waited out: restored', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.disconnectOn('tick unfreeze');
    const result = await stack.call('restore', { dir, ...apply, ...proof });
    expect(result).toMatchObject({ verdict: 'ok', tick: { restored: true, preserved: true }, forceload: { released: true } });
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('a cancel while a summon is in flight: no further summon, cancelled saying what the clean-up does; unfrozen, forceload released', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('summon', { delayMs: 1_000 }, { times: 1 });
    const abort = new AbortController();
    stack.sim.onRequest(({ line }) => {
      if (isSummon(line)) abort.abort();
    });
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, ...apply, ...proof }, { signal: abort.signal }));
    expect(err.code).toBe('cancelled');
    expect(err.message).toMatch(/restore cancelled during summon 1 of 2 \(0 issued\); the clean-up unfreezes the game \(it was running before\) and releases the forceload/);
    const sent = sentSince(stack, before);
    expect(sent.filter(isSummon)).toHaveLength(1);
    expect(sent.slice(-2)).toEqual(['CMD tick unfreeze', 'CMD forceload remove -6 -20 27 13']);
    expect(stack.sim.world.frozen).toBe(false);
    expect(stack.sim.world.findByUuid(CART_B)).toBeUndefined();
  });

  it('a cancel between summons (after progress): it stops there, the world frozen before stays frozen', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    await stack.call('command', { command: 'tick freeze' });
    stack.sim.fault('summon', { delayMs: 1_000 }, { times: 2 }); // the cancel arrives before the second summon ends
    const abort = new AbortController();
    const err = await failure(
      stack.call(
        'restore',
        { dir, ...apply, ...proof },
        {
          signal: abort.signal,
          onProgress: () => abort.abort(),
        },
      ),
    );
    expect(err.code).toBe('cancelled');
    expect(err.message).toMatch(/restore cancelled (after 1 of 2 summons|during summon 2 of 2 \(1 issued\)); the clean-up releases the forceload/);
    expect(stack.sim.world.frozen).toBe(true);
    expect(stack.sim.received.at(-1)).toBe('CMD forceload remove -6 -20 27 13');
    expect(stack.sim.received.filter((l) => l.startsWith('SNAPSHOT 0 restore-check'))).toEqual([]);
  });

  it('the freeze watchdog fires: it unfreezes once, no summon follows, failed with the note; the link stays in step', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('summon', { delayMs: 300 });
    armWatchdogOn(stack, isSummon);
    const before = stack.sim.received.length;
    const result = await stack.call('restore', { dir, ...apply, freeze_timeout_seconds: 0.05, ...proof });
    expect(result).toMatchObject({ ok: false, verdict: 'failed', tick: { watchdogUnfroze: true, restored: true } });
    expect(result.note).toMatch(/watchdog/);
    // It fired during the first summon: that one is answered, the second never sent.
    expect([result.issued, result.notAttempted]).toEqual([1, 1]);
    // Partial with no failed summon: the ones after the watchdog were never sent.
    expect([result.partial, result.failed]).toEqual([true, []]);
    const sent = sentSince(stack, before);
    expect(sent.filter((l) => l === 'CMD tick unfreeze')).toHaveLength(1);
    expect(sent.slice(sent.indexOf('CMD tick unfreeze') + 1).some(isSummon)).toBe(false);
    expect(stack.sim.world.frozen).toBe(false);
    // Every reply went to its own request: the game answers the next calls correctly.
    expect((await stack.call('command', { command: 'tick query' })).output[0]).toBe('The game is running normally');
    expect(await stack.call('state')).toMatchObject({ type: 'state' });
    expect(stack.daemon.host.link.stats.strayReplies).toBe(0);
  });

  it('the watchdog firing during a replace_existing clear: no refreeze after it, the running game ends running', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    stack.sim.fault('kill', { delayMs: 300 }, { times: 1 });
    armWatchdogOn(stack, (line) => line.startsWith('CMD kill'));
    const before = stack.sim.received.length;
    const result = await stack.call('restore', { dir, ...apply, replace_existing: true, freeze_timeout_seconds: 0.05, ...proof });
    expect(result).toMatchObject({ verdict: 'failed', issued: 0, notAttempted: 2, tick: { watchdogUnfroze: true, restored: true, preserved: true } });
    expect(result.tick.refrozen).toBeUndefined();
    expect(sentSince(stack, before).filter(isSummon)).toEqual([]);
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('the watchdog unfreezes past a summon the mod never answers, on a connection of its own (the predecessor stayed frozen)', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('summon', { noReply: true }, { times: 1 });
    armWatchdogOn(stack, isSummon);
    const abort = new AbortController();
    const call = failure(stack.call('restore', { dir, ...apply, freeze_timeout_seconds: 0.05, ...proof }, { signal: abort.signal }));
    await waitUntil(() => stack.sim.received.some(isSummon), 10_000, 'the summon to be sent');
    // The summon is still unanswered, and the main connection waits for it: only a side request gets through.
    await waitUntil(() => !stack.sim.world.frozen, 10_000, 'the watchdog to unfreeze the game');
    expect(stack.daemon.host.link.status().inFlight.map((e) => e.line)).toEqual([expect.stringMatching(/^CMD \/summon/)]);
    expect(stack.daemon.host.link.stats.sideRequests).toBeGreaterThan(0);
    // Ending it here: the clean-up's forceload release waits behind the owed summon reply (the owed grace).
    abort.abort();
    void call;
  });

  it('the watchdog disabled (freeze_timeout_seconds 0) never fires', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('summon', { delayMs: 100 });
    const result = await stack.call('restore', { dir, ...apply, freeze_timeout_seconds: 0, ...proof });
    expect(result.verdict).toBe('ok');
    expect(result.tick.watchdogUnfroze).toBeUndefined();
  });
});

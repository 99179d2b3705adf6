import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { failure, sentSince, useStacks } from '../support/plugins.js';
import { CART_A, CART_B, cart, recordedCarts, useTemps, writeRecording, numberedUuid as U } from '../support/restore.js';

/**
 * What restore answers, word for word, on the paths the other suites reach only by code: each
 * cancel point and what its clean-up will do, the dimension refusal, a summon the game answered
 * without summoning, the destination's collisions before and after a clear, the result's fields
 * from an odd meta.json, and the watchdog's timer at its limits.
 */
const stacks = useStacks();
const tmp = useTemps();
const apply = { dry_run: false, release_forceload: true };
const FORCELOAD = 'forceload add -6 -20 27 13';

type Stack = Awaited<ReturnType<typeof recordedCarts>>['stack'];

/** A restore cancelled while the request `target` names is held by the game (half a second): its error. */
function cancelledDuring(stack: Stack, target: string, arrived: (line: string) => boolean, params: Record<string, unknown>) {
  stack.sim.fault(target, { delayMs: 500 }, { times: 1 });
  const abort = new AbortController();
  stack.sim.onRequest(({ line }) => arrived(line) && abort.abort());
  return failure(stack.call('restore', params, { signal: abort.signal }));
}

describe('restore cancelled: what the clean-up will do, said before it runs', () => {
  it('during the baseline snapshot, the game running: unfreeze and release the forceload', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const err = await cancelledDuring(stack, 'SNAPSHOT restore-pre', (line) => line.includes('restore-pre'), { dir, ...apply, ...proof });
    expect(err.code).toBe('cancelled');
    expect(err.message).toBe(`restore cancelled before any summon was sent; the clean-up unfreezes the game (it was running before) and releases the forceload (${FORCELOAD})`);
    expect(err.details).toMatchObject({ tick: { prior: 'running', frozenByBridge: true } });
  });

  it('during the freeze itself: it may have landed, so the clean-up unfreezes', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const err = await cancelledDuring(stack, 'tick freeze', (line) => line === 'CMD tick freeze', { dir, ...apply, ...proof });
    expect(err.message).toBe('restore cancelled before any summon was sent; the clean-up unfreezes the game (it was running before)');
  });

  it('a frozen game and the forceload kept: nothing to undo', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    await stack.call('command', { command: 'tick freeze' });
    const err = await cancelledDuring(stack, 'SNAPSHOT restore-pre', (line) => line.includes('restore-pre'), { dir, dry_run: false, ...proof });
    expect(err.message).toBe('restore cancelled before any summon was sent; nothing to undo: the tick state was not changed');
    expect(stack.sim.world.frozen).toBe(true);
  });

  it('a frozen game unfrozen for the clear: the clean-up freezes it again', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    await stack.call('command', { command: 'tick freeze' });
    const err = await cancelledDuring(stack, 'kill', (line) => line.startsWith('CMD kill'), { dir, ...apply, replace_existing: true, ...proof });
    expect(err.message).toBe(`restore cancelled before any summon was sent; the clean-up freezes it again (it was frozen before) and releases the forceload (${FORCELOAD})`);
  });

  it('a running game unfrozen for the clear: the clean-up unfreezes, and never speaks of a refreeze', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    const err = await cancelledDuring(stack, 'kill', (line) => line.startsWith('CMD kill'), { dir, ...apply, replace_existing: true, ...proof });
    expect(err.message).toBe(`restore cancelled before any summon was sent; the clean-up unfreezes the game (it was running before) and releases the forceload (${FORCELOAD})`);
  });

  it('between summons, and during the verification snapshot', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const abort = new AbortController();
    const err = await failure(stack.call('restore', { dir, ...apply, ...proof }, { signal: abort.signal, onProgress: () => abort.abort() }));
    expect(err.message).toMatch(/^restore cancelled (after 1 of 2 summons|during summon 2 of 2 \(1 issued\)); the clean-up unfreezes the game \(it was running before\) and releases the forceload/);

    const again = await recordedCarts(stacks.start);
    const verifying = await cancelledDuring(again.stack, 'SNAPSHOT restore-check', (line) => line.includes('restore-check'), { dir: again.dir, ...apply, ...again.proof });
    expect(verifying.message).toBe(
      `restore cancelled after all 2 summons were issued, during verification; the clean-up unfreezes the game (it was running before) and releases the forceload (${FORCELOAD})`,
    );
  });
});

describe('restore: an apply answered in full', () => {
  it('a summon the game answered without summoning: its words kept (blank lines dropped) as the evidence of a failure', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('summon', { output: ['', 'Unable to summon entity', '   '] }, { times: 1 });
    const result = await stack.call('restore', { dir, ...apply, ...proof });
    expect(result.failed).toEqual([
      {
        index: 0,
        uuid: CART_A,
        command: expect.stringMatching(/^\/summon minecraft:chest_minecart 10\.5 64\.0 -3\.5 /),
        error: 'the entity is not present in the post-restore snapshot',
        gameOutput: ['Unable to summon entity'],
      },
    ]);
    expect(result).toMatchObject({ verdict: 'failed', issued: 2, notAttempted: 0, partial: true, ok: false });
    expect(result.note).toBeUndefined();
    // Answered with no words at all: a failure with no evidence to keep.
    const { stack: quiet, dir: quietDir, proof: quietProof } = await recordedCarts(stacks.start);
    quiet.sim.fault('summon', { output: [] }, { times: 1 });
    const silent = await quiet.call('restore', { dir: quietDir, ...apply, ...quietProof });
    expect(silent.failed).toHaveLength(1);
    expect('gameOutput' in silent.failed[0]).toBe(false);
  });

  it('ok: the dimension check and the verification snapshot reported, no note', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const result = await stack.call('restore', { dir, ...apply, ...proof });
    expect(result.verdict).toBe('ok');
    expect(result.checks.dimension).toEqual({ expected: 'minecraft:overworld', actual: 'minecraft:overworld', ok: true, verified: true });
    expect(result.verifiedSnapshotDir).toBe(result.verification.snapshotDir);
    expect(result.verifiedSnapshotDir).toMatch(/restore-check$/);
    expect(result).toMatchObject({ partial: false, failed: [], notAttempted: 0 });
    expect('note' in result).toBe(false);
  });

  it('unverified: the note says so and nothing else', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const result = await stack.call('restore', { dir, ...apply, verify: false, ...proof });
    expect(result).toMatchObject({ verdict: 'unverified', ok: null, verified: false, verification: null, verifiedSnapshotDir: null });
    expect(result.note).toBe('post-restore verification was disabled: commands were issued, but this is not a claim that the world was faithfully restored');
  });

  it('another dimension: refused with the check, after putting the game back', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const err = await failure(stack.call('restore', { dir, ...apply, expect_dimension: 'minecraft:the_nether', ...proof }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(
      /^destination dimension check failed: .+\. Nothing was restored - the summons would land in the wrong dimension\. Pass expect_dimension only if the recording really belongs there\. \(the game was unfrozen again, as it was running before; forceload released\)$/,
    );
    expect(err.details).toMatchObject({ dimension: { expected: 'minecraft:the_nether', actual: 'minecraft:overworld', ok: false }, tick: { restored: true }, forceload: { released: true } });
  });

  it('a second apply on the same game while one runs is refused busy, naming the restore', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.fault('summon', { delayMs: 400 }, { times: 1 });
    const first = stack.call('restore', { dir, ...apply, ...proof });
    await new Promise((r) => setTimeout(r, 150));
    const err = await failure(stack.call('restore', { dir, ...apply, ...proof }));
    expect(err.code).toBe('busy');
    expect(err.message).toMatch(/^a restore is changing this game /);
    expect((await first).verdict).toBe('ok');
  });
});

describe('restore: the destination already holds entities', () => {
  it('with no collision: none, and a note only when the destination holds anything', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const empty = await stack.call('restore', { dir, ...apply, ...proof });
    expect(empty.checks.existing).toEqual({ destinationEntities: 0, collisions: 0, uuidCollisions: { count: 0, sample: [] }, spatialCollisions: { count: 0, sample: [] }, action: 'none' });
    const other = await recordedCarts(stacks.start);
    other.stack.sim.world.addEntity({ type: 'minecraft:pig', uuid: U(9), x: 200, y: 64, z: 200 });
    const beside = await other.stack.call('restore', { dir: other.dir, ...apply, ...other.proof });
    expect(beside.checks.existing).toMatchObject({ destinationEntities: 1, action: 'none (no collisions)', note: 'destination entities do not collide with the recording' });
  });

  it('refused: the counts, what to do, and the report in the details', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    const err = await failure(stack.call('restore', { dir, dry_run: false, ...proof }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(
      /^destination already holds 2 entity\/entities that the restore would duplicate \(uuid collisions: 2, same-type-at-recorded-position: 0\)\. Nothing was restored\. Clear the copied world first \(kill in the recorded box, then save-all flush\) or pass replace_existing=true to let the bridge do it\. \(/,
    );
    expect(err.details?.existing).toMatchObject({ destinationEntities: 2, collisions: 2, action: 'none', uuidCollisions: { count: 2, sample: [CART_A, CART_B] } });
  });

  it('cleared: each kill and its output kept; others outside the recording named in a note', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    stack.sim.world.addEntity({ type: 'minecraft:pig', uuid: U(9), x: 200, y: 64, z: 200 });
    const result = await stack.call('restore', { dir, ...apply, replace_existing: true, ...proof });
    const existing = result.checks.existing;
    expect(existing.clearOutput.map((e: { command: string }) => e.command)).toEqual(existing.clearCommands);
    expect(existing.clearOutput).toHaveLength(existing.clearCommands.length);
    expect(existing.note).toBe('1 pre-existing entity/entities outside the recording were left in place');
    const alone = await recordedCarts(stacks.start, { keep: true });
    const cleared = await alone.stack.call('restore', { dir: alone.dir, ...apply, replace_existing: true, ...alone.proof });
    expect(cleared.checks.existing.action).toBe('cleared+flushed');
    expect('note' in cleared.checks.existing).toBe(false);
  });

  it('a recorded uuid left far from its spot: refused though nothing is at the recorded positions', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    const moved = stack.sim.world.findByUuid(CART_A)!;
    moved.x = 300;
    moved.z = 300;
    stack.sim.fault('kill', { output: 'No entity was found' });
    const err = await failure(stack.call('restore', { dir, ...apply, replace_existing: true, ...proof }));
    expect(err.message).toContain('replace_existing cleared the detected collisions but 2 entity/entities are still at the recorded positions');
    expect(err.details?.existing).toMatchObject({ remainingCollisions: 2, remainingAtRecordedPositions: 1 });
    // Only the uuid collision left: nothing near a recorded position.
    const far = await recordedCarts(stacks.start, { keep: true });
    await far.stack.call('command', { command: `kill ${CART_B}` });
    const farA = far.stack.sim.world.findByUuid(CART_A)!;
    farA.x = 300;
    far.stack.sim.fault('kill', { output: 'No entity was found' });
    const lone = await failure(far.stack.call('restore', { dir: far.dir, ...apply, replace_existing: true, ...far.proof }));
    expect(lone.message).toContain(
      `but 1 entity/entities are still at the recorded positions after save-all flush; refusing a restore that would duplicate or collide. Leftovers: ${JSON.stringify([{ uuid: CART_A, type: 'minecraft:chest_minecart', pos: [300, 64, -3.5] }])}`,
    );
  });

  it('leftovers are listed ten at most', async () => {
    const pigs = Array.from({ length: 4 }, (_, i) => ({ type: 'minecraft:pig', uuid: U(i + 1), x: 50 + 10 * i, y: 64, z: 0 }));
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true, extra: pigs });
    stack.sim.fault('kill', { output: 'No entity was found' });
    const err = await failure(stack.call('restore', { dir, ...apply, replace_existing: true, ...proof }));
    const listed = JSON.parse(err.message.slice(err.message.indexOf('Leftovers: ') + 'Leftovers: '.length, err.message.lastIndexOf(' (')));
    expect(listed).toHaveLength(10);
    expect(err.message).toContain('but 6 entity/entities are still');
  });

  it('a kill that did nothing: refused, naming what is still there', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    stack.sim.fault('kill', { output: 'No entity was found' });
    const err = await failure(stack.call('restore', { dir, ...apply, replace_existing: true, ...proof }));
    expect(err.code).toBe('mod_error');
    const left = [
      { uuid: CART_A, type: 'minecraft:chest_minecart', pos: [10.5, 64, -3.5] },
      { uuid: CART_B, type: 'minecraft:chest_minecart', pos: [11, 64, -4] },
    ];
    expect(err.message).toContain(
      `replace_existing cleared the detected collisions but 2 entity/entities are still at the recorded positions after save-all flush; refusing a restore that would duplicate or collide. Leftovers: ${JSON.stringify([...left, ...left])}`,
    );
    expect(err.details?.existing).toMatchObject({ action: 'cleared+flushed', remainingCollisions: 2, remainingAtRecordedPositions: 2 });
  });

  it('a save that failed after the clear: refused before any summon, with the kills it sent', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    stack.sim.fault('save-all', { output: 'Unable to save the game (is there enough disk space?)' }, { times: 1 });
    const err = await failure(stack.call('restore', { dir, ...apply, replace_existing: true, ...proof }));
    expect(err.code).toBe('mod_error');
    expect(err.message).toMatch(/^save-all flush after clearing failed \(\["Unable to save the game \(is there enough disk space\?\)"\]\); nothing was summoned \(/);
    expect(err.details?.clearCommands).toEqual([expect.stringMatching(/^kill @e\[type=minecraft:chest_minecart,/), expect.anything(), expect.anything(), expect.anything()]);
  });
});

describe('restore: a dry run of an odd recording', () => {
  it('fields meta.json does not give as it should are null; a source world that is empty text is no source world', async () => {
    const stack = await stacks.start({ sim: { autoTick: false } });
    const dir = writeRecording(tmp(), [cart(U(1), [0, 64, 0])], { dimension: 7, levelName: ['w'], playersSkipped: '2', worldDir: '' });
    const dry = await stack.call('restore', { dir });
    expect(dry).toMatchObject({ dimension: null, levelName: null, playersExcluded: null, count: 1, summonable: 1 });
    expect('sourceWorld' in dry.checks).toBe(false);
    const named = writeRecording(tmp(), [cart(U(1), [0, 64, 0])], { worldDir: 5 });
    expect('sourceWorld' in (await stack.call('restore', { dir: named })).checks).toBe(false);
    const plain = writeRecording(tmp(), [cart(U(1), [0, 64, 0])], { levelName: 'lab', playersSkipped: 3 });
    expect(await stack.call('restore', { dir: plain })).toMatchObject({ dimension: 'minecraft:overworld', levelName: 'lab', playersExcluded: 3 });
  });

  it('command runners: five named, the first hundred in the details', async () => {
    const stack = await stacks.start({ sim: { autoTick: false } });
    const carts = Array.from({ length: 101 }, (_, i) => cart(U(i + 1), [i, 64, 0], { type: 'minecraft:command_block_minecart' }));
    const dir = writeRecording(tmp(), carts);
    const err = await failure(stack.call('restore', { dir }));
    const shown = [0, 1, 2, 3, 4].map((i) => `line ${i + 1} minecraft:command_block_minecart ${U(i + 1)}`).join('; ');
    expect(err.message).toBe(
      `${dir} holds 101 entity/entities that run commands (command block minecarts, or NBT with a Command): ${shown}. Nothing was sent to the game. Pass allow_command_entities=true only if you trust every command in this recording.`,
    );
    expect(err.details?.commandEntities).toHaveLength(100);
  });

  it('the source world: refused for an apply, with the check in the details', async () => {
    const { stack, dir } = await recordedCarts(stacks.start);
    const world = path.join(stack.sim.dir, 'world');
    const err = await failure(stack.call('restore', { dir, dry_run: false, expect_world_dir: world }));
    expect(err.message).toMatch(
      /^the recording was taken from .+, the destination's own world: restoring it there would summon its entities a second time beside the originals\. Nothing was sent to the game\. Restore into a copy \(a lab on the fork\), or pass allow_source_world=true if you removed them first\.$/,
    );
    expect(err.details?.sourceWorld).toEqual({ worldDir: expect.any(String), sameAsDestination: true, allowed: false });
  });

  it('no proof: refused, saying which proofs there are, with the endpoint check', async () => {
    const stack = await stacks.start({ sim: { autoTick: false } });
    const dir = writeRecording(tmp(), [cart(U(1), [0, 64, 0])]);
    const err = await failure(stack.call('restore', { dir, dry_run: false }));
    expect(err.message).toBe(
      'apply requires an endpoint proof: pass expect_world_dir (strongest), expect_instance or expect_level; nothing was sent to the game. Pass allow_unproven_destination=true to override explicitly.',
    );
    expect(err.details?.endpoint).toMatchObject({ verified: false });
    stack.sim.failNext('STATE');
    const blind = await failure(stack.call('restore', { dir, dry_run: false }));
    expect(blind.message).toMatch(
      /^cannot prove the destination endpoint: STATE failed \(.+\); nothing was sent to the game\. Pass allow_unproven_destination=true only if you accept writing to an unproven instance\.$/,
    );
  });
});

describe('the freeze watchdog timer', () => {
  it('a timeout past what a timer holds is capped, not fired at once', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const result = await stack.call('restore', { dir, ...apply, freeze_timeout_seconds: 3e6, ...proof });
    expect(result.verdict).toBe('ok');
    expect(result.tick.watchdogUnfroze).toBeUndefined();
  });

  it('stopped at the end of an apply: it never fires afterwards', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    const result = await stack.call('restore', { dir, ...apply, freeze_timeout_seconds: 0.3, ...proof });
    expect(result.verdict).toBe('ok');
    const after = stack.sim.received.length;
    await new Promise((r) => setTimeout(r, 600));
    expect(sentSince(stack, after)).toEqual([]);
  });
});

describe('order: refusals', () => {
  it('an empty orderHash cannot be compared; an unreadable recording says it cannot be compared', async () => {
    const stack = await stacks.start({ sim: { autoTick: false } });
    const dir = writeRecording(tmp(), [], { orderHash: '' });
    const err = await failure(stack.call('order', { dir }));
    expect([err.code, err.message]).toEqual(['invalid_params', `${dir}: meta.json has no orderHash to compare with`]);
    const bad = tmp();
    const broken = await failure(stack.call('order', { dir: bad }));
    expect(broken.message).toMatch(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be compared: 1 blocking issue\\(s\\)\\. Nothing was sent to the game\\. `));
  });
});

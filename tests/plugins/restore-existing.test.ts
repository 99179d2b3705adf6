import { describe, expect, it } from 'vitest';
import { failure, sentSince, useStacks } from '../support/plugins.js';
import { CART_A, CART_A_POS, CART_B, CART_B_POS, recordedCarts } from '../support/restore.js';

/** What the destination already holds: refusal, narrow clearing (replace_existing), leftovers. */
const stacks = useStacks();
const isSummon = (l: string) => l.startsWith('CMD /summon');

/** Each request with whether the game was frozen when it arrived. */
function frozenAt(stack: Awaited<ReturnType<typeof recordedCarts>>['stack']): Array<[string, boolean]> {
  const seen: Array<[string, boolean]> = [];
  stack.sim.onRequest(({ line }) => seen.push([line, stack.sim.world.frozen]));
  return seen;
}

describe('restore into a destination that already holds the entities', () => {
  it('duplicates are refused with the evidence; nothing summoned, the destination unchanged, unfrozen', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, dry_run: false, ...proof }));
    expect(err.message).toMatch(/destination already holds 2 entity\/entities that the restore would duplicate \(uuid collisions: 2, same-type-at-recorded-position: 0\)\. Nothing was restored/);
    expect(err.message).toMatch(/the game was unfrozen again/);
    const sent = sentSince(stack, before);
    expect(sent.filter(isSummon)).toEqual([]);
    expect(sent.at(-1)).toBe('CMD tick unfreeze');
    expect(stack.sim.world.frozen).toBe(false);
    expect(stack.sim.world.entities.filter((e) => !e.player).map((e) => e.uuid)).toEqual([CART_A, CART_B]);
  });

  it('replace_existing kills exactly the collisions with the game running, saves, refreezes, rechecks, then restores: ok', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    const seen = frozenAt(stack);
    const result = await stack.call('restore', { dir, dry_run: false, replace_existing: true, target: 'lab', ...proof });
    expect(result).toMatchObject({
      verdict: 'ok',
      issued: 2,
      checks: { existing: { action: 'cleared+flushed', collisions: 2, remainingCollisions: 0, remainingAtRecordedPositions: 0 } },
      tick: { prior: 'running', frozenByBridge: true, clearedWhileRunning: true, refrozen: true, restored: true, preserved: true },
    });
    const lines = seen.map(([l]) => l);
    const at = (pred: (l: string) => boolean, last = false) => (last ? lines.findLastIndex(pred) : lines.findIndex(pred));
    const freeze = at((l) => l === 'CMD tick freeze');
    const firstUnfreeze = at((l) => l === 'CMD tick unfreeze');
    const firstKill = at((l) => l.startsWith('CMD kill'));
    const flush = at((l) => l === 'CMD save-all flush');
    const lastFreeze = at((l) => l === 'CMD tick freeze', true);
    const firstSummon = at(isSummon);
    const lastSummon = at(isSummon, true);
    const lastUnfreeze = at((l) => l === 'CMD tick unfreeze', true);
    expect(freeze).toBeLessThan(at((l) => l.startsWith('CMD forceload add')));
    for (const [a, b] of [
      [freeze, firstUnfreeze],
      [firstUnfreeze, firstKill],
      [firstKill, flush],
      [flush, lastFreeze],
      [lastFreeze, firstSummon],
      [lastSummon, lastUnfreeze],
    ]) {
      expect(a).toBeLessThan(b!);
    }
    // Kills and the flush ran with the game running; all three snapshots were taken frozen.
    for (const [line, frozen] of seen) {
      if (line.startsWith('CMD kill') || line === 'CMD save-all flush') expect(frozen, line).toBe(false);
      if (line.startsWith('SNAPSHOT')) expect(frozen, line).toBe(true);
    }
    expect(lines.filter((l) => l.startsWith('SNAPSHOT'))).toEqual(['SNAPSHOT 0 restore-pre-lab', 'SNAPSHOT 0 restore-pre-cleared-lab', 'SNAPSHOT 0 restore-check-lab']);
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('the clear is narrow: distance-bounded kills at the recorded spots only, never a box or dx=', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    const result = await stack.call('restore', { dir, dry_run: false, replace_existing: true, ...proof });
    const commands: string[] = result.checks.existing.clearCommands;
    expect(commands).toEqual([
      'kill @e[type=minecraft:chest_minecart,x=10.5,y=64.0,z=-3.5,distance=..1]',
      'kill @e[type=minecraft:chest_minecart,x=11.0,y=64.0,z=-4.0,distance=..1]',
      'kill @e[type=minecraft:item,x=10.5,y=64.0,z=-3.5,distance=..2]',
      'kill @e[type=minecraft:item,x=11.0,y=64.0,z=-4.0,distance=..2]',
    ]);
    for (const c of commands) {
      expect(c).toMatch(/distance=\.\./);
      expect(c).not.toMatch(/dx=|x=-16/);
    }
    expect(result.verdict).toBe('ok');
  });

  it('a same-type entity at a recorded spot is a collision; other entities stay and are noted', async () => {
    const OTHER = '0d000000-0000-4000-8000-00000000000d';
    const FAR = '0e000000-0000-4000-8000-00000000000e';
    const { stack, dir, proof } = await recordedCarts(stacks.start);
    stack.sim.world.addEntity({ type: 'minecraft:chest_minecart', uuid: OTHER, x: CART_A_POS[0] + 0.25, y: 64, z: CART_A_POS[2] });
    stack.sim.world.addEntity({ type: 'minecraft:cow', uuid: FAR, x: 40.5, y: 64, z: 40.5 });
    const refused = await failure(stack.call('restore', { dir, dry_run: false, ...proof }));
    expect(refused.message).toMatch(/uuid collisions: 0, same-type-at-recorded-position: 1/);
    const result = await stack.call('restore', { dir, dry_run: false, replace_existing: true, strict: false, ...proof });
    expect(result.checks.existing).toMatchObject({ collisions: 1, spatialCollisions: { count: 1 }, action: 'cleared+flushed' });
    expect(result.checks.existing.spatialCollisions.sample[0]).toMatchObject({ uuid: OTHER, expectedType: 'minecraft:chest_minecart', distance: 0.25 });
    expect(result.checks.existing.note).toMatch(/1 pre-existing entity\/entities outside the recording were left in place/);
    expect(stack.sim.world.findByUuid(OTHER)).toBeUndefined();
    expect(stack.sim.world.findByUuid(FAR)).toBeDefined();
    expect(result.verdict).toBe('ok');
  });

  it('an entity still at a recorded spot after the clear refuses the restore; unfrozen, nothing summoned', async () => {
    const PIG = '0f000000-0000-4000-8000-00000000000f';
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    stack.sim.world.addEntity({ type: 'minecraft:pig', uuid: PIG, x: CART_B_POS[0], y: 64, z: CART_B_POS[2] });
    const before = stack.sim.received.length;
    const err = await failure(stack.call('restore', { dir, dry_run: false, replace_existing: true, ...proof }));
    expect(err.message).toMatch(/still at the recorded positions after save-all flush; refusing .*Leftovers: .*0f000000/);
    const sent = sentSince(stack, before);
    expect(sent.filter(isSummon)).toEqual([]);
    expect(sent.at(-1)).toBe('CMD tick unfreeze');
    expect(stack.sim.world.frozen).toBe(false);
  });

  it('a frozen destination is unfrozen only for the clear and ends frozen', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    await stack.call('command', { command: 'tick freeze' });
    const result = await stack.call('restore', { dir, dry_run: false, replace_existing: true, ...proof });
    expect(result.tick).toMatchObject({ prior: 'frozen', frozenByBridge: false, clearedWhileRunning: true, refrozen: true, preserved: true });
    expect(stack.sim.world.frozen).toBe(true);
    expect(result.verdict).toBe('ok');
  });

  it('check_existing=false lets a collision through and says so', async () => {
    const { stack, dir, proof } = await recordedCarts(stacks.start, { keep: true });
    const result = await stack.call('restore', { dir, dry_run: false, check_existing: false, verify: false, ...proof });
    expect(result.checks.existing).toMatchObject({ collisions: 2, action: 'allowed (check_existing=false)' });
    expect(result.checks.existing.note).toMatch(/left in place/);
  });
});

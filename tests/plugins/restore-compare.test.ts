import { describe, expect, it } from 'vitest';
import { compareSnapshots, velocityOf, type CompareOptions, type Side } from '../../plugins/restore/compare.js';
import { itemsFragment, stripTopLevelKeys } from '../../plugins/restore/snbt-top.js';

/** The full-state comparison behind verify and restore's verdict. */
const A = '0a000000-0000-4000-8000-00000000000a';
const B = '0b000000-0000-4000-8000-00000000000b';
const C = '0c000000-0000-4000-8000-00000000000c';
const STRICT: CompareOptions = { strict: true, posTolerance: 0.01, velTolerance: 0.01, ignoreNbtKeys: [] };
const LENIENT: CompareOptions = { ...STRICT, strict: false };

const rec = (uuid: string, extra: Record<string, unknown> = {}) => ({
  uuid,
  type: 'minecraft:chest_minecart',
  pos: [10.5, 64, -3.5],
  vel: [0, 0, 0],
  nbt: `{"Motion":[0.0d,0.0d,0.0d],"Items":[{"Slot":0b,"id":"minecraft:diamond","count":3}],"UUID":"${uuid}"}`,
  ...extra,
});
const side = (entities: Record<string, unknown>[], meta: Record<string, unknown> = {}): Side => ({ meta: { dimension: 'minecraft:overworld', ...meta }, entities });

describe('compareSnapshots', () => {
  it('identical: ok, hash and counts match, no NBT mismatch, both matched', async () => {
    const r = await compareSnapshots(side([rec(A), rec(B)]), side([rec(A), rec(B)]), STRICT);
    expect(r).toMatchObject({ ok: true, matched: 2, orderHash: { match: true }, counts: { match: true }, nbtMismatches: { count: 0 } });
    expect(r.dimension).toEqual({ expected: 'minecraft:overworld', actual: 'minecraft:overworld', match: true });
  });

  it('an inventory change with the same order fails on NBT and shows both inventories', async () => {
    const changed = rec(A, { nbt: rec(A).nbt.replace('minecraft:diamond', 'minecraft:dirt') });
    const r = await compareSnapshots(side([rec(A)]), side([changed]), STRICT);
    expect(r.ok).toBe(false);
    expect(r.orderHash.match).toBe(true);
    expect(r.nbtMismatches.sample[0]).toMatchObject({ uuid: A, expectedInventory: expect.stringContaining('diamond'), actualInventory: expect.stringContaining('dirt') });
  });

  it('reordered: order and hash mismatch, divergence at index 0', async () => {
    const r = await compareSnapshots(side([rec(A), rec(B)]), side([rec(B), rec(A)]), STRICT);
    expect(r.ok).toBe(false);
    expect(r.failures).toMatchObject({ order: true, subsequence: true });
    expect(r.orderHash.match).toBe(false);
    expect(r.uuidOrder.divergence).toEqual({ index: 0, expected: A, actual: B });
  });

  it('position drift and velocity drift each fail', async () => {
    const moved = await compareSnapshots(side([rec(A)]), side([rec(A, { pos: [12.5, 64, -3.5] })]), STRICT);
    expect(moved.positionDeltas.sample[0]).toMatchObject({ uuid: A, distance: 2 });
    expect(moved.ok).toBe(false);
    const fast = await compareSnapshots(side([rec(A)]), side([rec(A, { vel: [0.5, 0, 0] })]), STRICT);
    expect(fast.failures.velocities).toBe(true);
  });

  it('missing fails strict and lenient; an extra fails strict only; an empty destination misses all', async () => {
    for (const o of [STRICT, LENIENT]) {
      const r = await compareSnapshots(side([rec(A), rec(B)]), side([rec(A)]), o);
      expect(r.ok).toBe(false);
      expect(r.missing).toEqual({ count: 1, sample: [B] });
    }
    const extra = [rec(A), rec(C)];
    expect(await compareSnapshots(side([rec(A)]), side(extra), STRICT)).toMatchObject({ ok: false, counts: { match: false } });
    expect(await compareSnapshots(side([rec(A)]), side(extra), LENIENT)).toMatchObject({ ok: true, unexpected: { count: 1 } });
    expect((await compareSnapshots(side([rec(A), rec(B)]), side([]), STRICT)).missing.count).toBe(2);
  });

  it('ignore_nbt_keys lets a change of that key alone pass', async () => {
    const other = rec(A, { nbt: rec(A).nbt.replace(`"UUID":"${A}"`, '"UUID":"x"') });
    expect((await compareSnapshots(side([rec(A)]), side([other]), STRICT)).ok).toBe(false);
    expect((await compareSnapshots(side([rec(A)]), side([other]), { ...STRICT, ignoreNbtKeys: ['UUID'] })).ok).toBe(true);
  });

  it('players excluded come from meta; a dimension mismatch fails', async () => {
    const r = await compareSnapshots(side([rec(A)], { playersSkipped: 1, dimension: 'minecraft:the_nether' }), side([rec(A)], { playersSkipped: 0 }), STRICT);
    expect(r.playersExcluded).toEqual({ expected: 1, actual: 0 });
    expect(r.failures.dimension).toBe(true);
    expect(r.ok).toBe(false);
  });

  it('malformed or duplicated actual records fail with the problem named', async () => {
    const r = await compareSnapshots(side([rec(A)]), side([rec(A, { pos: '1 2 3' }), rec(B, { vel: [1, 2] }), rec(C, { type: undefined }), rec('', {})]), LENIENT);
    expect(r.actualMalformed.sample.map((m) => m.problems)).toEqual([['pos'], ['vel'], ['type'], ['uuid']]);
    expect(r.ok).toBe(false);
    const dup = await compareSnapshots(side([rec(A)]), side([rec(A), rec(A)]), LENIENT);
    expect(dup.actualDuplicateUuids).toEqual({ count: 1, sample: [A] });
    expect(dup.ok).toBe(false);
  });

  it('a position or velocity missing on one side is a mismatch; velocity falls back to the NBT Motion', async () => {
    const noPos = await compareSnapshots(side([rec(A)]), side([rec(A, { pos: undefined })]), LENIENT);
    expect(noPos.positionDeltas.sample[0]).toMatchObject({ distance: null, reason: expect.stringContaining('missing') });
    const noVel = await compareSnapshots(side([rec(A)]), side([rec(A, { vel: undefined, nbt: '{"UUID":"x"}' })]), { ...LENIENT, ignoreNbtKeys: ['UUID', 'Motion', 'Items'] });
    expect(noVel.velocityDeltas.sample[0]).toMatchObject({ actual: null, reason: 'velocity missing on the actual side' });
    expect(velocityOf({ nbt: '{"Motion":[0.5d,-0.0784d,1.0E-5d]}' })).toEqual([0.5, -0.0784, 1e-5]);
  });
});

describe('top-level SNBT', () => {
  it('the Items fragment: extracted, absent is null, a nested components.Items never shadows it', async () => {
    expect(itemsFragment('{"a":1,"Items":[{"id":"x"}],"b":"}"}')).toBe('[{"id":"x"}]');
    expect(itemsFragment('{"a":1}')).toBeNull();
    expect(itemsFragment('{"components":{"Items":[1]},"Items":[2]}')).toBe('[2]');
    expect(itemsFragment('{"components":{"Items":[1]}}')).toBeNull();
  });

  it('stripping removes only the named keys; none named is the identity; quoted commas and braces survive', async () => {
    const text = '{"UUID":[I;1,2,3,4],"CustomName":"a,b}{","Tags":["x"]}';
    expect(stripTopLevelKeys(text, ['UUID'])).toBe('{"CustomName":"a,b}{","Tags":["x"]}');
    expect(stripTopLevelKeys(text, [])).toBe(text);
    expect(stripTopLevelKeys('{UUID:[I;1,2,3,4],fuse:80s}', ['UUID'])).toBe('{"fuse":80s}'); // bare keys too (the predecessor stripped nothing)
  });
});

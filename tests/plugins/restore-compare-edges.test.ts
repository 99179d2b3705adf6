import { describe, expect, it } from 'vitest';
import { SLICE } from '../../plugins/restore/turns.js';
import { compareSnapshots, velocityOf, type CompareOptions, type Side } from '../../plugins/restore/compare.js';
import { itemsFragment, stripTopLevelKeys, topLevelEntries } from '../../plugins/restore/snbt-top.js';
import { numberedUuid as U } from '../support/restore.js';

/**
 * The comparison's edges, field by field: each kind of difference alone and what it does to the
 * strict and the lenient verdict, the tolerances at their exact bounds, the samples and clips, the
 * counts table's order; and the SNBT reader on the inputs it must refuse rather than misread.
 */
const STRICT: CompareOptions = { strict: true, posTolerance: 0.5, velTolerance: 0.5, ignoreNbtKeys: [] };
const LENIENT: CompareOptions = { ...STRICT, strict: false };
const e = (n: number, extra: Record<string, unknown> = {}) => ({ uuid: U(n), type: 'minecraft:pig', pos: [0, 64, 0], vel: [0, 0, 0], nbt: '{a:1}', ...extra });
const side = (entities: Record<string, unknown>[], meta: Record<string, unknown> = {}): Side => ({ meta: { dimension: 'minecraft:overworld', ...meta }, entities });
const compare = (want: Record<string, unknown>[], got: Record<string, unknown>[], o = STRICT) => compareSnapshots(side(want), side(got), o);
const NO_FAILURE = {
  order: false,
  counts: false,
  missing: false,
  unexpected: false,
  types: false,
  positions: false,
  velocities: false,
  nbt: false,
  subsequence: false,
  dimension: false,
  actualMalformed: false,
};

describe('compareSnapshots: one difference at a time', () => {
  const cases: Array<[string, Record<string, unknown>[], Record<string, unknown>[], Partial<typeof NO_FAILURE>, boolean]> = [
    ['nothing', [e(1)], [e(1)], {}, true],
    ['an extra entity', [e(1)], [e(1), e(2)], { counts: true, unexpected: true, order: true }, true],
    ['a missing entity', [e(1), e(2)], [e(1)], { counts: true, missing: true, order: true, subsequence: true }, false],
    ['a type', [e(1)], [e(1, { type: 'minecraft:cow' })], { types: true, counts: true }, false],
    ['a position', [e(1)], [e(1, { pos: [1, 64, 0] })], { positions: true }, false],
    ['a velocity', [e(1)], [e(1, { vel: [1, 0, 0] })], { velocities: true }, false],
    ['the NBT', [e(1)], [e(1, { nbt: '{a:2}' })], { nbt: true }, false],
    ['a malformed velocity (read as none)', [e(1)], [e(1, { vel: [1] })], { actualMalformed: true, velocities: true }, false],
    ['a repeated uuid', [e(1)], [e(1), e(1)], { actualMalformed: true, counts: true, order: true }, false],
    ['the order alone', [e(1), e(2)], [e(2), e(1)], { order: true, subsequence: true }, false],
  ];
  for (const [what, want, got, failures, lenient] of cases) {
    it(`${what}: strict ${Object.keys(failures).length === 0 ? 'passes' : 'fails'}, lenient ${lenient ? 'passes' : 'fails'}`, async () => {
      const strict = await compare(want, got);
      expect(strict.failures).toEqual({ ...NO_FAILURE, ...failures });
      expect(strict.ok).toBe(Object.keys(failures).length === 0);
      expect((await compare(want, got, LENIENT)).ok).toBe(lenient);
    });
  }

  it('a different dimension fails both; an unknown recorded one is not checked', async () => {
    const moved = await compareSnapshots(side([e(1)]), side([e(1)], { dimension: 'minecraft:the_end' }), LENIENT);
    expect([moved.ok, moved.failures.dimension]).toEqual([false, true]);
    const unknown = await compareSnapshots(side([e(1)], { dimension: 5 }), side([e(1)], { dimension: 7 }), STRICT);
    expect(unknown.dimension).toEqual({ expected: null, actual: null, match: null });
    expect(unknown.ok).toBe(true);
    const none = await compareSnapshots(side([e(1)], { dimension: undefined }), side([e(1)]), STRICT);
    expect(none.dimension).toEqual({ expected: null, actual: 'minecraft:overworld', match: null });
  });

  it('players excluded: a number or null', async () => {
    const r = await compareSnapshots(side([e(1)], { playersSkipped: '2' }), side([e(1)], { playersSkipped: 3 }), STRICT);
    expect(r.playersExcluded).toEqual({ expected: null, actual: 3 });
  });
});

describe('compareSnapshots: the detail rows', () => {
  it('tolerances: exactly at the bound passes, past it is a delta with the distance', async () => {
    const at = await compare([e(1)], [e(1, { pos: [0.5, 64, 0], vel: [0, 0.5, 0] })]);
    expect([at.positionDeltas.count, at.velocityDeltas.count]).toEqual([0, 0]);
    const past = await compare([e(1)], [e(1, { pos: [0.75, 64, 0], vel: [0, 0.75, 0] })]);
    expect(past.positionDeltas).toEqual({ count: 1, sample: [{ uuid: U(1), expected: [0, 64, 0], actual: [0.75, 64, 0], distance: 0.75 }], tolerance: 0.5 });
    expect(past.velocityDeltas).toEqual({ count: 1, sample: [{ uuid: U(1), expected: [0, 0, 0], actual: [0, 0.75, 0], distance: 0.75 }], tolerance: 0.5 });
  });

  it('a position missing on either side is named; on both, nothing is said; a velocity only recorded on the actual side is not a delta', async () => {
    const r = await compare([e(1, { pos: null }), e(2), e(3, { pos: null }), e(4, { vel: null, nbt: '{}' })], [e(1), e(2, { pos: null }), e(3, { pos: null }), e(4, { nbt: '{}' })], LENIENT);
    expect(r.positionDeltas.sample).toEqual([
      { uuid: U(1), expected: null, actual: [0, 64, 0], distance: null, reason: 'position missing on the expected side' },
      { uuid: U(2), expected: [0, 64, 0], actual: null, distance: null, reason: 'position missing on the actual side' },
    ]);
    expect(r.velocityDeltas.count).toBe(0);
  });

  it('type mismatches name both sides, null for none; the counts table counts "?" for no type, largest first, then by name', async () => {
    const r = await compare(
      [e(1), e(2, { type: 'minecraft:cow' }), e(3, { type: 'minecraft:cow' }), e(4, { type: 'minecraft:bee' })],
      [e(1, { type: undefined }), e(2, { type: 'minecraft:cow' }), e(3, { type: 'minecraft:cow' }), e(4, { type: 'minecraft:bee' })],
      LENIENT,
    );
    expect(r.typeMismatches).toEqual({ count: 1, sample: [{ uuid: U(1), expected: 'minecraft:pig', actual: null }] });
    expect(r.counts).toEqual({
      match: false,
      byType: [
        { type: 'minecraft:cow', expected: 2, actual: 2, delta: 0 },
        { type: 'minecraft:bee', expected: 1, actual: 1, delta: 0 },
        { type: '?', expected: 0, actual: 1, delta: 1 },
        { type: 'minecraft:pig', expected: 1, actual: 0, delta: -1 },
      ],
    });
  });

  it('an NBT row: texts clipped past 240 characters, inventories only when they differ, "(none)" for no Items', async () => {
    const long = `{a:"${'x'.repeat(300)}"}`;
    const exact = `{a:"${'y'.repeat(234)}"}`; // 240 characters: shown whole
    expect(exact).toHaveLength(240);
    const r = await compare(
      [e(1, { nbt: long }), e(2, { nbt: '{Items:[1],a:1}' }), e(3, { nbt: undefined, type: undefined })],
      [e(1, { nbt: exact }), e(2, { nbt: '{a:1}' }), e(3, { nbt: '{b:1}', type: undefined })],
      LENIENT,
    );
    expect(r.nbtMismatches.sample).toEqual([
      { uuid: U(1), type: 'minecraft:pig', expected: `${long.slice(0, 240)}...`, actual: exact },
      { uuid: U(2), type: 'minecraft:pig', expected: '{Items:[1],a:1}', actual: '{a:1}', expectedInventory: '[1]', actualInventory: '(none)' },
      { uuid: U(3), type: null, expected: '', actual: '{b:1}' },
    ]);
    const other = await compare([e(1, { nbt: '{a:1}' }), e(2, { nbt: '{b:1}' })], [e(1, { nbt: '{Items:[2],a:1}' }), e(2, { nbt: undefined })], LENIENT);
    expect(other.nbtMismatches.sample).toEqual([
      { uuid: U(1), type: 'minecraft:pig', expected: '{a:1}', actual: '{Items:[2],a:1}', expectedInventory: '(none)', actualInventory: '[2]' },
      { uuid: U(2), type: 'minecraft:pig', expected: '{b:1}', actual: '' },
    ]);
    const same = await compare([e(1, { nbt: '{Items:[1],a:1}' })], [e(1, { nbt: '{Items:[1],a:2}' })]);
    expect(same.nbtMismatches.sample).toEqual([{ uuid: U(1), type: 'minecraft:pig', expected: '{Items:[1],a:1}', actual: '{Items:[1],a:2}' }]);
  });

  it('a repeated actual uuid is compared by its first record; samples hold ten of many', async () => {
    const r = await compare([e(1)], [e(1), e(1, { pos: [9, 64, 9] })], LENIENT);
    expect(r.positionDeltas.count).toBe(0);
    // A record without a uuid is an unexpected one, named by the empty text.
    expect((await compare([e(1)], [e(1), { ...e(2), uuid: undefined }], LENIENT)).unexpected).toEqual({ count: 1, sample: [''] });
    const many = Array.from({ length: 12 }, (_, i) => e(i + 1));
    const gone = await compare(many, []);
    expect(gone.missing).toEqual({ count: 12, sample: many.slice(0, 10).map((x) => x.uuid) });
  });

  it('malformed rows name the record as it was, uuid included; a null or absent velocity is no problem', async () => {
    const r = await compare([e(1)], [e(1), { ...e(2), uuid: 5 }, { ...e(3), uuid: undefined, type: '' }, e(4, { vel: null }), e(5, { vel: undefined })], LENIENT);
    expect(r.actualMalformed).toEqual({
      count: 2,
      sample: [
        { index: 1, uuid: 5, problems: ['uuid'] },
        { index: 2, uuid: null, problems: ['uuid', 'type'] },
      ],
    });
    const typed = await compare([e(1)], [e(1), e(2, { type: 5 })], LENIENT);
    expect(typed.actualMalformed.sample).toEqual([{ index: 1, uuid: U(2), problems: ['type'] }]);
  });

  it('a uuid that is not text is never matched, even against the same value', async () => {
    const r = await compare([{ ...e(1), uuid: 5 }], [{ ...e(1), uuid: 5 }], LENIENT);
    expect([r.matched, r.missing]).toEqual([0, { count: 1, sample: ['5'] }]);
  });

  it('the uuid order: a common prefix, then where the sides part', async () => {
    const longer = await compare([e(1), e(2)], [e(1), e(2), e(3)]);
    expect(longer.uuidOrder).toEqual({ match: false, commonPrefix: 2, expectedCount: 2, actualCount: 3, divergence: { index: 2, expected: null, actual: U(3) } });
    const shorter = await compare([e(1), e(2)], [e(1)]);
    expect(shorter.uuidOrder).toEqual({ match: false, commonPrefix: 1, expectedCount: 2, actualCount: 1, divergence: { index: 1, expected: U(2), actual: null } });
  });
});

describe('compareSnapshots: other callers get turns', () => {
  it('the per-entity pass yields to the event loop between slices', async () => {
    let turns = 0;
    let running = true;
    const tick = () => {
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    // The expected side's NBT is read only in the per-entity pass: note the turn count there.
    const seenAt: number[] = [];
    const want = Array.from({ length: 2 * SLICE }, (_, i) => {
      const record = e(i + 1);
      return Object.defineProperty(record, 'nbt', {
        get: () => {
          seenAt.push(turns);
          return '{a:1}';
        },
        enumerable: true,
      });
    });
    await compare(
      want,
      Array.from({ length: 2 * SLICE }, (_, i) => e(i + 1)),
    );
    running = false;
    expect(seenAt).toHaveLength(2 * SLICE);
    expect(seenAt[2 * SLICE - 1]).toBeGreaterThan(seenAt[0]!);
  });
});

describe('velocityOf: the NBT Motion list', () => {
  it('reads the Motion key itself, with suffixes and spaces, and nothing that is not a list of three', () => {
    expect(velocityOf({ nbt: '{Pos:[1d,2d,3d],Motion:[ 0.5d , 0f, -1D ]}' })).toEqual([0.5, 0, -1]);
    for (const nbt of ['{Motion:x[1d,2d,3d]}', '{Motion:[1d,2d,3d]x}', '{Motion:[1d,2d]}', 'not snbt', undefined]) expect(velocityOf({ nbt })).toBeNull();
  });
});

describe('topLevelEntries', () => {
  it('keys quoted either way, escapes inside them, values with quoted commas; the text may be padded', () => {
    expect(topLevelEntries(' {"a\\"b":1,\'c\':"x,y",d:\'p,q\'} ')).toEqual([
      { key: 'a"b', raw: '1' },
      { key: 'c', raw: '"x,y"' },
      { key: 'd', raw: "'p,q'" },
    ]);
  });

  it('refuses what it cannot split rather than guess', () => {
    for (const text of ['a:1}', 'ab:1}', '{a:1', '{"\\x":1}', '{@:a:1}', '{@a:1}', '{a=1}', '{a:"x}', '{"abc}']) expect(topLevelEntries(text)).toBeNull();
  });

  it('stripping nothing, or what cannot be split, gives the text back as it was', () => {
    expect(stripTopLevelKeys('{a:1}', [])).toBe('{a:1}');
    expect(stripTopLevelKeys('not snbt', ['a'])).toBe('not snbt');
    expect(itemsFragment('not snbt')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import type { SnapshotEntity, SnapshotMeta } from '../../plugins/snapshot/kit.js';
import { clearCommands, findCollisions, nearRecorded, type CollisionTarget } from '../../plugins/restore/collisions.js';
import { coordinateText, pythonFloat } from '../../plugins/restore/float-text.js';
import { restoreInput } from '../../plugins/restore/input.js';
import { restoreSnapshotName, stageName } from '../../plugins/restore/names.js';
import { commandEntities, planSummons, summonCommand } from '../../plugins/restore/plan.js';
import { eachSliced, SLICE } from '../../plugins/restore/turns.js';
import { describeBlockers, shortList, validateRecording, type Issue } from '../../plugins/restore/validate.js';
import { caught } from '../support/errors.js';
import { numberedUuid as U } from '../support/restore.js';

/**
 * The exact words and edges of restore's pure rules: each issue a recording can raise (code,
 * message and line), each reason a record cannot be summoned, the collision and clearing
 * boundaries, the numbers Python would print, and the slices long loops yield between. The
 * integration suites check that these reach the caller; here each rule is pinned on its own.
 */
const HASH = '0123456789abcdef';
const pig = (n: number, order: number, extra: Record<string, unknown> = {}) => ({ order, uuid: U(n), type: 'minecraft:pig', pos: [0, 64, 0], nbt: '{}', ...extra });
const validate = (meta: Record<string, unknown>, records: unknown[], hash = HASH) =>
  validateRecording({ protocol: 1, entities: records.length, orderHash: hash, ...meta } as SnapshotMeta, records as SnapshotEntity[], hash);
const metaIssue = (code: string, message: string): Issue => ({ code, message, line: null });

describe('validateRecording: meta.json', () => {
  it('names each meta problem with what it found', async () => {
    const v = await validate({ protocol: 2, entities: 3.5, orderHash: 'ABCDEF0123456789' }, []);
    expect(v.blockers).toEqual([
      metaIssue('meta_protocol', 'meta.json declares protocol 2; this bridge speaks protocol 1'),
      metaIssue('meta_missing', 'meta.json has no integer "entities" count (got 3.5)'),
      metaIssue('order_hash_format', 'meta.json "orderHash" must be 16 lowercase hex characters, got "ABCDEF0123456789"'),
    ]);
    expect((await validate({ protocol: undefined }, [])).blockers).toEqual([metaIssue('meta_missing', 'meta.json has no "protocol"')]);
  });

  it('a count or hash that disagrees with the file, and a hash with extra characters at either end', async () => {
    const v = await validate({ entities: 2, orderHash: 'fedcba9876543210' }, []);
    expect(v.blockers).toEqual([
      metaIssue('entity_count', 'meta.json says 2 entities but entities.jsonl holds 0'),
      metaIssue('order_hash', `meta.json orderHash fedcba9876543210 does not match ${HASH}, recomputed from the uuids of entities.jsonl`),
    ]);
    // Sixteen digits as a JSON number are not the text the format asks for.
    expect((await validate({ orderHash: 1234567890123456 }, [], '1234567890123456')).blockers.map((b) => b.code)).toEqual(['order_hash_format']);
    for (const hash of [`x${HASH}`, `${HASH}x`]) expect((await validate({ orderHash: hash }, [])).blockers.map((b) => b.code)).toEqual(['order_hash_format']);
  });
});

describe('validateRecording: records', () => {
  it('each bad field blocks with its line; vel and order only warn', async () => {
    const records = [
      null,
      {},
      { order: 2, uuid: '', type: 'Minecraft:pig', pos: [1, 2, Infinity], nbt: 'a\nb', vel: [1, 2] },
      { order: 1.5, uuid: ['x'], type: 5, pos: [0, 0, 0], nbt: 7, vel: null },
      pig(1, 7),
    ];
    const v = await validate({}, records);
    const at =
      (line: number) =>
      (code: string, message: string): Issue => ({ code, message, line });
    expect(v.blockers).toEqual([
      at(1)('bad_record', 'line 1 is not a JSON object'),
      at(2)('missing_field', 'line 2 lacks order, uuid, type, pos, nbt'),
      at(3)('bad_field', 'line 3: uuid must be a non-empty string'),
      at(3)('bad_field', 'line 3: type must be an entity id such as minecraft:pig'),
      at(3)('bad_field', 'line 3: pos must be 3 finite numbers'),
      at(3)('bad_field', 'line 3: nbt must be one line (the mod writes compact SNBT)'),
      at(4)('bad_field', 'line 4: uuid must be a non-empty string'),
      at(4)('bad_field', 'line 4: type must be an entity id such as minecraft:pig'),
      at(4)('bad_field', 'line 4: nbt must be a non-empty SNBT string'),
    ]);
    expect(v.warnings).toEqual([
      at(3)('bad_field', 'line 3: vel is not 3 finite numbers (ignored)'),
      at(4)('order_type', 'line 4: order must be an integer'),
      at(5)('order_mismatch', "line 5 has order 7, expected 4: the file's line order is the tick order"),
      metaIssue('order_missing', 'order values unused: 0, 1, 3, 4'),
    ]);
    expect(v.unlisted).toEqual({ blockers: 0, warnings: 0 });
  });

  it('duplicates: uuids listed five at a time, repeated and unused orders; records without them add none', async () => {
    const twice = [1, 2, 3, 4, 5, 6].flatMap((n) => [pig(n, 2 * n - 2), pig(n, 2 * n - 1)]);
    const v = await validate({}, twice);
    expect(v.blockers).toEqual([metaIssue('uuid_duplicate', `uuids appear more than once: ${U(1)}, ${U(2)}, ${U(3)}, ${U(4)}, ${U(5)} +1 more`)]);
    expect(v.warnings).toEqual([]);

    const orders = [pig(1, 0), pig(2, 0), pig(3, 1.5), pig(4, 1.5), { ...pig(5, 0), order: undefined }];
    const w = await validate({}, orders);
    expect(w.warnings.filter((i) => i.line === null)).toEqual([metaIssue('order_duplicate', 'order values repeated: 0'), metaIssue('order_missing', 'order values unused: 1, 2, 3, 4')]);
    // No uuid, an empty one, twice each: nothing to call a duplicate.
    const blank = await validate({}, [{}, {}, { uuid: '' }, { uuid: '' }]);
    expect(blank.blockers.map((b) => b.code)).toEqual(['missing_field', 'missing_field', 'missing_field', 'bad_field', 'missing_field', 'bad_field']);
    expect(blank.warnings).toEqual([]);
  });

  it('shortList shows five, then counts the rest', () => {
    expect(shortList([1, 2, 3, 4, 5])).toBe('1, 2, 3, 4, 5');
    expect(shortList([1, 2, 3, 4, 5, 6, 7])).toBe('1, 2, 3, 4, 5 +2 more');
    expect(shortList(['a', 'b', 'c'], 2)).toBe('a, b +1 more');
  });

  it('describeBlockers: all of eight, without a "more"', () => {
    const eight = Array.from({ length: 8 }, (_, i) => ({ code: 'bad_field', message: `m${i}`, line: i + 1 }));
    const text = describeBlockers('/d', eight, 'compared');
    expect(text).toBe(`/d cannot be compared: 8 blocking issue(s). Nothing was sent to the game. ${eight.map((b) => `[bad_field] ${b.message}`).join('; ')}`);
    expect(describeBlockers('/d', eight.slice(0, 1))).toBe('/d cannot be restored: 1 blocking issue(s). Nothing was sent to the game. [bad_field] m0');
  });
});

describe('summonCommand and planSummons', () => {
  const base = { uuid: U(1), type: 'minecraft:pig', pos: [1, 2, 3], nbt: '{}' };
  it('says why a record cannot be summoned, naming its uuid', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: '' }, 'it has no type'],
      [{ type: 'Bad Type' }, 'its type "Bad Type" is not an entity id'],
      [{ pos: [0, Infinity, 0] }, 'pos must be 3 finite numbers'],
      [{ nbt: '' }, 'its NBT is empty'],
      [{ nbt: 5 }, 'its NBT is empty'],
      [{ nbt: '{a:1}\n' }, 'its NBT spans lines'],
    ];
    for (const [change, problem] of cases) {
      const err = caught(() => summonCommand({ ...base, ...change } as SnapshotEntity));
      expect(err.code).toBe('invalid_params');
      expect(err.message).toBe(`snapshot entity ${U(1)} cannot be summoned: ${problem}; nothing was sent to the game`);
      expect(err.details).toEqual({ uuid: U(1) });
    }
    expect(caught(() => summonCommand({ ...base, uuid: undefined, type: '' } as SnapshotEntity)).message).toMatch(/^snapshot entity \? cannot be summoned: /);
  });

  it('passengers are skipped with their vehicle, when it is named as text', () => {
    const plan = planSummons([
      { restorable: false, vehicle: U(9) },
      { restorable: false, vehicle: 5 },
      { restorable: false, vehicle: '' },
      { ...base, restorable: true },
    ] as SnapshotEntity[]);
    expect(plan.skipped).toEqual([
      { index: 0, uuid: '', reason: `passenger of ${U(9)}` },
      { index: 1, uuid: '', reason: 'restorable=false' },
      { index: 2, uuid: '', reason: 'restorable=false' },
    ]);
    expect(plan.items).toEqual([{ index: 3, uuid: U(1), type: 'minecraft:pig', pos: [1, 2, 3], command: `/summon minecraft:pig 1.0 2.0 3.0 {}` }]);
  });

  it('commandEntities: command block minecarts by type, anything with a Command key by NBT', () => {
    const records = [
      { ...base, uuid: U(1), type: 'minecraft:command_block_minecart' },
      { ...base, uuid: U(2), nbt: '{Passengers:[{id:"minecraft:armor_stand",Command:"say hi"}]}' },
      { ...base, uuid: U(3), nbt: '{CustomName:"Command: none"}' },
      { ...base, uuid: U(4), type: 'minecraft:chest_minecart' },
    ] as SnapshotEntity[];
    expect(commandEntities(planSummons(records), records)).toEqual([
      { index: 0, uuid: U(1), type: 'minecraft:command_block_minecart' },
      { index: 1, uuid: U(2), type: 'minecraft:pig' },
    ]);
    // A plan item whose record is gone reads as no NBT, not a throw.
    const plan = planSummons(records);
    expect(commandEntities(plan, [])).toEqual([{ index: 0, uuid: U(1), type: 'minecraft:command_block_minecart' }]);
  });
});

describe('collisions', () => {
  const pigAt = (uuid: string | undefined, pos: unknown, type: unknown = 'minecraft:pig') => ({ uuid, type, pos }) as SnapshotEntity;

  it('a same-type entity exactly at the radius collides; one without a position or type is passed over', () => {
    const recorded = [pigAt(U(1), [0, 64, 0]), pigAt(U(2), undefined)];
    const destination = [pigAt(undefined, [1, 64, 0]), pigAt(U(7), null), pigAt(U(8), [0, 64, 0], null), pigAt(U(1), [50, 64, 0], 5)];
    const c = findCollisions(recorded, destination, 1);
    expect(c.targets).toEqual([
      { uuid: '', type: 'minecraft:pig', pos: [1, 64, 0], reason: 'position', expectedType: 'minecraft:pig', distance: 1 },
      { uuid: U(1), type: null, pos: [50, 64, 0], reason: 'uuid' },
    ]);
    expect(findCollisions(recorded, destination, 0.999).count).toBe(1);
  });

  it('samples ten uuid collisions but counts them all', () => {
    const many = Array.from({ length: 12 }, (_, i) => pigAt(U(i), [i * 100, 64, 0]));
    const c = findCollisions(many, many, 0.75);
    expect(c.uuidCollisions).toEqual({ count: 12, sample: many.slice(0, 10).map((e) => e.uuid) });
    expect(c.count).toBe(12);
  });

  it('clearCommands skips targets without a position and sorts the drop sweeps', () => {
    const t = (pos: [number, number, number] | null): CollisionTarget => ({ uuid: 'u', type: 'minecraft:pig', pos, reason: 'uuid' });
    expect(clearCommands([t([5, 64, 0]), t(null), t([-5, 64, 0])], 0.75)).toEqual([
      'kill @e[type=minecraft:pig,x=5.0,y=64.0,z=0.0,distance=..1]',
      'kill @e[type=minecraft:pig,x=-5.0,y=64.0,z=0.0,distance=..1]',
      'kill @e[type=minecraft:item,x=-5.0,y=64.0,z=0.0,distance=..2]',
      'kill @e[type=minecraft:item,x=5.0,y=64.0,z=0.0,distance=..2]',
    ]);
  });

  it('nearRecorded reaches at least half a block, up to and including its edge', () => {
    const recorded = [pigAt(U(1), [0, 64, 0]), pigAt(U(2), undefined)];
    const at = (x: number) => pigAt(U(3), [x, 64, 0]);
    expect(nearRecorded([at(0.4), at(0.5), at(0.51)], recorded, 0.2).map((e) => e.pos)).toEqual([
      [0.4, 64, 0],
      [0.5, 64, 0],
    ]);
    expect(nearRecorded([at(2), at(2.01)], recorded, 2)).toHaveLength(1);
  });
});

describe('numbers and names', () => {
  it('pythonFloat: nan, infinities, and a two-digit exponent as Python pads it', () => {
    expect([NaN, Infinity, -Infinity].map(pythonFloat)).toEqual(['nan', 'inf', '-inf']);
    expect([1e-10, 1e-9, 2.5e20].map(pythonFloat)).toEqual(['1e-10', '1e-09', '2.5e+20']);
  });

  it('coordinateText keeps the sign of zero and writes exponents out', () => {
    expect([-0, 0, 1e-5, -2.5e-7].map(coordinateText)).toEqual(['-0.0', '0.0', '0.00001', '-0.00000025']);
  });

  it('stageName trims separators left at the end, also after the 64-character cut', () => {
    expect(restoreSnapshotName('pre', 'lab!')).toBe('restore-pre-lab');
    const target = `${'a'.repeat(51)}!!b`; // "restore-pre-" is 12 characters: the cut falls right after the "-"
    expect(restoreSnapshotName('pre', target)).toBe(`restore-pre-${'a'.repeat(51)}`);
    expect(stageName('x', '!!!')).toBe('x');
  });
});

describe('eachSliced', () => {
  it('gives the event loop a turn after each slice, not before the first record', async () => {
    const seen: number[] = [];
    const turns: number[] = [];
    const watch = () => {
      turns.push(seen.length);
      if (seen.length < 2 * SLICE + 10) setImmediate(watch);
    };
    setImmediate(watch);
    await eachSliced(
      Array.from({ length: 2 * SLICE + 10 }, (_, i) => i),
      (_, i) => seen.push(i),
    );
    expect(turns.slice(0, 2)).toEqual([SLICE, 2 * SLICE]);
    expect(seen).toHaveLength(2 * SLICE + 10);
  });
});

describe('restoreInput', () => {
  const parse = (extra: Record<string, unknown>) => restoreInput.safeParse({ directory: '/d', ...extra });
  it('normalises prior_tick_state and a single ignored key; a tolerance that is not a number is named', () => {
    const ok = parse({ prior_tick_state: ' Frozen ', ignore_nbt_keys: 'UUID' });
    expect(ok.success && [ok.data.prior_tick_state, ok.data.ignore_nbt_keys]).toEqual(['frozen', ['UUID']]);
    const list = parse({ ignore_nbt_keys: ['UUID', 'Motion'] });
    expect(list.success && list.data.ignore_nbt_keys).toEqual(['UUID', 'Motion']);
    const bad = parse({ pos_tolerance: 'x' });
    expect(bad.success ? [] : bad.error.issues.map((i) => i.message)).toEqual(['pos_tolerance must be a number, got "x"']);
  });

  it('replace_existing without check_existing is refused on that field', () => {
    const r = parse({ replace_existing: true, check_existing: false });
    expect(r.success ? [] : r.error.issues.map((i) => ({ path: i.path, message: i.message, code: i.code }))).toEqual([
      { path: ['replace_existing'], code: 'custom', message: 'replace_existing=true requires check_existing=true: the clear removes only the collisions the check finds' },
    ]);
    expect(parse({ replace_existing: true }).success).toBe(true);
    expect(parse({ check_existing: false }).success).toBe(true);
  });
});

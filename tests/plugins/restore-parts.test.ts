import { describe, expect, it } from 'vitest';
import type { McbridgeError } from 'mcbridge';
import { orderHash, readSnapshot, tickStateOf } from '../../plugins/snapshot/kit.js';
import { clearCommands, findCollisions, nearRecorded } from '../../plugins/restore/collisions.js';
import { dimensionCheck, endpointChecks, normalizePath, type EndpointReport } from '../../plugins/restore/endpoint.js';
import { forceloadAnswer } from '../../plugins/restore/guard.js';
import { coordinateText, pythonFloat } from '../../plugins/restore/float-text.js';
import { orderSnapshotName, restoreSnapshotName } from '../../plugins/restore/names.js';
import { forceloadCommand, planSummons, recordedBox, summonCommand } from '../../plugins/restore/plan.js';
import { describeBlockers, MAX_LISTED_ISSUES, validateRecording } from '../../plugins/restore/validate.js';
import { caught } from '../support/errors.js';
import { cart, useTemps, writeRecording, numberedUuid as U } from '../support/restore.js';

/** The restore building blocks (what the predecessor's restore and fork tests covered). */
const tmp = useTemps();

describe('numbers as the predecessor printed them', () => {
  it("pythonFloat is Python's repr of a float", () => {
    const cases: Array<[number, string]> = [
      [64, '64.0'],
      [10.5, '10.5'],
      [-3.25, '-3.25'],
      [0, '0.0'],
      [-0, '-0.0'],
      [1e-5, '1e-05'],
      [1.5e-5, '1.5e-05'],
      [-2.5e-7, '-2.5e-07'],
      [0.0001, '0.0001'],
      [1e16, '1e+16'],
      [1.2345e16, '1.2345e+16'],
      [1234567890123456, '1234567890123456.0'],
      [1e22, '1e+22'],
      [0.1 + 0.2, '0.30000000000000004'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [-0.0784000015258789, '-0.0784000015258789'],
    ];
    for (const [n, text] of cases) expect(pythonFloat(n), String(n)).toBe(text);
  });

  it("coordinates keep Python's text, except exponents, which brigadier cannot read", () => {
    expect(coordinateText(64)).toBe('64.0');
    expect(coordinateText(-3.5)).toBe('-3.5');
    expect(coordinateText(1e-5)).toBe('0.00001');
    expect(coordinateText(-1.5e-5)).toBe('-0.000015');
    expect(coordinateText(1e16)).toBe('10000000000000000.0');
    expect(coordinateText(1.2345e17)).toBe('123450000000000000.0');
    for (const n of [1e-5, -1.5e-5, 1e16, 123.456]) expect(Number(coordinateText(n))).toBe(n);
  });
});

describe('the plan', () => {
  it('one summon per entity in file order, exact text', () => {
    expect(summonCommand({ uuid: U(1), type: 'minecraft:sulfur_cube', pos: [103.5, 56, 52.5], nbt: '{Motion:[0.0d,-0.0784d,0.0d]}' })).toBe(
      '/summon minecraft:sulfur_cube 103.5 56.0 52.5 {Motion:[0.0d,-0.0784d,0.0d]}',
    );
    expect(summonCommand({ uuid: U(2), type: 'minecraft:tnt', pos: [12, 70, -3.25], nbt: '{fuse:80s}' })).toBe('/summon minecraft:tnt 12.0 70.0 -3.25 {fuse:80s}');
    const plan = planSummons([cart(U(1), [1, 64, 1]), cart(U(2), [2, 64, 2])]);
    expect(plan.items.map((i) => [i.index, i.uuid])).toEqual([
      [0, U(1)],
      [1, U(2)],
    ]);
    expect(planSummons([])).toEqual({ items: [], skipped: [] });
  });

  it('an unsummonable record is an error naming the problem and the uuid', () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ type: 'minecraft:pig', pos: [0, 64, 0], nbt: '' }, /NBT is empty/],
      [{ pos: [0, 64, 0], nbt: '{}' }, /no type/],
      [{ type: 'minecraft:pig', pos: [0, 64], nbt: '{}' }, /pos must be 3 finite numbers/],
      [{ type: 'minecraft:pig', pos: ['a', 64, 0], nbt: '{}' }, /pos must be 3 finite numbers/],
    ];
    for (const [record, problem] of bad) {
      expect(() => planSummons([{ uuid: U(9), ...record }])).toThrow(problem);
      expect(() => summonCommand({ uuid: U(9), ...record })).toThrow(U(9));
    }
  });

  it('passengers are skipped and reported; records without `restorable` are restorable', () => {
    const plan = planSummons([cart(U(1), [0, 64, 0]), cart(U(2), [0, 64, 0], { restorable: false, vehicle: U(1) }), { ...cart(U(3), [1, 64, 1]), restorable: undefined }]);
    expect(plan.skipped).toEqual([{ index: 1, uuid: U(2), reason: `passenger of ${U(1)}` }]);
    expect(plan.items.map((i) => i.uuid)).toEqual([U(1), U(3)]);
    expect(planSummons([cart(U(4), [0, 64, 0], { restorable: false })]).skipped[0]!.reason).toBe('restorable=false');
  });

  it('the box is the extremes padded by 16; forceload uses its X/Z footprint', () => {
    const box = recordedBox([cart(U(1), [10.5, 64, -3.5]), cart(U(2), [11, 70, -4])])!;
    expect(box).toEqual({ minX: -5.5, minY: 48, minZ: -20, maxX: 27, maxY: 86, maxZ: 12.5 });
    expect(forceloadCommand('add', box)).toBe('forceload add -6 -20 27 13');
    expect(forceloadCommand('remove', box)).toBe('forceload remove -6 -20 27 13');
    expect(recordedBox([])).toBeNull();
  });

  it('the box of 200,000 records (more than a call can spread) holds every one, bad positions ignored', () => {
    const records = Array.from({ length: 200_000 }, (_, i) => ({ pos: [i, -i, i % 7] }));
    records.push({ pos: 'x' as never });
    expect(recordedBox(records)).toEqual({ minX: -16, minY: -199_999 - 16, minZ: -16, maxX: 199_999 + 16, maxY: 16, maxZ: 22 });
  });
});

describe('validation', () => {
  const good = () => [cart(U(1), [0, 64, 0], { order: 0 }), cart(U(2), [1, 64, 1], { order: 1 })];
  const meta = (entities: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
    protocol: 1,
    entities: entities.length,
    orderHash: orderHash(entities.map((e) => String(e.uuid))),
    ...extra,
  });
  const codes = async (entities: Record<string, unknown>[], m = meta(entities)) => {
    const v = await validateRecording(m, entities, orderHash(entities.map((e) => String(e.uuid ?? ''))));
    return { blockers: v.blockers.map((b) => b.code), warnings: v.warnings.map((w) => w.code), v };
  };

  it('a faithful snapshot has no blockers', async () => {
    expect(await codes(good())).toMatchObject({ blockers: [], warnings: [] });
  });

  it('meta problems block: hash mismatch and format, count, missing and future protocol', async () => {
    expect((await codes(good(), meta(good(), { orderHash: 'ffffffffffffffff' }))).blockers).toEqual(['order_hash']);
    expect((await codes(good(), meta(good(), { orderHash: 'ABC' }))).blockers).toEqual(['order_hash_format']);
    expect((await codes(good(), meta(good(), { entities: 3 }))).blockers).toEqual(['entity_count']);
    expect((await codes(good(), meta(good(), { entities: true }))).blockers).toEqual(['meta_missing']);
    expect((await codes(good(), meta(good(), { protocol: undefined }))).blockers).toEqual(['meta_missing']);
    expect((await codes(good(), meta(good(), { protocol: 2 }))).blockers).toEqual(['meta_protocol']);
  });

  it('unsummonable records block with the field named; a bad vel is only a warning', async () => {
    const { type: _type, ...untyped } = cart(U(1), [0, 64, 0], { order: 0 });
    const { v } = await codes([untyped, cart(U(2), [0, 64] as never, { order: 1 }), cart(U(3), [0, 64, 0], { order: 2, nbt: '' })]);
    expect(v.blockers.map((b) => [b.code, b.line])).toEqual([
      ['missing_field', 1],
      ['bad_field', 2],
      ['bad_field', 3],
    ]);
    expect(v.blockers[0]!.message).toMatch(/type/);
    expect(v.blockers[1]!.message).toMatch(/pos/);
    expect(v.blockers[2]!.message).toMatch(/nbt/);
    expect((await codes([cart(U(1), [0, 64, 0], { order: 0, vel: [1] })])).warnings).toEqual(['bad_field']);
    // Hostile files: nothing may add words or lines to a command.
    expect((await codes([cart(U(1), [0, 64, 0], { order: 0, type: 'minecraft:pig ~ ~ ~ {}' })])).blockers).toEqual(['bad_field']);
    expect((await codes([cart(U(1), [0, 64, 0], { order: 0, nbt: '{}\nCMD op mallory' })])).blockers).toEqual(['bad_field']);
    expect(() => summonCommand({ uuid: U(1), type: 'pig', pos: [0, 64, 0], nbt: '{}\nCMD op mallory' })).toThrow(/spans lines/);
  });

  it('a recording of many bad lines lists the first 100 blockers and counts the rest; the refusal counts them all', async () => {
    const bad = Array.from({ length: 250 }, (_, i) => ({ uuid: U(i), order: i }));
    const v = await validateRecording(meta(bad), bad, orderHash(bad.map((e) => e.uuid)));
    expect(v.blockers).toHaveLength(MAX_LISTED_ISSUES);
    expect(v.unlisted).toEqual({ blockers: 150, warnings: 0 });
    expect(describeBlockers('/d', v.blockers, 'verified', v.unlisted.blockers)).toMatch(/^\/d cannot be verified: 250 blocking issue\(s\)\. .* \(\+242 more\)$/);
  });

  it('order problems are warnings; duplicate uuids block', async () => {
    expect(await codes([cart(U(1), [0, 64, 0], { order: 1 }), cart(U(2), [0, 64, 0], { order: 0 })])).toMatchObject({ blockers: [], warnings: ['order_mismatch', 'order_mismatch'] });
    expect((await codes([cart(U(1), [0, 64, 0], { order: 0 }), cart(U(2), [0, 64, 0], { order: 0 })])).warnings).toEqual(['order_mismatch', 'order_duplicate', 'order_missing']);
    expect((await codes([cart(U(1), [0, 64, 0], { order: 'x' })])).warnings).toEqual(['order_type']);
    expect((await codes([cart(U(1), [0, 64, 0], { order: 0 }), cart(U(1), [0, 64, 0], { order: 1 })])).blockers).toEqual(['uuid_duplicate']);
  });

  it("a file over the reader's bound is refused before it is read (too_large)", async () => {
    const dir = writeRecording(tmp(), [cart(U(1), [0, 64, 0])]);
    await expect(readSnapshot(dir, { maxBytes: 64 })).rejects.toMatchObject({ issue: 'too_large', message: expect.stringMatching(/more than the 64 this bridge reads/) });
    expect((await readSnapshot(dir)).entities).toHaveLength(1);
  });

  it('the refusal names the directory, says nothing was sent, and shows at most 8 issues', () => {
    const blockers = Array.from({ length: 10 }, (_, i) => ({ code: 'bad_field', message: `m${i}`, line: i + 1 }));
    const text = describeBlockers('/snaps/x', blockers);
    expect(text).toMatch(/^\/snaps\/x cannot be restored: 10 blocking issue\(s\)\. Nothing was sent to the game\. \[bad_field\] m0; /);
    expect(text).toMatch(/m7 \(\+2 more\)$/);
  });
});

describe('collisions and clearing', () => {
  const recorded = [cart(U(1), [10.5, 64, -3.5]), cart(U(2), [20.5, 64, 5.5])];

  it('same uuid anywhere, same type within the radius; other type or far is none; counted once', () => {
    const found = findCollisions(
      recorded,
      [cart(U(1), [100, 64, 100]), cart(U(7), [10.55, 64, -3.5]), { ...cart(U(8), [20.5, 64, 5.5]), type: 'minecraft:pig' }, cart(U(9), [30, 64, 30]), cart(U(2), [20.5, 64, 5.5])],
      0.75,
    );
    expect(found.uuidCollisions).toEqual({ count: 2, sample: [U(1), U(2)] });
    expect(found.spatialCollisions).toEqual({ count: 1, sample: [{ uuid: U(7), type: 'minecraft:chest_minecart', expectedType: 'minecraft:chest_minecart', distance: 0.05 }] });
    expect(found.targets.map((t) => [t.uuid, t.reason])).toEqual([
      [U(1), 'uuid'],
      [U(7), 'position'],
      [U(2), 'uuid'],
    ]);
    const many = findCollisions(
      recorded,
      Array.from({ length: 12 }, (_, i) => cart(U(100 + i), [10.5, 64, -3.5])),
      0.75,
    );
    expect(many.spatialCollisions.sample).toHaveLength(10);
    expect(many.targets).toHaveLength(12);
  });

  it('clear commands target only the collision spots, then the drops there; de-duplicated; none without targets', () => {
    const found = findCollisions(recorded, [cart(U(1), [10.5, 64, -3.5]), cart(U(3), [10.5, 64, -3.5])], 0.75);
    expect(clearCommands(found.targets, 0.75)).toEqual(['kill @e[type=minecraft:chest_minecart,x=10.5,y=64.0,z=-3.5,distance=..1]', 'kill @e[type=minecraft:item,x=10.5,y=64.0,z=-3.5,distance=..2]']);
    expect(clearCommands([], 0.75)).toEqual([]);
    expect(clearCommands([{ uuid: U(4), type: null, pos: [1, 2, 3], reason: 'uuid' }], 2)).toEqual([
      'kill @e[type=!player,x=1.0,y=2.0,z=3.0,distance=..2.25]',
      'kill @e[type=minecraft:item,x=1.0,y=2.0,z=3.0,distance=..4.5]',
    ]);
  });

  it('leftovers are entities at the recorded positions only', () => {
    const drop = { uuid: U(5), type: 'minecraft:item', pos: [10.6, 64, -3.5] };
    const far = { uuid: U(6), type: 'minecraft:item', pos: [15, 64, -3.5] };
    expect(nearRecorded([drop, far], recorded, 0.75)).toEqual([drop]);
  });
});

describe('endpoint proofs', () => {
  const report: EndpointReport = { instance: 'server', modPort: 25581, worldDir: 'C:\\Srv\\World\\.', levelName: 'world', dimensions: [] };

  it('matching expectations verify, proofs in order; Windows paths compare case- and separator-insensitively', () => {
    const ok = endpointChecks(report, { instance: 'SERVER', worldDir: 'c:/srv/world/', level: 'world' }, false);
    expect(ok).toEqual({
      verified: true,
      proofs: ['instance', 'world_dir', 'level'],
      overridden: false,
      instance: 'server',
      worldDir: 'C:\\Srv\\World\\.',
      levelName: 'world',
      expectInstance: 'SERVER',
      expectWorldDir: 'c:/srv/world/',
      expectLevel: 'world',
    });
    // Only what was expected is checked and named.
    expect(endpointChecks(report, { instance: 'server' }, false)).toMatchObject({ proofs: ['instance'], expectWorldDir: null, expectLevel: null });
    expect(normalizePath('C:\\A\\.\\b\\')).toBe('c:\\a\\b');
    expect(normalizePath('/srv/mc/world/.')).toBe('/srv/mc/world');
    // A drive letter counts only at the start: a POSIX path with `x:/` in it keeps its case.
    expect(normalizePath('/srv/Saves/A:/World')).toBe('/srv/Saves/A:/World');
    expect(normalizePath(null)).toBe('');
  });

  it('a mismatch or an unverifiable expectation refuses: the name is never the proof', () => {
    expect(() => endpointChecks(report, { instance: 'client' }, false)).toThrow(/expect_instance=client but the mod is server.*Nothing was sent.*the target that holds/);
    expect(() => endpointChecks(report, { worldDir: 'C:\\other' }, false)).toThrow(/expect_world_dir/);
    expect(() => endpointChecks({ ...report, worldDir: null }, { worldDir: '/x' }, false)).toThrow(/client-vantage mod cannot prove/);
    expect(() => endpointChecks({ ...report, levelName: null }, { level: 'world' }, false)).toThrow(/no levelName/);
    expect(() => endpointChecks({ ...report, instance: null }, { instance: 'server' }, false)).toThrow(/expect_instance=server but the mod reported no instance/);
    // Every mismatch is named, one after the other.
    expect(() => endpointChecks(report, { instance: 'client', level: 'other' }, false)).toThrow('but the mod is server; expect_level=other but');
  });

  it('several expectations: one mismatch refuses however many others match, and only it is named', () => {
    const right = { instance: 'server', worldDir: 'C:/Srv/World', level: 'world' };
    const wrong = { instance: 'client', worldDir: '/srv/other', level: 'other' };
    for (const bad of ['instance', 'worldDir', 'level'] as const) {
      const expectations = { ...right, [bad]: wrong[bad] };
      let err: McbridgeError | undefined;
      try {
        endpointChecks(report, expectations, false);
      } catch (e) {
        err = e as McbridgeError;
      }
      expect(err?.code, `${bad} mismatching beside two matches`).toBe('invalid_params');
      expect(err!.details).toEqual({ mismatches: [expect.stringContaining(`=${wrong[bad]} but`)] });
      // Allowing an unproven destination never excuses a mismatch.
      expect(() => endpointChecks(report, expectations, true)).toThrow(/destination endpoint check failed/);
    }
    expect(() => endpointChecks(report, { instance: 'server', level: 'other' }, false)).toThrow(/expect_level=other/);
  });

  it('no expectations: unverified with the reason; a failed STATE: unverified without, refused with one, overridden when allowed', () => {
    expect(endpointChecks(report, {}, false)).toMatchObject({ verified: false, overridden: false, reason: expect.stringMatching(/^no expect_instance/) });
    expect(endpointChecks(report, {}, true).overridden).toBe(true);
    // An empty expectation is none; the answer carries what the game said about itself.
    expect(endpointChecks(report, { instance: '', worldDir: '', level: '' }, false)).toEqual({
      verified: false,
      reason: expect.stringMatching(/^no expect_instance/),
      proofs: [],
      overridden: false,
      instance: 'server',
      worldDir: 'C:\\Srv\\World\\.',
      levelName: 'world',
    });
    expect(endpointChecks({ instance: null, modPort: null }, {}, false)).toMatchObject({ instance: null, worldDir: null, levelName: null });
    const failed = { instance: 'server', modPort: 1, error: 'timeout' };
    expect(endpointChecks(failed, {}, false)).toEqual({ verified: false, reason: 'STATE failed: timeout', proofs: [], overridden: false });
    expect(() => endpointChecks(failed, { level: 'world' }, false)).toThrow(/cannot verify the destination endpoint: STATE failed \(timeout\)/);
    expect(caught(() => endpointChecks(failed, { level: 'world' }, false)).code).toBe('mod_error');
    expect(endpointChecks(failed, { level: 'world' }, true)).toMatchObject({ verified: false, overridden: true });
  });

  it('dimension check: mismatch, match, override, a fork without one, a destination without one', () => {
    expect(dimensionCheck('minecraft:the_nether', 'minecraft:overworld')).toEqual({
      ok: false,
      verified: true,
      expected: 'minecraft:the_nether',
      actual: 'minecraft:overworld',
      reason: 'recording is minecraft:the_nether, destination is minecraft:overworld',
    });
    expect(dimensionCheck('minecraft:overworld', 'minecraft:overworld')).toMatchObject({ ok: true, verified: true });
    expect(dimensionCheck(undefined, 'minecraft:overworld')).toMatchObject({ ok: true, verified: false, reason: 'the fork records no dimension' });
    expect(dimensionCheck('minecraft:overworld', null)).toEqual({
      ok: false,
      verified: false,
      expected: 'minecraft:overworld',
      actual: null,
      reason: 'the destination snapshot reports no dimension',
    });
  });
});

describe("the game's answer to forceload add", () => {
  it("vanilla's answers, on whichever line; anything else is unknown, never guessed", () => {
    expect(forceloadAnswer(['Marked chunk [0, 0] in minecraft:overworld to be force loaded'])).toBe('added');
    expect(forceloadAnswer(['(from the console)', 'Marked 12 chunks in minecraft:overworld from [-1, -2] to [1, 1] to be force loaded'])).toBe('added');
    expect(forceloadAnswer(['No chunks were marked for force loading'])).toBe('already-forced');
    expect(forceloadAnswer(['Too many chunks in the specified area (maximum 256, found 289)'])).toBe('refused');
    // remove's answer, and a line only quoting the add's, are not the add's answer.
    expect(forceloadAnswer(['Unmarked chunk [0, 0] in minecraft:overworld for force loading'])).toBe('unknown');
    expect(forceloadAnswer(['Hint: No chunks were marked for force loading means they were forced already'])).toBe('unknown');
    expect(forceloadAnswer(['Forceloading is switched off here'])).toBe('unknown');
    expect(forceloadAnswer([])).toBe('unknown');
  });
});

describe('names and tick text', () => {
  it('snapshot names are single safe tokens of at most 64 characters', () => {
    expect(restoreSnapshotName('pre', 'lab server')).toBe('restore-pre-lab-server');
    expect(restoreSnapshotName('check', '../../etc')).toBe('restore-check-etc');
    expect(restoreSnapshotName('pre-cleared')).toBe('restore-pre-cleared');
    expect(orderSnapshotName()).toBe('order-check');
    expect(orderSnapshotName('lab server')).toBe('order-lab-server');
    expect(orderSnapshotName('../../etc')).toBe('order-etc');
    const long = restoreSnapshotName('check', 'x'.repeat(100));
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('tick query text: frozen, running, and anything else unknown (never "not frozen" as frozen)', () => {
    expect(tickStateOf(['The game is frozen.'])).toBe('frozen');
    expect(tickStateOf(['The game is running normally.'])).toBe('running');
    expect(tickStateOf(['The game is not frozen'])).toBeNull();
    expect(tickStateOf([])).toBeNull();
    expect(tickStateOf(['未知的命令'])).toBeNull();
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../core/host/host.js';
import { restorePlugin } from '../../plugins/restore/index.js';
import { startTestHost } from 'mcbridge/testing';
import { failure, useStacks } from '../support/plugins.js';
import { CART_A, CART_B, cart, onDisk, recordedCarts, useTemps, writeRecording } from '../support/restore.js';
import { SERVER_HELLO, ScriptedMod } from '../support/scripted-mod.js';
import { waitUntil } from '../support/wait-until.js';

/** verify and order: the comparison without restoring. */
const stacks = useStacks();
const tmp = useTemps();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const ITEMS_A = '{Items:[{Slot:0b,id:"minecraft:diamond",count:3}]}';
const ITEMS_B = '{Items:[{Slot:0b,id:"minecraft:dirt",count:64}]}';

describe('verify', () => {
  it('passes on a faithful state: counts match, nothing missing or unexpected, no NBT mismatch', async () => {
    const { stack, dir } = await recordedCarts(stacks.start, { keep: true });
    const before = stack.sim.received.length;
    const result = await stack.call('verify', { dir, target: 'lab' });
    expect(stack.sim.received.slice(before)).toEqual(['SNAPSHOT 0 restore-check-lab']);
    expect(result).toMatchObject({
      ok: true,
      targetIsLabel: true,
      target: 'lab',
      verdict: 'ok',
      actualIssues: [],
      verification: { ok: true, counts: { match: true }, nbtMismatches: { count: 0 }, missing: { count: 0 }, unexpected: { count: 0 } },
    });
    const { orderHash } = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    for (const side of [result.expected, result.actual]) expect(side).toEqual({ orderHash, count: 2, dimension: 'minecraft:overworld' });
    expect(fs.existsSync(path.join(result.snapshotDir, 'entities.jsonl'))).toBe(true);
  });

  it("the reader's refusals under the validation codes, with the line; nothing sent", async () => {
    const stack = await stacks.start({ sim: { autoTick: false } });
    const one = [cart(CART_A, [0, 64, 0])];
    const cases: Array<[string, Record<string, unknown>, number | null]> = [
      ['entity_count', { entities: 3 }, null],
      ['meta_protocol', { protocol: 2 }, null],
      ['meta_missing', { entities: 'one' }, null],
    ];
    const before = stack.sim.received.length;
    for (const [code, meta, line] of cases) {
      const err = await failure(stack.call('verify', { directory: writeRecording(tmp(), one, meta) }));
      expect(err.code, code).toBe('invalid_params');
      expect(err.message).toMatch(new RegExp(`cannot be verified: 1 blocking issue\\(s\\)\\. Nothing was sent to the game\\. \\[${code}\\]`));
      expect(err.details).toMatchObject({ blockers: [{ code, line }] });
    }
    const broken = writeRecording(tmp(), [...one, cart(CART_B, [1, 64, 1])]);
    fs.writeFileSync(path.join(broken, 'entities.jsonl'), `${fs.readFileSync(path.join(broken, 'entities.jsonl'), 'utf8').split('\n')[0]}\n{not json\n`);
    expect((await failure(stack.call('verify', { directory: broken }))).details).toMatchObject({ blockers: [{ code: 'not_json', line: 2 }] });
    expect(stack.sim.received.length).toBe(before);
  });

  it('reports an inventory change although the hash and uuid order match, with both inventories', async () => {
    const stack = await stacks.start({ sim: { autoTick: false, entities: [] } });
    const summon = (items: string) => stack.call('command', { command: `summon minecraft:chest_minecart 10.5 64.0 -3.5 ${items.replace('{', '{UUID:[I;1,2,3,4],')}` });
    await summon(ITEMS_A);
    const dir = (await stack.call('snapshot', { name: 'inv' })).dir;
    await stack.call('command', { command: 'kill @e[type=minecraft:chest_minecart]' });
    await summon(ITEMS_B);
    const result = await stack.call('verify', { dir });
    expect(result.ok).toBe(false);
    expect(result.verification.orderHash.match).toBe(true);
    expect(result.verification.uuidOrder.match).toBe(true);
    expect(result.verification.nbtMismatches.count).toBe(1);
    const row = result.verification.nbtMismatches.sample[0];
    expect(row.expectedInventory).toContain('minecraft:diamond');
    expect(row.actualInventory).toContain('minecraft:dirt');
    const order = await stack.call('order', { dir });
    expect(order.match).toBe(true); // the hash only: an inventory change passes
  });

  it('fails on a dimension mismatch, with the dimension block exact', async () => {
    const { stack, dir } = await recordedCarts(stacks.start, { keep: true });
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ ...meta, dimension: 'minecraft:the_end' }));
    const result = await stack.call('verify', { dir });
    expect(result.ok).toBe(false);
    expect(result.verification.dimension).toEqual({ expected: 'minecraft:the_end', actual: 'minecraft:overworld', match: false });
    expect(result.verification.failures.dimension).toBe(true);
  });

  it('after a server restart the tick order is rebuilt: strict fails on order; strict=false still flags it (subsequence) while missing, unexpected and counts hold', async () => {
    // Entities far from spawn first in tick order: a restart loads them in chunk order (nearest first).
    const entities = [
      { type: 'minecraft:cow', uuid: CART_A, x: 200.5, y: 64, z: 200.5 },
      { type: 'minecraft:pig', uuid: CART_B, x: 1.5, y: 64, z: 1.5 },
    ];
    const stack = await stacks.start(onDisk(tmp(), { entities }));
    const dir = (await stack.call('snapshot', { name: 'before-restart' })).dir;
    const link = stack.daemon.host.link;
    const first = link.status().connectedAt;
    await stack.sim.restart({ port: stack.sim.port });
    await waitUntil(() => link.connected && link.status().connectedAt !== first, 10_000, 'the daemon to reconnect after the restart');
    const strict = await stack.call('verify', { dir });
    expect(strict.ok).toBe(false);
    expect(strict.verification.failures).toMatchObject({ order: true, missing: false, unexpected: false, counts: false });
    const lenient = await stack.call('verify', { dir, strict: false });
    expect(lenient.ok).toBe(false); // the recorded order is not even a subsequence any more
    expect(lenient.verification.failures.subsequence).toBe(true);
    expect(lenient.verification).toMatchObject({ missing: { count: 0 }, unexpected: { count: 0 }, counts: { match: true } });
  });

  it('refuses a recording with blocking issues before sending anything', async () => {
    const stack = await stacks.start({ sim: { autoTick: false } });
    const dir = writeRecording(tmp(), [{ uuid: 'x', type: 'minecraft:pig', pos: [0, 64, 0], nbt: '{}' }], { orderHash: 'zz' });
    const before = stack.sim.received.length;
    const err = await failure(stack.call('verify', { directory: dir }));
    expect(err.message).toMatch(/cannot be verified: 1 blocking issue\(s\)\. Nothing was sent to the game\. \[order_hash_format\]/);
    expect(err.details).toMatchObject({ blockers: [{ code: 'order_hash_format' }], unlisted: 0 });
    expect(stack.sim.received.length).toBe(before);
    const missing = await failure(stack.call('verify', {}));
    expect(missing.message).toMatch(/verify needs a directory: the snapshot mc_fork returned/);
  });

  it('a recording over a MiB is read with progress: bytes of the whole, lines so far', async () => {
    const stack = await stacks.start({ sim: { autoTick: false } });
    const many = Array.from({ length: 6_000 }, (_, i) => cart(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, [i, 64, 0]));
    const dir = writeRecording(tmp(), many);
    const size = fs.statSync(path.join(dir, 'entities.jsonl')).size;
    expect(size).toBeGreaterThan(1024 * 1024);
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    await stack.call('verify', { directory: dir }, { onProgress: (f: any) => progress.push(f) });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ progress: expect.any(Number), total: size, message: expect.stringMatching(/^read [1-9]\d* lines of the recording$/) });
  });

  /** verify on a host whose scripted mod acks every SNAPSHOT with the folder `fresh`. */
  async function verifyAgainst(fresh: string, recording: string): Promise<Record<string, any>> {
    const caps = [...SERVER_HELLO.capabilities, 'snapshot'];
    const mod = await ScriptedMod.start({
      hello: { capabilities: caps },
      respond: (line) => {
        if (line === 'CAPS') return [{ line: { type: 'capabilities', millis: 1, protocol: 1, instance: 'server', capabilities: caps } }];
        if (line.startsWith('SNAPSHOT'))
          return [{ line: { type: 'snapshot_ack', millis: 1, id: 'restore-check', dir: fresh, entities: 1, orderHash: 'x', tick: 1, dimension: 'minecraft:overworld' } }];
        return undefined;
      },
    });
    const host = new Host({ link: { modPort: mod.port, reconnectMinMs: 20 }, plugins: [{ plugin: restorePlugin, source: 'built-in' }] });
    await host.start();
    cleanups.push(
      () => host.stop(),
      () => mod.stop(),
    );
    await waitUntil(() => host.link.connected && (host.link.status().capabilities ?? []).includes('snapshot'));
    return (await host.call('verify', { directory: recording })) as Record<string, any>;
  }

  it('a destination snapshot with malformed records cannot vouch for anything (actualMalformed, actualIssues)', async () => {
    const recording = writeRecording(path.join(tmp(), 'rec'), [{ uuid: CART_A, type: 'minecraft:pig', pos: [0.5, 64, 0.5], vel: [0, 0, 0], nbt: '{"a":1}' }]);
    const fresh = path.join(tmp(), 'fresh');
    writeRecording(fresh, [{ uuid: CART_A, type: 'minecraft:pig', pos: 'here', vel: [0, 0], nbt: '{"a":1}' }]);
    const result = await verifyAgainst(fresh, recording);
    expect(result.ok).toBe(false);
    expect(result.verification.failures.actualMalformed).toBe(true);
    expect(result.verification.actualMalformed.sample[0]).toEqual({ index: 0, uuid: CART_A, problems: ['pos', 'vel'] });
    expect(result.actualIssues.map((i: { code: string }) => i.code)).toEqual(expect.arrayContaining(['bad_field']));
  });

  it("a destination snapshot whose meta is wrong cannot vouch either; each side's orderHash and dimension as its meta says", async () => {
    const entities = [cart(CART_A, [0, 64, 0])];
    const recording = writeRecording(path.join(tmp(), 'rec'), entities);
    const fresh = writeRecording(path.join(tmp(), 'fresh'), entities, { orderHash: 'ffffffffffffffff' });
    const wrong = await verifyAgainst(fresh, recording);
    // The entities match: only validating the fresh meta refuses them.
    expect(wrong).toMatchObject({ ok: false, verdict: 'failed', verification: { failures: { actualMalformed: true } } });
    expect(wrong.actualIssues.map((i: { code: string }) => i.code)).toContain('order_hash');
    const { orderHash } = JSON.parse(fs.readFileSync(path.join(recording, 'meta.json'), 'utf8'));
    expect(wrong.expected.orderHash).toBe(orderHash);
    expect(wrong.actual.orderHash).toBe('ffffffffffffffff');
    // A meta without them: the hash of the lines read, and no dimension.
    const bare = writeRecording(path.join(tmp(), 'bare'), entities, { orderHash: undefined, dimension: undefined });
    expect((await verifyAgainst(bare, recording)).actual).toEqual({ orderHash, count: 1, dimension: null });
  });

  it('a destination snapshot this side cannot read: mod_error naming it and why', async () => {
    const recording = writeRecording(path.join(tmp(), 'rec'), [cart(CART_A, [0, 64, 0])]);
    const err = await failure(verifyAgainst(tmp(), recording));
    expect(err.code).toBe('mod_error');
    expect(err.message).toMatch(/^the destination snapshot restore-check cannot be read here: .* is not a snapshot: no meta\.json/);
  });
});

describe('order', () => {
  it('matches the recorded tick order; a re-summoned entity moves to the end and breaks it', async () => {
    const { stack, dir } = await recordedCarts(stacks.start, { keep: true });
    const same = await stack.call('order', { dir, target: '../../etc' });
    expect(same).toMatchObject({ match: true, entities: 2, target: '../../etc' });
    expect(same.snapshotDir).toMatch(/snapshots[/\\]order-etc$/);
    expect(same.expected).toBe(same.actual);
    await stack.call('command', { command: `kill ${CART_A}` });
    stack.sim.world.addEntity({ type: 'minecraft:chest_minecart', uuid: CART_A, x: 10.5, y: 64, z: -3.5 });
    const moved = await stack.call('order', { dir });
    expect(moved.match).toBe(false);
    expect(moved.snapshotDir).toMatch(/order-check$/);
    expect(moved.actual).not.toBe(moved.expected);
  });

  it('a recording without an orderHash cannot be compared', async () => {
    const stack = await stacks.start({ sim: { autoTick: false } });
    const dir = writeRecording(tmp(), [], { orderHash: undefined });
    const err = await failure(stack.call('order', { dir }));
    expect(err.message).toMatch(/meta\.json has no orderHash to compare with/);
    const none = await failure(stack.call('order', {}));
    expect(none.message).toMatch(/order needs a directory: the snapshot to compare against/);
  });

  it('a --read-only daemon offers neither verify nor order (each writes a snapshot folder), and says why', async () => {
    const host = await startTestHost({ readOnly: true, sim: { autoTick: false } });
    cleanups.push(() => host.close());
    const hidden = await host.hidden();
    expect(hidden.verify).toMatch(/read-only mode hides tools that can change the game/);
    expect(hidden.order).toMatch(/read-only mode/);
    const dir = writeRecording(tmp(), []);
    expect((await failure(host.call('verify', { dir }))).code).toBe('tool_disabled');
    expect(fs.existsSync(host.sim.snapshotsDir)).toBe(false);
  });
});

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { orderHash, readSnapshot, type SnapshotFileError, snapshotLine } from '../../plugins/snapshot/kit.js';
import { failure, sentSince, useStacks } from '../support/plugins.js';

const stacks = useStacks();
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const U1 = '11111111-1111-1111-1111-111111111111';
const U2 = '22222222-2222-2222-2222-222222222222';

/** A snapshot folder with the given file contents (undefined: the file is absent). */
function folder(meta: string | Buffer | undefined, entities: string | Buffer | undefined): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-snap-'));
  temps.push(dir);
  if (meta !== undefined) fs.writeFileSync(path.join(dir, 'meta.json'), meta);
  if (entities !== undefined) fs.writeFileSync(path.join(dir, 'entities.jsonl'), entities);
  return dir;
}

const line = (order: number, uuid: string, nbt = '{}') => JSON.stringify({ order, uuid, type: 'minecraft:pig', pos: [1.5, 64.0, 2.5], nbt });
const twoEntities = `${line(0, U1, '{"Health":10.0f}')}\n${line(1, U2)}\n`;

async function issueOf(dir: string): Promise<SnapshotFileError> {
  return readSnapshot(dir).then(
    () => {
      throw new Error('expected the snapshot to be refused');
    },
    (err: SnapshotFileError) => err,
  );
}

describe('snapshot files', () => {
  it('reads meta and entities in recorded order', async () => {
    const hash = orderHash([U1, U2]);
    const snap = await readSnapshot(folder(JSON.stringify({ protocol: 1, tick: 42, entities: 2, orderHash: hash }), twoEntities));
    expect(snap.meta.tick).toBe(42);
    expect(snap.entities.map((e) => e.uuid)).toEqual([U1, U2]);
    expect(snap.entities[0]!.nbt).toBe('{"Health":10.0f}');
    expect(snap.orderHash).toBe(hash);
  });

  it('names the missing file: meta.json first, then entities.jsonl', async () => {
    expect(await issueOf(folder(undefined, twoEntities))).toMatchObject({ issue: 'not_a_snapshot', message: expect.stringMatching(/no meta\.json/) });
    expect(await issueOf(folder('{}', undefined))).toMatchObject({ issue: 'not_a_snapshot', message: expect.stringMatching(/no entities\.jsonl/) });
  });

  it('refuses malformed meta: not JSON, not an object, a future protocol', async () => {
    expect(await issueOf(folder('{nope', ''))).toMatchObject({ issue: 'not_json', message: expect.stringMatching(/not valid JSON/) });
    expect(await issueOf(folder('[1]', ''))).toMatchObject({ issue: 'not_object', message: expect.stringMatching(/JSON object, not an array/) });
    expect(await issueOf(folder('{"protocol":2}', ''))).toMatchObject({ issue: 'unsupported_protocol', message: expect.stringMatching(/protocol 2/) });
  });

  it('names the bad entity line (1-based), tolerates blank lines', async () => {
    const bad = await issueOf(folder('{}', `${line(0, U1)}\n[1]\n`));
    expect(bad).toMatchObject({ issue: 'not_object', line: 2, message: expect.stringMatching(/line 2 must be a JSON object/) });
    expect(await issueOf(folder('{}', '{broken\n'))).toMatchObject({ issue: 'not_json', line: 1, message: expect.stringMatching(/line 1 is not valid JSON/) });
    const blank = await readSnapshot(folder('{"entities":2}', `\n${line(0, U1)}\n\n${line(1, U2)}\n\n`));
    expect(blank.entities).toHaveLength(2);
  });

  it('refuses a truncated entities file and non-UTF-8 bytes', async () => {
    const short = await issueOf(folder('{"entities":2}', `${line(0, U1)}\n`));
    expect(short).toMatchObject({ issue: 'count_mismatch', message: expect.stringMatching(/says 2 entities but entities\.jsonl holds 1/) });
    const latin = await issueOf(folder('{}', Buffer.from([0x7b, 0xff, 0x7d, 0x0a])));
    expect(latin).toMatchObject({ issue: 'not_utf8', message: expect.stringMatching(/UTF-8/) });
  });

  it('orderHash is sha256 of the ":"-joined uuids, 16 hex, stable and order-sensitive; empty is e3b0c44298fc1c14', () => {
    const expected = createHash('sha256').update(`${U1}:${U2}`).digest('hex').slice(0, 16);
    expect(orderHash([U1, U2])).toBe(expected);
    expect(orderHash([U1, U2])).toHaveLength(16);
    expect(orderHash([U1, U2])).toBe(orderHash([U1, U2]));
    expect(orderHash([U2, U1])).not.toBe(expected);
    expect(orderHash([])).toBe('e3b0c44298fc1c14');
  });

  it('builds the positional request line', () => {
    expect(snapshotLine({})).toBe('SNAPSHOT');
    expect(snapshotLine({ radius: 0 })).toBe('SNAPSHOT 0.0');
    expect(snapshotLine({ radius: 64 })).toBe('SNAPSHOT 64.0');
    expect(snapshotLine({ radius: 64, name: 'before' })).toBe('SNAPSHOT 64.0 before');
    expect(snapshotLine({ name: 'before' })).toBe('SNAPSHOT 0 before');
    expect(snapshotLine({ radius: 1e-7 })).toBe('SNAPSHOT 0.0000001');
    expect(snapshotLine({ dimension: 'the_end' })).toBe('SNAPSHOT 0 minecraft:the_end');
  });
});

describe('snapshot tool', () => {
  it('sends one SNAPSHOT, reports the ack and verifies the files it wrote', async () => {
    const stack = await stacks.start({ sim: { autoTick: false } });
    const before = stack.sim.received.length;
    const result = (await stack.call('snapshot', { radius: 64, name: 'base' })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['SNAPSHOT 64.0 base']);
    expect(result).toMatchObject({ name: 'base', entities: 5, dimension: 'minecraft:overworld', replaced: false });
    // The predecessor's scripts read the raw ack's `id` and `type`: they stay beside `name`.
    expect(result).toMatchObject({ type: 'snapshot_ack', id: 'base' });
    expect(result.dir).toBe(path.join(stack.sim.modDir, 'snapshots', 'base'));
    expect(result.files).toEqual({ read: true, entities: 5, orderHashMatches: true, problem: null, issue: null });
    expect(((await stack.call('snapshot', { name: 'base' })) as any).replaced).toBe(true);
  });

  it('says when the files on disk do not match what the mod reported', async () => {
    const stack = await stacks.start({ sim: { autoTick: false } });
    const result = (await stack.call('snapshot', { name: 'base' })) as Record<string, any>;
    const { checkSnapshotFiles } = await import('../../plugins/snapshot/kit.js');
    expect(await checkSnapshotFiles({ dir: result.dir, orderHash: '0000000000000000' })).toMatchObject({ read: true, orderHashMatches: false });
    fs.appendFileSync(path.join(result.dir, 'entities.jsonl'), 'oops\n');
    expect(await checkSnapshotFiles(result as any)).toMatchObject({ read: false, issue: 'not_json', problem: expect.stringMatching(/line 6/) });
  });

  it('refuses bad names and radii before anything is sent', async () => {
    const stack = await stacks.start();
    const before = stack.sim.received.length;
    for (const [args, pattern] of [
      [{ name: 'a b' }, /may hold only/],
      [{ name: '..' }, /must not start or end/],
      [{ name: '.hidden' }, /must not start or end/],
      [{ name: 'x'.repeat(65) }, /1-64/],
      [{ name: 'NUL.txt' }, /device name/],
      [{ name: 'com1' }, /device name/],
      [{ radius: -1 }, /negative/],
      [{ radius: 'far' }, /number/],
      [{ dimension: 'Minecraft:End' }, /dimension id/],
    ] as const) {
      const err = await failure(stack.call('snapshot', args));
      expect(err.code).toBe('invalid_params');
      expect(err.message).toMatch(pattern);
    }
    expect(sentSince(stack, before)).toEqual([]);
  });

  it('passes the mod refusal through as mod_error', async () => {
    const stack = await stacks.start({ sim: { players: [] } });
    const err = await failure(stack.call('snapshot', { radius: 8 }));
    expect(err.code).toBe('mod_error');
    expect(err.message).toMatch(/a radius needs a player/);
  });

  it('snapshots lists what the mod lists, read-only', async () => {
    const stack = await stacks.start();
    await stack.call('snapshot', { name: 'b' });
    await stack.call('snapshot', { name: 'a' });
    const list = (await stack.call('snapshots')) as { snapshots: Array<Record<string, unknown>> };
    expect(list.snapshots.map((s) => s.id)).toEqual(['a', 'b']);
    expect(list.snapshots[0]).toMatchObject({ entities: 5, dimension: 'minecraft:overworld' });
    const tools = (await stack.tools()).tools;
    expect(tools.find((t) => t.name === 'snapshots')!.annotations).toMatchObject({ readOnly: true });
    expect(tools.find((t) => t.name === 'snapshot')!.annotations).toMatchObject({ readOnly: false, destructive: true });
  });

  it('is hidden without the snapshot capability and on the client vantage', async () => {
    const stack = await stacks.start({ sim: { capabilities: ['state', 'command'] } });
    expect(Object.keys(await stack.hidden())).toEqual(expect.arrayContaining(['snapshot', 'snapshots']));
    const before = stack.sim.received.length;
    expect((await failure(stack.call('snapshot'))).code).toBe('unsupported_capability');
    expect(sentSince(stack, before)).toEqual([]);
    const client = await stacks.start({ sim: { vantage: 'client' } });
    expect(Object.keys(await client.hidden())).toEqual(expect.arrayContaining(['snapshot', 'snapshots']));
  });
});

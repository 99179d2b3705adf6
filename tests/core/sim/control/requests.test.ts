/**
 * Requests over the simulated mod's control listener: frame limits, the pending bound, replies
 * out of order, write de-duplication, lost replies resolved by request_status, held ops,
 * permissions, leases and the console commands. Real TLS sockets throughout.
 */
import { describe, expect, it } from 'vitest';
import type { SimulatedMod } from '../../../../core/sim/index.js';
import { type ControlTestClient, controlFixture, type Frame } from '../../../support/control-client.js';

const fixture = controlFixture();
const sim = fixture.sim;

async function connect(s: SimulatedMod, fields: Frame = {}): Promise<ControlTestClient> {
  const { client, first } = await fixture.hello(s, fields);
  expect(first.type).toBe('welcome');
  return client;
}

/** A request frame of exactly `size` bytes of JSON. */
function requestOfSize(size: number, id: string): Buffer {
  const bare = JSON.stringify({ type: 'request', id, op: 'ping', params: { pad: '' } });
  const body = Buffer.from(JSON.stringify({ type: 'request', id, op: 'ping', params: { pad: 'x'.repeat(size - bare.length) } }));
  expect(body.length).toBe(size);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(size, 0);
  return Buffer.concat([head, body]);
}

describe('frames', () => {
  it('a frame of exactly maxFrameBytes is served; one byte over is fatal frame_too_large', async () => {
    const s = await sim({ control: { maxFrameBytes: 2048 } });
    const client = await connect(s);
    client.sendRaw(requestOfSize(2048, 'at-max'));
    expect(await client.reply('at-max')).toMatchObject({ ok: true, result: { type: 'pong' } });
    client.sendRaw(requestOfSize(2049, 'over'));
    expect(await client.next((f) => f.type === 'error')).toMatchObject({ code: 'frame_too_large' });
    await client.waitClosed();
  });

  it('a length over the limit is refused from its header alone, and a non-object or non-JSON frame is bad_request', async () => {
    const s = await sim({ control: { maxFrameBytes: 2048 } });
    const huge = await connect(s);
    huge.sendRaw(Buffer.from([0x7f, 0xff, 0xff, 0xff]));
    expect(await huge.next((f) => f.type === 'error')).toMatchObject({ code: 'frame_too_large' });
    await huge.waitClosed();
    for (const payload of ['[1,2]', '{not json', '"text"']) {
      const client = await connect(s);
      const body = Buffer.from(payload);
      const head = Buffer.alloc(4);
      head.writeUInt32BE(body.length, 0);
      client.sendRaw(Buffer.concat([head, body]));
      expect(await client.next((f) => f.type === 'error'), payload).toMatchObject({ code: 'bad_request' });
      await client.waitClosed();
    }
  });

  it('a request without a readable id is fatal; a bad op or params is a bad_request reply with the id', async () => {
    const s = await sim();
    const client = await connect(s);
    expect(await client.request('teleport')).toMatchObject({ ok: false, error: { code: 'bad_request', message: 'unknown op "teleport"' } });
    client.send({ type: 'request', id: 'p1', op: 'state', params: [1] });
    expect(await client.reply('p1')).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(await client.request('command', { command: 'say a\nop Eve' })).toMatchObject({ ok: false, error: { code: 'bad_request', message: expect.stringContaining('line break') } });
    expect(await client.request('wait', { ticks: 'many' })).toMatchObject({ ok: false, error: { code: 'bad_request', message: expect.stringContaining('params.ticks') } });
    client.send({ type: 'request', id: 'x'.repeat(129), op: 'ping' });
    expect(await client.next((f) => f.type === 'error')).toMatchObject({ code: 'bad_request' });
    await client.waitClosed();
  });
});

describe('requests in flight', () => {
  it('32 may be pending; the 33rd is too_many_pending (retryable), and the 32 all complete', async () => {
    const s = await sim();
    const client = await connect(s);
    const hold = s.control!.holdOp('state');
    const ids = Array.from({ length: 32 }, (_, i) => client.start('state', {}, `s${i}`));
    const refused = await client.request('state', {}, 's32');
    expect(refused.error).toEqual({ code: 'too_many_pending', message: expect.any(String), retryable: true, resultUnknown: false });
    expect(await client.request('ping', {}, 's0')).toMatchObject({ ok: false, error: { code: 'request_in_flight' } });
    hold.release();
    for (const id of ids) expect(await client.reply(id)).toMatchObject({ ok: true, result: { type: 'state' } });
    expect((await client.request('ping')).ok).toBe(true);
  });

  it('a wait of 40 ticks does not hold up a state sent after it', async () => {
    const s = await sim();
    const client = await connect(s);
    const wait = client.start('wait', { ticks: 40 });
    const state = await client.request('state');
    expect(state).toMatchObject({ ok: true, result: { type: 'state', tick: 0 } });
    expect(client.frames.some((f) => f.id === wait)).toBe(false);
    s.tick(39);
    await client.request('ping');
    expect(client.frames.some((f) => f.id === wait)).toBe(false);
    s.tick(1);
    expect(await client.reply(wait)).toMatchObject({ ok: true, result: { type: 'wait_ack' } });
  });

  it('a game error is ok:false game_error; a refused command stays an ok cmd_ack, as on the legacy socket', async () => {
    const s = await sim();
    const client = await connect(s);
    expect(await client.request('player', { player: '' })).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(await client.request('wait', { ticks: 0 })).toMatchObject({ ok: true, result: { type: 'wait_ack', detail: 'ticks=0' } });
    expect(await client.request('snapshot', { name: 'bad/name' })).toMatchObject({ ok: false, error: { code: 'game_error', retryable: false, resultUnknown: false } });
    expect(await client.request('command', { command: 'frobnicate' })).toMatchObject({
      ok: true,
      result: { type: 'cmd_ack', output: ['Unknown or incomplete command, see below for error', 'frobnicate<--[HERE]'] },
    });
  });

  it('ops that need the world disk, and chat on a server-vantage mod, are capability_not_supported', async () => {
    const s = await sim();
    const client = await connect(s);
    for (const op of ['fork', 'restore', 'freeze', 'verify', 'order']) {
      expect(await client.request(op), op).toMatchObject({ ok: false, error: { code: 'capability_not_supported', message: expect.stringContaining('mc-agent#39'), retryable: false } });
    }
    expect(await client.request('chat', { text: 'hi' })).toMatchObject({ ok: false, error: { code: 'capability_not_supported' } });
  });
});

describe('writes', () => {
  it('a command sent twice with one id runs once; the second answers duplicate:true with the same writeSeq', async () => {
    const s = await sim();
    const client = await connect(s);
    const ran: string[] = [];
    s.onRequest(({ line }) => ran.push(line));
    const first = await client.request('command', { command: 'summon minecraft:pig 10.5 64 10.5' }, 'c1');
    const second = await client.request('command', { command: 'summon minecraft:pig 10.5 64 10.5' }, 'c1');
    expect(first.result).toMatchObject({ writeSeq: 1, duplicate: false, requestId: 'c1' });
    expect(second.result).toEqual({ ...first.result, duplicate: true });
    expect(ran).toEqual(['CMD summon minecraft:pig 10.5 64 10.5']);
    expect(s.world.entities.filter((e) => e.type === 'minecraft:pig')).toHaveLength(2); // the default pig and one summoned
    // Another credential's id space is its own.
    const other = await connect(s, { token: s.control!.addToken('other', 'write').token });
    expect((await other.request('command', { command: 'time set 1' }, 'c1')).result).toMatchObject({ writeSeq: 2, duplicate: false });
  });

  it('a write whose reply is lost ran once: request_status says completed with its result, and a resend is a duplicate', async () => {
    const s = await sim();
    let client = await connect(s);
    s.control!.dropReplyOf('command', { close: true });
    client.start('command', { command: 'time set 9000' }, 'lost-1');
    await client.waitClosed();
    expect(s.world.dayTime).toBe(9000);
    client = await connect(s);
    const status = await client.request('request_status', { requestId: 'lost-1' });
    expect(status.result).toMatchObject({ requestId: 'lost-1', operation: 'command', state: 'completed', result: { type: 'cmd_ack', writeSeq: 1, requestId: 'lost-1' } });
    s.world.dayTime = 1;
    expect((await client.request('command', { command: 'time set 9000' }, 'lost-1')).result).toMatchObject({ duplicate: true, writeSeq: 1 });
    expect(s.world.dayTime).toBe(1);
    expect((await client.request('request_status', { requestId: 'never-sent' })).result).toEqual({ requestId: 'never-sent', state: 'unknown' });
  });

  it('a held write is pending in request_status (also from a second connection), then completed', async () => {
    const s = await sim();
    const client = await connect(s);
    const hold = s.control!.holdOp('mark');
    client.start('mark', { text: 'checkpoint' }, 'm1');
    const watcher = await connect(s);
    expect((await watcher.request('request_status', { requestId: 'm1' })).result).toMatchObject({ requestId: 'm1', operation: 'mark', state: 'pending' });
    expect(await watcher.request('mark', { text: 'checkpoint' }, 'm1')).toMatchObject({ ok: false, error: { code: 'request_in_flight' } });
    hold.release();
    expect(await client.reply('m1')).toMatchObject({ ok: true, result: { type: 'mark_ack', detail: 'checkpoint', writeSeq: 1 } });
    expect((await watcher.request('request_status', { requestId: 'm1' })).result).toMatchObject({ state: 'completed' });
  });

  it('a read-only credential is forbidden to write; a write-only one to read', async () => {
    const s = await sim();
    const reader = await connect(s, { token: s.control!.addToken('ro', 'read').token });
    const ran: string[] = [];
    s.onRequest(({ line }) => ran.push(line));
    expect(await reader.request('command', { command: 'time set 1' })).toMatchObject({
      ok: false,
      error: { code: 'forbidden', message: 'this credential has no write permission', retryable: false, resultUnknown: false },
    });
    expect(await reader.request('exclusive_acquire', { key: 'k', ttlSeconds: 5 })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(ran).toEqual([]);
    expect((await reader.request('state')).ok).toBe(true);
    const writer = await connect(s, { token: s.control!.addToken('wo', 'write').token });
    expect(await writer.request('state')).toMatchObject({ ok: false, error: { code: 'forbidden', message: 'this credential has no read permission' } });
  });
});

describe('leases', () => {
  it('a second credential gets conflict naming the holder; the lease outlives a disconnect until its TTL, and goes with a revoked owner', async () => {
    const s = await sim();
    const a = s.control!.addToken('daemon-a', 'read+write');
    const clientA = await connect(s, { token: a.token });
    const clientB = await connect(s, { token: s.control!.addToken('daemon-b', 'read+write').token });
    const acquired = await clientA.request('exclusive_acquire', { key: 'freeze', ttlSeconds: 300, label: 'fork run' });
    expect(acquired.result).toMatchObject({ key: 'freeze', holderTokenId: a.id, holderLabel: 'fork run', renewals: 0 });
    const conflict = await clientB.request('exclusive_acquire', { key: 'freeze', ttlSeconds: 60 });
    expect(conflict.error).toMatchObject({ code: 'conflict', retryable: true, resultUnknown: false, details: { holder: acquired.result } });
    expect(await clientB.request('exclusive_release', { key: 'freeze' })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(await clientB.request('exclusive_renew', { key: 'none', ttlSeconds: 5 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect((await clientA.request('exclusive_renew', { key: 'freeze', ttlSeconds: 300 })).result).toMatchObject({ renewals: 1 });

    clientA.close();
    expect((await clientB.request('exclusive_status', { key: 'freeze' })).result).toMatchObject({ key: 'freeze', held: true, lease: { holderTokenId: a.id } });
    s.advanceClock(301_000);
    expect((await clientB.request('exclusive_acquire', { key: 'freeze', ttlSeconds: 60 })).ok).toBe(true);
    expect((await clientB.request('exclusive_release', { key: 'freeze' })).ok).toBe(true);

    const again = await connect(s, { token: a.token });
    expect((await again.request('exclusive_acquire', { key: 'k2', ttlSeconds: 60 })).ok).toBe(true);
    s.control!.revoke(a.id);
    expect((await clientB.request('exclusive_status')).result).toEqual({ leases: [] });
  });
});

describe('console commands (through CMD)', () => {
  it('mint, list and revoke credentials on the legacy socket; the secret appears once, in the ack only', async () => {
    const s = await sim();
    const events = await connect(s);
    const { rawConnection } = await import('../../../support/helpers.js');
    const legacy = await rawConnection(s.port);
    await legacy.next(); // greeting
    legacy.send('CMD mcagent control token add daemon-c read+write 600');
    const ack = await legacy.next();
    expect(ack.type).toBe('cmd_ack');
    const output = ack.output as string[];
    expect(output[0]).toMatch(/^Issued control credential tk_[0-9a-f]{12} \(daemon-c, read\+write, expires in 600 s\)$/);
    const token = /(mca1\.tk_[0-9a-f]{12}\.[A-Za-z0-9_-]{43})$/.exec(output[1])![1];
    const minted = await connect(s, { token });
    expect((await minted.request('ping')).ok).toBe(true);
    expect(events.events().some((e) => JSON.stringify(e).includes(token))).toBe(false);

    legacy.send('CMD mcagent control token list');
    const id = /tk_[0-9a-f]{12}/.exec(output[0])![0];
    expect(((await legacy.next()).output as string[]).some((l) => l.startsWith(`${id} daemon-c read+write created `))).toBe(true);
    legacy.send('CMD mcagent control status');
    expect((await legacy.next()).output).toEqual([expect.stringContaining(`fingerprint ${s.control!.fingerprint}`), expect.stringMatching(/2 session\(s\), 2 credential\(s\)/)]);
    legacy.send(`CMD mcagent control token revoke ${id}`);
    expect((await legacy.next()).output).toEqual([`Revoked control credential ${id}`]);
    await minted.waitClosed();
    legacy.send('CMD mcagent control token add x admin');
    expect(((await legacy.next()).output as string[])[0]).toMatch(/^Usage: /);
    legacy.close();
  });

  it('without the control listener they fail like an unknown command', async () => {
    const s = await sim({ control: false });
    const { rawConnection } = await import('../../../support/helpers.js');
    const legacy = await rawConnection(s.port);
    await legacy.next();
    legacy.send('CMD mcagent control status');
    let ack = await legacy.next();
    while (ack.event) ack = await legacy.next(); // the command's feedback comes first as game events
    expect(ack).toMatchObject({ type: 'cmd_ack', output: ['Unknown or incomplete command, see below for error', 'mcagent control status<--[HERE]'] });
    legacy.close();
  });
});

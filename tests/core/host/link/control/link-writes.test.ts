/**
 * A control link's write record beyond one call (issue 35, "Test strength"): the late answer of a
 * write its caller gave up on, said as completed, failed or still unknown; and the ledger file,
 * which a second link on it reads, so a write answered before is never sent again. A ControlLink
 * against a hostile server (tests/support/hostile-control.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../../../../core/host/link/control/frames.js';
import { controlLinks } from '../../../../support/control-link.js';
import { failure } from '../../../../support/errors.js';
import { type Frame, hostileFixture, WELCOME } from '../../../../support/hostile-control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const fixture = hostileFixture();
const start = controlLinks((verb, arg) => {
  if (verb === 'MARK') return { replies: ['mark_ack'], write: true, control: { op: 'mark' } };
  if (verb === 'BIG') return { replies: ['mark_ack'], write: true, control: { op: 'mark', params: { text: 'x'.repeat(2_000) } } };
  if (verb === 'REQUEST_STATUS') return { replies: ['request_status'], legacy: false, control: { op: 'request_status', params: { requestId: arg } } };
  // A table entry of request_status with no id: the server's answer is passed on, nothing recorded.
  if (verb === 'ASK') return { replies: ['request_status'], legacy: false, control: { op: 'request_status' } };
  return undefined;
});
const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) fs.rmSync(f, { recursive: true, force: true });
});

/** A ledger file in a folder of its own, removed after the test. */
function ledgerIn(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-ledger-'));
  folders.push(dir);
  return path.join(dir, 'writes.json');
}

const answer = (socket: tls.TLSSocket, frame: Frame, body: Frame) => socket.write(encodeFrame({ type: 'reply', id: frame.id, ...body }));

describe('the late answer of a write its caller gave up on', () => {
  it('a result is completed, an error failed, an error of unknown result still unknown: each in an event and the record', async () => {
    const held: Array<{ socket: tls.TLSSocket; frame: Frame }> = [];
    const server = await fixture.server({ hello: (s) => s.write(encodeFrame(WELCOME)), frame: (socket, frame) => held.push({ socket, frame }) });
    const { link, events } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the session');
    // Each waits out its 100 ms and the link's second of grace, unanswered: its result is unknown.
    const calls = ['w-ok', 'w-no', 'w-lost'].map((id) => failure(link.request('MARK x', { requestId: id, timeoutMs: 100 })));
    for (const err of await Promise.all(calls)) expect(err).toMatchObject({ code: 'timeout', outcome: { resultUnknown: true } });
    expect(held.map((h) => h.frame.id)).toEqual(['w-ok', 'w-no', 'w-lost']);
    const [ok, no, lost] = held;
    answer(ok!.socket, ok!.frame, { ok: true, result: { type: 'mark_ack', n: 1 } });
    answer(no!.socket, no!.frame, { ok: false, error: { code: 'game_error', message: 'no' } });
    answer(lost!.socket, lost!.frame, { ok: false, error: { code: 'timeout', message: 'late', resultUnknown: true } });
    const resolved = () => events.filter((e) => e.type === 'bridge_request_resolved');
    await waitUntil(() => resolved().length === 3, 5_000, 'three resolved events');
    expect(resolved()).toEqual(
      ['completed', 'failed', 'unknown'].map((state, i) => ({
        type: 'bridge_request_resolved',
        requestId: ['w-ok', 'w-no', 'w-lost'][i],
        state,
        text: `the answer to request ${['w-ok', 'w-no', 'w-lost'][i]} came after its caller stopped waiting: ${state}`,
      })),
    );
    expect(link.status().stats.lateReplies).toBe(3);
    expect(await link.request('MARK x', { requestId: 'w-ok' })).toMatchObject({ type: 'mark_ack', n: 1, duplicate: true });
    expect(await failure(link.request('MARK x', { requestId: 'w-no' }))).toMatchObject({ code: 'mod_error', outcome: { retryable: false, resultUnknown: false } });
    expect(link.writes.isUnknown('w-lost')).toBe(true);
    expect(held).toHaveLength(3);
  });

  it('the late answer of a read is counted, and records nothing', async () => {
    const held: Array<{ socket: tls.TLSSocket; frame: Frame }> = [];
    const server = await fixture.server({ hello: (s) => s.write(encodeFrame(WELCOME)), frame: (socket, frame) => held.push({ socket, frame }) });
    const { link, events } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the session');
    expect(await failure(link.request('PING', { timeoutMs: 100 }))).toMatchObject({ code: 'timeout' });
    answer(held[0]!.socket, held[0]!.frame, { ok: true, result: { type: 'pong' } });
    await waitUntil(() => link.status().stats.lateReplies === 1, 5_000, 'the late reply');
    expect(events).toEqual([]);
    expect(link.writes.summary()).toMatchObject({ tracked: 0 });
  });
});

describe('the record of each request', () => {
  it('a read answered leaves no record; a write over the frame limit is refused unsent, as definite', async () => {
    const server = await fixture.server({ hello: (s) => s.write(encodeFrame(WELCOME)), frame: (s, f) => answer(s, f, { ok: true, result: { type: 'pong' } }) });
    const { link } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the session');
    await link.request('PING');
    expect(link.writes.summary()).toMatchObject({ tracked: 0 });
    const err = await failure(link.request('BIG', { requestId: 'big-1' }));
    expect(err).toMatchObject({ code: 'invalid_params', details: { serverCode: 'frame_too_large' } });
    expect(err.message).toMatch(/over the server's 1024-byte frame limit; nothing was sent$/);
    expect(err.outcome).toEqual({ retryable: false, resultUnknown: false, requestId: 'big-1' });
    expect(server.frames.map((f) => f.op)).toEqual(['ping']);
  });

  it('a write whose answer never came is sent again under its id when asked again, and its answer stands', async () => {
    const server = await fixture.server({
      hello: (s) => s.write(encodeFrame(WELCOME)),
      // The first mark goes unanswered; the second is answered.
      frame: (s, f) => {
        if (server.frames.filter((g) => g.op === 'mark').length > 1) answer(s, f, { ok: true, result: { type: 'mark_ack' } });
      },
    });
    const { link } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the session');
    expect((await failure(link.request('MARK x', { requestId: 'w-1', timeoutMs: 100 }))).outcome).toMatchObject({ resultUnknown: true });
    expect(await link.request('MARK x', { requestId: 'w-1' })).toMatchObject({ type: 'mark_ack' });
    expect(server.frames.filter((f) => f.op === 'mark').map((f) => f.id)).toEqual(['w-1', 'w-1']);
    expect(link.writes.isUnknown('w-1')).toBe(false);
  });

  it("request_status of a write already answered is passed on, and the daemon's record stands", async () => {
    const server = await fixture.server({
      hello: (s) => s.write(encodeFrame(WELCOME)),
      frame: (s, f) => {
        if (f.op === 'mark') answer(s, f, { ok: true, result: { type: 'mark_ack' } });
        else answer(s, f, { ok: true, result: { type: 'request_status', requestId: f.params.requestId, state: 'failed', error: { code: 'game_error', message: 'no' } } });
      },
    });
    const { link } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the session');
    await link.request('MARK x', { requestId: 'w-1' });
    expect(await link.request('REQUEST_STATUS w-1')).toMatchObject({ state: 'failed', requestId: 'w-1' });
    expect(await link.request('MARK x', { requestId: 'w-1' })).toMatchObject({ type: 'mark_ack', duplicate: true });
    expect(await link.request('ASK')).toMatchObject({ type: 'request_status', state: 'failed' });
    expect(server.frames.filter((f) => f.op === 'request_status').map((f) => f.params)).toEqual([{ requestId: 'w-1' }, {}]);
  });
});

describe('the ledger file', () => {
  it("a write an earlier daemon lost the answer of is asked of the server's ledger at the first session", async () => {
    const ledgerFile = ledgerIn();
    const server = await fixture.server({
      hello: (s) => s.write(encodeFrame(WELCOME)),
      frame: (s, f) => {
        if (f.op === 'request_status') answer(s, f, { ok: true, result: { type: 'request_status', requestId: f.params.requestId, state: 'completed', result: { type: 'mark_ack' } } });
      },
    });
    const first = start(server, { ledgerFile });
    await waitUntil(() => first.link.connected, 5_000, 'the first link');
    expect((await failure(first.link.request('MARK x', { requestId: 'w-1', timeoutMs: 100 }))).outcome).toMatchObject({ resultUnknown: true });
    await first.link.stop();
    const second = start(server, { ledgerFile });
    await waitUntil(() => second.events.some((e) => e.type === 'bridge_request_resolved'), 5_000, 'the resolved event');
    expect(second.events.filter((e) => e.type === 'bridge_request_resolved')).toEqual([
      { type: 'bridge_request_resolved', requestId: 'w-1', state: 'completed', text: 'request w-1: the server says completed' },
    ]);
    expect(second.link.writes.isUnknown('w-1')).toBe(false);
  });

  it('a write answered through one link is a duplicate, unsent, through the next on the same file', async () => {
    const ledgerFile = ledgerIn();
    const server = await fixture.server({
      hello: (s) => s.write(encodeFrame(WELCOME)),
      frame: (s, f) => answer(s, f, { ok: true, result: { type: 'mark_ack', n: server.frames.length } }),
    });
    const first = start(server, { ledgerFile });
    await waitUntil(() => first.link.connected, 5_000, 'the first link');
    expect(await first.link.request('MARK x', { requestId: 'w-1' })).toMatchObject({ type: 'mark_ack', n: 1 });
    await first.link.stop();
    expect(fs.existsSync(ledgerFile)).toBe(true);
    const second = start(server, { ledgerFile });
    await waitUntil(() => second.link.connected, 5_000, 'the second link');
    expect(await second.link.request('MARK x', { requestId: 'w-1' })).toMatchObject({ type: 'mark_ack', n: 1, duplicate: true });
    expect(server.frames.filter((f) => f.op === 'mark')).toHaveLength(1);
  });
});

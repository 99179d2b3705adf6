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
const start = controlLinks({ MARK: { replies: ['mark_ack'], write: true, control: { op: 'mark' } } });
const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) fs.rmSync(f, { recursive: true, force: true });
});

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

describe('the ledger file', () => {
  it('a write answered through one link is a duplicate, unsent, through the next on the same file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcb-ledger-'));
    folders.push(dir);
    const ledgerFile = path.join(dir, 'writes.json');
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

/**
 * What the daemon records of a write over control protocol 1 (issue 35, items 3, 7, 19): an id
 * reused for another payload is a conflict; the late answer of a write the caller stopped waiting
 * for becomes the daemon's record, in its event and for a resend; request_status resolves it too.
 */
import type tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../../../../../core/host/host.js';
import { encodeFrame } from '../../../../../core/host/link/control/frames.js';
import { commandPlugin } from '../../../../../plugins/command/index.js';
import { requestStatusPlugin } from '../../../../../plugins/request-status/index.js';
import { hostileFixture, WELCOME, type Frame } from '../../../../support/hostile-control.js';
import { failure } from '../../../../support/errors.js';
import { startControlStack, type ControlStack } from '../../../../support/control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const stacks: ControlStack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

async function stack(): Promise<ControlStack> {
  const s = await startControlStack();
  stacks.push(s);
  return s;
}

const pigs = (s: ControlStack) => s.sim.world.entities.filter((e) => e.type === 'minecraft:pig').length;

/** A write the daemon gives up on while the server holds it: resultUnknown, as the caller sees it. */
async function timedOut(s: ControlStack, line: string, id: string) {
  const hold = s.sim.control!.holdOp('command');
  const err = await failure(s.daemon.host.link.request(line, { requestId: id, timeoutMs: 150 }));
  expect(err.code).toBe('timeout');
  expect(err.outcome).toEqual({ retryable: false, resultUnknown: true, requestId: id });
  return hold;
}

describe('write outcomes over control', () => {
  it("a command reusing a mark's id is a conflict and never runs; the mark resent is its duplicate", async () => {
    const s = await stack();
    const before = pigs(s);
    await s.client.call('mark', { text: 'first', request_id: 'same-1' });
    const err = await failure(s.client.call('command', { command: 'summon minecraft:pig 0 64 0', request_id: 'same-1' }));
    expect(err.code).toBe('conflict');
    expect(err.message).toMatch(/new request id/);
    expect(pigs(s)).toBe(before);
    expect((await s.client.call('mark', { text: 'first', request_id: 'same-1' })) as Record<string, unknown>).toMatchObject({ duplicate: true });
  });

  it('a write the server timed out (resultUnknown): request_status saying completed becomes the daemon record; the resend is a duplicate', async () => {
    const s = await stack();
    const before = pigs(s);
    const hold = await timedOut(s, 'CMD summon minecraft:pig 0 64 0', 'late-ok');
    hold.release();
    await waitUntil(() => pigs(s) === before + 1, 5_000, 'the held command to run');
    expect(writesOf(s.daemon.host)).toMatchObject({ unknown: 1 });
    expect((await s.client.call('request_status', { request_id: 'late-ok' })) as Record<string, unknown>).toMatchObject({ state: 'completed' });
    expect(writesOf(s.daemon.host)).toMatchObject({ unknown: 0 });
    const again = (await s.client.call('command', { command: 'summon minecraft:pig 0 64 0', request_id: 'late-ok' })) as Record<string, unknown>;
    expect(again.duplicate).toBe(true);
    expect(pigs(s)).toBe(before + 1);
  });
});

const hostile = hostileFixture();
const WITH_COMMAND = { ...WELCOME, capabilities: ['state', 'command'], limits: { maxFrameBytes: 1 << 20 } };

/** A server that welcomes, answers pings, and hands every other request to `onRequest` (unanswered unless it answers). */
async function scripted(onRequest: (socket: tls.TLSSocket, frame: Frame) => void = () => {}) {
  const server = await hostile.server({
    hello: (socket) => socket.write(encodeFrame(WITH_COMMAND)),
    frame: (socket, frame) => {
      if (frame.op === 'ping') socket.write(encodeFrame({ type: 'reply', id: frame.id, ok: true, result: { type: 'pong' } }));
      else if (frame.type === 'request') onRequest(socket, frame);
    },
  });
  const host = await hostile.host(server, {}, { plugins: [{ plugin: commandPlugin }, { plugin: requestStatusPlugin }] });
  await waitUntil(() => host.link.connected, 5_000, 'the link to the scripted server');
  return { server, host };
}

const commands = (server: { frames: Frame[] }) => server.frames.filter((f) => f.op === 'command');
const resolvedIn = (host: Host, id: string) => host.events.query({ limit: 200 }).events.find((e) => e.type === 'bridge_request_resolved' && e.requestId === id);
const writesOf = (host: Host) => (host.link.status().control as { writes: { tracked: number; unknown: number } }).writes;

/** The daemon gives up on `id` (its deadline and the grace past it), then the server's answer comes. */
async function lateAnswer(answer: (frame: Frame) => Frame) {
  const held: Array<{ socket: tls.TLSSocket; frame: Frame }> = [];
  const { server, host } = await scripted((socket, frame) => held.push({ socket, frame }));
  const err = await failure(host.link.request('CMD say late', { requestId: 'late-1', timeoutMs: 50 }));
  expect(err.outcome).toEqual({ retryable: false, resultUnknown: true, requestId: 'late-1' });
  const { socket, frame } = held[0]!;
  socket.write(encodeFrame({ type: 'reply', id: frame.id, ...answer(frame) }));
  await waitUntil(() => resolvedIn(host, 'late-1') !== undefined, 5_000, 'the late answer to be recorded');
  return { server, host, event: resolvedIn(host, 'late-1')! };
}

describe('the late answer of a write the daemon stopped waiting for', () => {
  it('a late success reads completed (a null result too), and a resend is answered from the record, not sent', async () => {
    const { server, host, event } = await lateAnswer(() => ({ ok: true, result: null }));
    expect(event).toMatchObject({ state: 'completed' });
    expect(writesOf(host)).toMatchObject({ unknown: 0 });
    expect(await host.link.request('CMD say late', { requestId: 'late-1' })).toMatchObject({ duplicate: true, requestId: 'late-1' });
    expect(commands(server)).toHaveLength(1);
  });

  it('a late object result reads completed, with the stored answer on resend', async () => {
    const { host, event } = await lateAnswer(() => ({ ok: true, result: { type: 'cmd_ack', detail: 'say late' } }));
    expect(event).toMatchObject({ state: 'completed' });
    expect(await host.link.request('CMD say late', { requestId: 'late-1' })).toMatchObject({ type: 'cmd_ack', detail: 'say late', duplicate: true });
  });

  it('a late refusal reads failed, and the resend answers that refusal, unsent', async () => {
    const { server, host, event } = await lateAnswer(() => ({ ok: false, error: { code: 'game_error', message: 'no such command', retryable: false, resultUnknown: false } }));
    expect(event).toMatchObject({ state: 'failed' });
    const again = await failure(host.link.request('CMD say late', { requestId: 'late-1' }));
    expect(again.message).toMatch(/no such command/);
    expect(commands(server)).toHaveLength(1);
  });

  it("a late resultUnknown (the server's own deadline) reads unknown, not failed, and the write stays unknown", async () => {
    const { host, event } = await lateAnswer(() => ({ ok: false, error: { code: 'timeout', message: 'still running', retryable: false, resultUnknown: true } }));
    expect(event).toMatchObject({ state: 'unknown' });
    expect(writesOf(host)).toMatchObject({ unknown: 1 });
  });

  it("a success the server sends just after the deadline it was given is the caller's answer, not a timeout", async () => {
    const { server, host } = await scripted((socket, frame) => {
      // The server's behaviour: it finishes 20 ms past the timeoutMillis the daemon sent.
      setTimeout(() => socket.write(encodeFrame({ type: 'reply', id: frame.id, ok: true, result: { type: 'cmd_ack', detail: 'in time' } })), Number(frame.timeoutMillis) + 20);
    });
    expect(await host.link.request('CMD say soon', { requestId: 'edge-1', timeoutMs: 100 })).toMatchObject({ detail: 'in time' });
    expect(commands(server)[0]!.timeoutMillis).toBeLessThanOrEqual(100);
  });

  it('request_status saying completed settles an unknown write; a stray reply for an id never asked resolves nothing', async () => {
    const held: Array<{ socket: tls.TLSSocket; frame: Frame }> = [];
    const { host } = await scripted((socket, frame) => {
      if (frame.op === 'request_status')
        socket.write(encodeFrame({ type: 'reply', id: frame.id, ok: true, result: { requestId: frame.params.requestId, state: 'completed', result: { type: 'cmd_ack', detail: 'ran' } } }));
      else held.push({ socket, frame });
    });
    await failure(host.link.request('CMD say lost', { requestId: 'lost-1', timeoutMs: 50 }));
    held[0]!.socket.write(encodeFrame({ type: 'reply', id: 'never-asked', ok: true, result: { type: 'cmd_ack' } }));
    await waitUntil(() => host.link.stats.lateReplies >= 1, 5_000, 'the stray reply');
    expect(writesOf(host)).toEqual({ tracked: 1, unknown: 1, bytes: expect.any(Number) });
    expect(await host.call('request_status', { request_id: 'lost-1' })).toMatchObject({ state: 'completed' });
    expect(writesOf(host)).toMatchObject({ unknown: 0 });
    expect(await host.link.request('CMD say lost', { requestId: 'lost-1' })).toMatchObject({ detail: 'ran', duplicate: true });
  });
});

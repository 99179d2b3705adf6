/**
 * Requests on a connection of their own (blocking verbs, `ownConnection`): which of the lines the
 * mod writes there answers the request. Replies carry no ids, so the rule is the one the main
 * connection uses (replies.ts, matchesReply): the request's own reply type, or an `error`, or for
 * a verb nobody declared, any reply.
 */
import { describe, expect, it } from 'vitest';
import type { McbridgeError } from '../../../../core/host/errors.js';
import { Gate, type ScriptedReply } from '../../../support/scripted-mod.js';
import { useScriptedLinks } from '../../../support/scripted-link.js';

const startLink = useScriptedLinks();

/** A mod that answers every WAIT and every FROB with `replies`, in order, at once. */
const setup = (replies: ScriptedReply[]) => startLink({ respond: (line) => (line.startsWith('WAIT') || line.startsWith('FROB') ? replies : undefined) });

const failure = (promise: Promise<unknown>) => promise.then(() => null, (err: McbridgeError) => err);

describe('a request on a connection of its own', () => {
  it('passes over replies of another type and replies with no type, and takes its own', async () => {
    const { link, mod } = await setup([
      { line: { type: 'state', tick: 1 } },
      { line: { detail: 'no type at all' } },
      { line: { type: 7, detail: 'a type that is not a string' } },
      { line: { type: 'wait_ack', detail: 'ticks=5' } },
    ]);
    await expect(link.request('WAIT 5')).resolves.toEqual({ type: 'wait_ack', detail: 'ticks=5' });
    expect(mod.connections[1]!.received).toEqual(['WAIT 5']);
    expect(link.stats.sideRequests).toBe(1);
  });

  it('is answered by an error, which rejects with mod_error carrying the request and the reply', async () => {
    const reply = { type: 'error', millis: 3, message: 'the server is stopping' };
    const { link } = await setup([{ line: { type: 'state', tick: 1 } }, { line: reply }]);
    const err = (await failure(link.request('WAIT 5')))!;
    expect(err.code).toBe('mod_error');
    expect(err.message).toBe('the server is stopping');
    expect(err.details).toEqual({ request: 'WAIT 5', reply });
  });

  it('says the mod reported an error when the error reply has no message', async () => {
    const { link } = await setup([{ line: { type: 'error', millis: 3 } }]);
    const err = (await failure(link.request('WAIT 5')))!;
    expect(err.code).toBe('mod_error');
    expect(err.message).toBe('mod reported an error');
  });

  it('takes the first reply of any type for a verb nobody declared', async () => {
    const { link } = await setup([{ line: { type: 'frobbed', n: 1 } }, { line: { type: 'state', tick: 1 } }]);
    await expect(link.request('FROB it', { ownConnection: true })).resolves.toEqual({ type: 'frobbed', n: 1 });
    expect(link.stats.undeclaredVerbs).toBe(1);
  });
});

describe('side connections in use at once', () => {
  /** A mod whose WAIT replies wait for the test, each on the side connection it came in on. */
  const heldWaits = async (maxSideRequests: number) => {
    const waits = new Gate();
    const started = await startLink(
      { respond: (line, conn) => (line.startsWith('WAIT') ? waits.hold(conn, { type: 'wait_ack', detail: line }) : undefined) },
      { maxSideRequests },
    );
    return { ...started, waits };
  };

  it('are bounded: a further request waits for one to free, then takes it', async () => {
    const { link, mod, waits } = await heldWaits(1);
    const first = link.request('WAIT 20');
    await waits.untilHeld(1);
    const second = link.request('WAIT 30');
    expect(mod.connections).toHaveLength(2);
    waits.release();
    await expect(first).resolves.toMatchObject({ detail: 'WAIT 20' });
    await waits.untilHeld(1);
    expect(mod.connections).toHaveLength(3);
    waits.release();
    await expect(second).resolves.toMatchObject({ detail: 'WAIT 30' });
    expect(link.stats.sideRequests).toBe(2);
  });

  it('a request cancelled while it waits for one is never sent, and frees its turn', async () => {
    const { link, mod, waits } = await heldWaits(1);
    const first = link.request('WAIT 20');
    await waits.untilHeld(1);
    const cancel = new AbortController();
    const second = failure(link.request('WAIT 30', { signal: cancel.signal }));
    const third = link.request('WAIT 40');
    cancel.abort();
    expect(await second).toMatchObject({ code: 'cancelled', message: "the request 'WAIT 30' was cancelled" });
    waits.release();
    await first;
    await waits.untilHeld(1);
    waits.release();
    await expect(third).resolves.toMatchObject({ detail: 'WAIT 40' });
    expect(mod.received.filter((l) => l.startsWith('WAIT'))).toEqual(['WAIT 20', 'WAIT 40']);
  });

  it('one whose deadline passes while it waits says how many were ahead', async () => {
    const { link, waits } = await heldWaits(1);
    const first = link.request('WAIT 20');
    await waits.untilHeld(1);
    const err = (await failure(link.request('WAIT 30', { timeoutMs: 50 })))!;
    expect(err).toMatchObject({ code: 'timeout', details: { sent: false, ahead: 1 } });
    expect(err.message).toMatch(/^no response for 'WAIT 30' within 0\.1s: it waited in the queue behind 1 request and was never sent/);
    expect(link.stats).toMatchObject({ timeouts: 1, queueTimeouts: 1 });
    waits.release();
    await first;
  });
});

describe('a side connection that fails', () => {
  it('closed by the mod before the reply fails the request with not_connected', async () => {
    const { link } = await startLink({ respond: (line, conn) => (line.startsWith('WAIT') ? void conn.socket.destroy() : undefined) });
    const err = (await failure(link.request('WAIT 5')))!;
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(/^the mod connection for 'WAIT 5' closed before its reply/);
  });

  it('that never answers times out, counted as sent', async () => {
    const { link } = await startLink({ respond: (line) => (line.startsWith('WAIT') ? [] : undefined) });
    const err = (await failure(link.request('WAIT 5', { timeoutMs: 50 })))!;
    expect(err).toMatchObject({ code: 'timeout', details: { request: 'WAIT 5', sent: true, timeoutMs: 50 } });
    expect(link.stats.timeouts).toBe(1);
  });
});

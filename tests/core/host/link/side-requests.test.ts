/**
 * Requests on a connection of their own (blocking verbs, `ownConnection`): which of the lines the
 * mod writes there answers the request. Replies carry no ids, so the rule is the one the main
 * connection uses (replies.ts, matchesReply): the request's own reply type, or an `error`, or for
 * a verb nobody declared, any reply.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { failure } from '../../../support/errors.js';
import { Gate, type ScriptedReply } from '../../../support/scripted-mod.js';
import { useScriptedLinks } from '../../../support/scripted-link.js';
import { waitUntil } from '../../../support/wait-until.js';

const startLink = useScriptedLinks();

/** A mod that answers every WAIT and every FROB with `replies`, in order, at once. */
const setup = (replies: ScriptedReply[]) => startLink({ respond: (line) => (line.startsWith('WAIT') || line.startsWith('FROB') ? replies : undefined) });

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
    await waitUntil(() => mod.open === 1, 5_000, 'the side connection to close after its reply');
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
    const started = await startLink({ respond: (line, conn) => (line.startsWith('WAIT') ? waits.hold(conn, { type: 'wait_ack', detail: line }) : undefined) }, { maxSideRequests });
    return { ...started, waits };
  };

  it('are bounded: a further request waits for one to free, then takes it', async () => {
    const { link, mod, waits } = await heldWaits(1);
    const first = link.request('WAIT 20');
    await waits.untilHeld(1);
    const signal = new AbortController().signal;
    const second = link.request('WAIT 30', { signal });
    expect(mod.connections).toHaveLength(2);
    waits.release();
    await expect(first).resolves.toMatchObject({ detail: 'WAIT 20' });
    await waits.untilHeld(1);
    expect(mod.connections).toHaveLength(3);
    // The one it took still counts: another waits, and its deadline passes unsent.
    expect(await failure(link.request('WAIT 35', { timeoutMs: 50 }))).toMatchObject({ code: 'timeout', details: { sent: false, ahead: 1 } });
    waits.release();
    await expect(second).resolves.toMatchObject({ detail: 'WAIT 30' });
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    // Both gave their connection back: a third is sent at once.
    const third = link.request('WAIT 40');
    await waits.untilHeld(1);
    waits.release();
    await expect(third).resolves.toMatchObject({ detail: 'WAIT 40' });
    expect(link.stats.sideRequests).toBe(3);
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

  it('one answered in time leaves no deadline behind: only a later timeout is counted', async () => {
    const { link, waits } = await heldWaits(1);
    const first = link.request('WAIT 20');
    await waits.untilHeld(1);
    // Queued, then sent and answered well inside its 2 s; its deadlines (queued, sent) must go with it.
    const second = link.request('WAIT 30', { timeoutMs: 2_000 });
    waits.release();
    await first;
    await waits.untilHeld(1);
    waits.release();
    await expect(second).resolves.toMatchObject({ detail: 'WAIT 30' });
    // This one's deadline comes after the second's would have.
    const third = failure(link.request('WAIT 40', { timeoutMs: 3_000 }));
    expect(await third).toMatchObject({ code: 'timeout', details: { sent: true } });
    expect(link.stats).toMatchObject({ timeouts: 1, queueTimeouts: 0 });
  });

  it('one whose deadline passes counts the requests still waiting ahead of it', async () => {
    const { link, waits } = await heldWaits(1);
    const first = link.request('WAIT 20');
    await waits.untilHeld(1);
    const second = link.request('WAIT 30');
    const err = (await failure(link.request('WAIT 40', { timeoutMs: 50 })))!;
    expect(err).toMatchObject({ code: 'timeout', details: { sent: false, ahead: 2 } });
    waits.release();
    await first;
    await waits.untilHeld(1);
    waits.release();
    await second;
  });
});

describe('a side connection that fails', () => {
  it('closed by the mod before the reply fails the request with not_connected', async () => {
    const { link } = await startLink({ respond: (line, conn) => (line.startsWith('WAIT') ? void conn.socket.destroy() : undefined) });
    const err = (await failure(link.request('WAIT 5')))!;
    expect(err.code).toBe('not_connected');
    expect(err.message).toBe("the mod connection for 'WAIT 5' closed before its reply");
  });

  it('reset by the mod before the reply names the socket error', async () => {
    const { link } = await startLink({ respond: (line, conn) => (line.startsWith('WAIT') ? void conn.socket.resetAndDestroy() : undefined) });
    const err = (await failure(link.request('WAIT 5')))!;
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(/^the mod connection for 'WAIT 5' closed before its reply \(.*ECONNRESET.*\)$/);
  });

  it('that cannot be opened (the mod stopped listening) fails with not_connected and the reason', async () => {
    const { link, mod } = await startLink();
    mod.stopListening();
    const err = (await failure(link.request('WAIT 5')))!;
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(/^cannot open a connection for 'WAIT 5': .*ECONNREFUSED/);
  });

  it('counts the bad lines the mod writes there', async () => {
    const { link } = await setup([{ line: 'not json' }, { line: { type: 'wait_ack', detail: 'ticks=5' } }]);
    await expect(link.request('WAIT 5')).resolves.toMatchObject({ type: 'wait_ack' });
    expect(link.stats.badLines).toBe(1);
  });

  it('that never answers times out, counted as sent', async () => {
    const { link } = await startLink({ respond: (line) => (line.startsWith('WAIT') ? [] : undefined) });
    const err = (await failure(link.request('WAIT 5', { timeoutMs: 50 })))!;
    expect(err).toMatchObject({ code: 'timeout', details: { request: 'WAIT 5', sent: true, timeoutMs: 50 } });
    // Sent at once: no time spent waiting for a side connection is reported.
    expect(err.message).toBe("no response for 'WAIT 5' within 0.1s");
    expect(link.stats.timeouts).toBe(1);
  });
});

describe('a side request that is cancelled or stopped', () => {
  /** A mod whose WAIT replies wait for the test. */
  const heldWaits = async () => {
    const waits = new Gate();
    const started = await startLink({ respond: (line, conn) => (line.startsWith('WAIT') ? waits.hold(conn, { type: 'wait_ack', detail: line }) : undefined) });
    return { ...started, waits };
  };

  it('while the mod holds its reply: rejects cancelled, is counted, and its connection is closed', async () => {
    const { link, mod, waits } = await heldWaits();
    const cancel = new AbortController();
    const wait = failure(link.request('WAIT 20', { signal: cancel.signal }));
    await waits.untilHeld(1);
    cancel.abort();
    expect(await wait).toMatchObject({ code: 'cancelled', message: "the request 'WAIT 20' was cancelled" });
    expect(link.stats.cancelled).toBe(1);
    expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(0);
    await waitUntil(() => mod.open === 1, 5_000, 'the side connection to close');
  });

  it('after its reply: the signal is let go, and a later abort counts nothing', async () => {
    const { link, waits } = await heldWaits();
    const cancel = new AbortController();
    const wait = link.request('WAIT 20', { signal: cancel.signal });
    await waits.untilHeld(1);
    waits.release();
    await expect(wait).resolves.toMatchObject({ detail: 'WAIT 20' });
    expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(0);
    cancel.abort();
    expect(link.stats.cancelled).toBe(0);
  });

  it('with a signal aborted before its turn: no side connection is opened', async () => {
    const { link, mod } = await startLink();
    const cancel = new AbortController();
    const wait = failure(link.request('WAIT 5', { signal: cancel.signal }));
    cancel.abort(); // the request is past the link's own check, not yet at its connection
    expect(await wait).toMatchObject({ code: 'cancelled' });
    expect(link.stats.cancelled).toBe(1);
    // A later side request's connection is accepted after any the cancelled one would have opened.
    await expect(link.request('WAIT 1')).resolves.toMatchObject({ type: 'wait_ack' });
    expect(mod.connections).toHaveLength(2);
    expect(mod.received.filter((l) => l.startsWith('WAIT'))).toEqual(['WAIT 1']);
  });

  it('while its connection is opening: the connection is closed unused when it opens', async () => {
    const { link, mod } = await startLink();
    const cancel = new AbortController();
    const wait = failure(link.request('WAIT 5', { signal: cancel.signal }));
    // Counted just before its connect starts; the connect completes only on a later turn of the
    // event loop, and these waits are microtasks (bounded: a loop of them would starve the timers).
    for (let i = 0; i < 100 && link.stats.sideRequests === 0; i++) await Promise.resolve();
    expect(link.stats.sideRequests).toBe(1);
    cancel.abort();
    expect(await wait).toMatchObject({ code: 'cancelled' });
    await waitUntil(() => mod.connections.length === 2 && mod.open === 1, 5_000, 'the side connection to open and close');
    expect(mod.received.filter((l) => l.startsWith('WAIT'))).toEqual([]);
  });

  it('in flight when the link stops: rejects unavailable', async () => {
    const { link, waits } = await heldWaits();
    const wait = failure(link.request('WAIT 20'));
    await waits.untilHeld(1);
    await link.stop();
    expect(await wait).toMatchObject({ code: 'unavailable', message: "the daemon stopped before 'WAIT 20' was answered" });
  });
});

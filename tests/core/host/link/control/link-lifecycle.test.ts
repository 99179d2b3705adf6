/**
 * A control link's sessions end and begin again (issue 35, "Test strength"): what a closed
 * session, a fatal frame and an unknown frame leave in the calls, events, log and status; the
 * state and caps changes it emits; a stop in mid-handshake; and the writes whose answer a session
 * took with it, asked of the server's ledger on the next session of the same run, or said
 * unresolved on a new run. A ControlLink against a hostile server (tests/support/hostile-control.ts).
 */
import type net from 'node:net';
import type tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import type { ControlLinkOptions } from '../../../../../core/host/link/control/control-link.js';
import { encodeFrame } from '../../../../../core/host/link/control/frames.js';
import type { VerbSpec } from '../../../../../core/host/link/verbs.js';
import { failure } from '../../../../support/errors.js';
import { controlLinks, type LinkEvent } from '../../../../support/control-link.js';
import { type Frame, hostileFixture, WELCOME } from '../../../../support/hostile-control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const fixture = hostileFixture();

type Event = LinkEvent;
const VERBS: Record<string, VerbSpec> = { MARK: { replies: ['mark_ack'], write: true, control: { op: 'mark' } } };
const reply = (socket: tls.TLSSocket, frame: Frame, result: Frame) => socket.write(encodeFrame({ type: 'reply', id: frame.id, ok: true, result }));
const start = controlLinks(VERBS);

describe('a session that ends', () => {
  it('closed by the server: the call in flight says so, an event and a log line say so, the link comes back', async () => {
    let n = 0;
    const server = await fixture.server({
      hello: (s) => {
        n += 1;
        s.write(encodeFrame(WELCOME));
      },
      frame: (s, f) => {
        if (n === 1) s.destroy();
        else reply(s, f, { type: 'pong' });
      },
    });
    const { link, events, states, lines } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the first session');
    const err = await failure(link.request('PING'));
    const reason = `the control session with ${server.address} closed`;
    expect(err).toMatchObject({ code: 'not_connected', message: `${reason} while waiting for the reply to 'ping'` });
    expect(events).toContainEqual({ type: 'bridge_disconnected', text: reason });
    expect(lines).toContain(`${reason}; retrying`);
    await waitUntil(() => link.connected, 5_000, 'the second session');
    expect(link.status().lastError).toBeNull();
    expect(await link.request('PING')).toMatchObject({ type: 'pong' });
    expect(states).toEqual(['connecting', 'ready', 'connecting', 'ready']);
    expect(link.status().stats.connections).toBe(2);
  });

  it('a fatal error frame mid-session: said as the last error, the session closed and opened again', async () => {
    let n = 0;
    const server = await fixture.server((s) => {
      n += 1;
      s.write(encodeFrame(WELCOME));
      if (n === 1) s.write(encodeFrame({ type: 'error', code: 'shutting_down', message: 'bye' }));
    });
    const { link, lines } = start(server);
    await waitUntil(() => server.hellos >= 2 && link.connected, 5_000, 'a second session');
    expect(lines).toContain('the server ended the session (shutting_down: bye); retrying');
    // The close that follows keeps the fatal error as the reason, not a bare "closed".
    expect(lines.filter((l) => l.includes('closed'))).toEqual([]);
  });

  it('a frame of a type protocol 1 lacks: named, cut at 40 characters, counted', async () => {
    const type = `odd${'x'.repeat(60)}`;
    let n = 0;
    const server = await fixture.server((s) => {
      n += 1;
      s.write(encodeFrame(WELCOME));
      if (n === 1) s.write(encodeFrame({ type }));
    });
    const { link, lines } = start(server);
    await waitUntil(() => server.hellos >= 2 && link.connected, 5_000, 'a second session');
    expect(lines).toContain(`the server at ${server.address} sent an unexpected '${type.slice(0, 40)}' frame; reconnecting; retrying`);
    expect(link.status().stats.badLines).toBe(1);
  });

  it('a session reset by the server: its socket error is the reason said, not a bare close', async () => {
    let n = 0;
    const server = await fixture.server((s) => {
      n += 1;
      s.write(encodeFrame(WELCOME));
      // A TLS socket cannot be reset itself: the TCP socket beneath it (node's `_parent`) is.
      if (n === 1) setTimeout(() => (s as unknown as { _parent: net.Socket })._parent.resetAndDestroy(), 20);
    });
    const { link, events, lines } = start(server);
    await waitUntil(() => server.hellos >= 2 && link.connected, 5_000, 'a second session');
    expect(lines.find((l) => l.includes('failed'))).toMatch(new RegExp(`^the control session with ${server.address} failed: .*ECONNRESET.*; retrying$`));
    expect(lines.filter((l) => l.includes('closed'))).toEqual([]);
    expect(events).toContainEqual({ type: 'bridge_disconnected', text: `the control session with ${server.address} closed` });
  });

  it('a failure logged, then a session, then the same failure: logged again', async () => {
    const server = await fixture.server((s) => {
      s.write(encodeFrame(WELCOME));
      s.write(encodeFrame({ type: 'error', code: 'shutting_down', message: 'bye' }));
    });
    const { lines } = start(server);
    await waitUntil(() => server.hellos >= 3, 5_000, 'three sessions');
    await waitUntil(() => lines.filter((l) => l === 'the server ended the session (shutting_down: bye); retrying').length >= 2, 5_000, 'the second log line');
  });

  it('started twice: one loop, one session', async () => {
    const server = await fixture.server({ hello: (s) => s.write(encodeFrame(WELCOME)), frame: (s, f) => reply(s, f, { type: 'pong' }) });
    const { link } = start(server);
    link.start();
    await waitUntil(() => link.connected, 5_000, 'the session');
    // Both connects would have begun at once: by a round trip after the first, a second hello would be in.
    await link.request('PING');
    await link.request('PING');
    expect(server.hellos).toBe(1);
    expect(link.status().stats.connections).toBe(1);
  });

  it('the same failure over and over is logged once; lastError keeps it', async () => {
    const server = await fixture.server((s) => s.end(encodeFrame({ type: 'error', code: 'maintenance' })));
    const { link, lines } = start(server);
    await waitUntil(() => server.hellos >= 4, 5_000, 'four attempts');
    expect(lines.filter((l) => l === 'the server ended the session (maintenance); retrying')).toHaveLength(1);
    expect(link.status().lastError).toBe('the server ended the session (maintenance)');
    expect(link.connected).toBe(false);
  });

  it('caps are emitted when they change, not when a new session brings the same, in any order', async () => {
    // The same set twice (in another order), then another, then two that would read alike joined without a separator.
    const sessions = [['state', 'chat'], ['chat', 'state'], ['state'], ['ab', 'c'], ['a', 'bc']];
    let n = 0;
    const server = await fixture.server((s) => {
      n += 1;
      s.write(encodeFrame({ ...WELCOME, capabilities: sessions[Math.min(n, sessions.length) - 1] }));
      if (n < sessions.length) setTimeout(() => s.destroy(), 20);
    });
    const { link, caps } = start(server);
    await waitUntil(() => n >= sessions.length && link.connected, 5_000, 'the last session');
    expect(caps).toEqual([['chat', 'state'], ['state'], ['ab', 'c'], ['a', 'bc']]);
  });

  it('events with good envelopes are passed on, not counted bad; a bad one is', async () => {
    const server = await fixture.server((s) => {
      s.write(encodeFrame(WELCOME));
      for (const seq of [1, 2, 3]) s.write(encodeFrame({ type: 'event', seq, event: { type: 'chat', text: `m${seq}` } }));
      s.write(encodeFrame({ type: 'event', seq: 'four', event: { type: 'chat' } }));
    });
    const { link, events } = start(server);
    await waitUntil(() => (link.status().control as { events: { badEnvelopes: number } } | undefined)?.events.badEnvelopes === 1, 5_000, 'the bad envelope');
    expect(events.filter((e) => e.type === 'chat').map((e) => e.text)).toEqual(['m1', 'm2', 'm3']);
    expect(link.status().stats.badLines).toBe(1);
  });

  it('a stop in mid-handshake ends the connect at once, not at the hello timeout', async () => {
    const server = await fixture.server(() => {});
    const { link } = start(server, { helloTimeoutMs: 60_000 });
    await waitUntil(() => server.hellos === 1, 5_000, 'the hello');
    const stopped = link.stop().then(() => 'stopped');
    const late = new Promise((r) => setTimeout(() => r('still waiting'), 3_000).unref());
    expect(await Promise.race([stopped, late])).toBe('stopped');
    expect(link.status().state).toBe('stopped');
  });
});

describe('the link sends', () => {
  it('each request with its id, op, params and what is left of its deadline; a ping at the dead time', async () => {
    const server = await fixture.server({ hello: (s) => s.write(encodeFrame(WELCOME)), frame: (s, f) => reply(s, f, { type: 'pong' }) });
    const { link } = start(server, { liveness: { pingMs: 100, deadMs: 2_000 } });
    await waitUntil(() => link.connected, 5_000, 'the session');
    await link.request('PING');
    const mine = server.frames[0]!;
    expect(Object.keys(mine).sort()).toEqual(['id', 'op', 'params', 'timeoutMillis', 'type']);
    expect(mine).toMatchObject({ type: 'request', op: 'ping', params: {} });
    // No timeout given: the verb's own 15 s, less what the queue took.
    expect(mine.timeoutMillis).toBeGreaterThan(14_000);
    expect(mine.timeoutMillis).toBeLessThanOrEqual(15_000);
    await waitUntil(() => server.frames.length >= 2, 5_000, "the keep-alive's ping");
    const ping = server.frames[1]!;
    expect(ping).toMatchObject({ type: 'request', op: 'ping', params: {} });
    expect(ping.id).not.toBe(mine.id);
    expect(ping.timeoutMillis).toBeGreaterThan(1_500);
    expect(ping.timeoutMillis).toBeLessThanOrEqual(2_000);
    // The link's own pings are not the callers' requests.
    expect(link.status().stats.requests).toBe(1);
  });
});

describe('writes whose answer a session took with it', () => {
  /** A server whose first session dies on the first write; later sessions welcome as `run` says and answer request_status with `status`. */
  async function lostWrite(run: string, status: (id: unknown) => Frame | null) {
    let n = 0;
    const server = await fixture.server({
      hello: (s) => {
        n += 1;
        s.write(encodeFrame({ ...WELCOME, runId: n === 1 ? 'run_x' : run }));
      },
      frame: (s, f) => {
        if (f.op === 'mark') s.destroy();
        else if (f.op === 'request_status') {
          const answer = status(f.params?.requestId);
          if (answer) reply(s, f, answer);
        } else reply(s, f, { type: 'pong' });
      },
    });
    const started = start(server);
    await waitUntil(() => started.link.connected, 5_000, 'the first session');
    const err = await failure(started.link.request('MARK x', { requestId: 'w-1' }));
    expect(err.outcome).toEqual({ retryable: false, resultUnknown: true, requestId: 'w-1' });
    await waitUntil(() => n >= 2 && started.link.connected, 5_000, 'the second session');
    return { server, ...started };
  }

  const resolved = (events: Event[]) => events.filter((e) => e.type === 'bridge_request_resolved');

  it('on a new run: said unresolved, never asked, never sent again', async () => {
    const { server, link, events } = await lostWrite('run_y', () => null);
    await waitUntil(() => resolved(events).length === 1, 5_000, 'the unresolved event');
    expect(resolved(events)).toEqual([
      {
        type: 'bridge_request_resolved',
        requestId: 'w-1',
        state: 'unresolved',
        text: 'the game restarted before request w-1 could be checked: its result stays unknown; do not retry blindly',
      },
    ]);
    expect(server.frames.filter((f) => f.op === 'request_status')).toEqual([]);
    expect(link.writes.isUnknown('w-1')).toBe(true);
  });

  it('on the same run: asked of the ledger; completed becomes the record and an event', async () => {
    const { server, link, events } = await lostWrite('run_x', (id) => ({ type: 'request_status', requestId: id, state: 'completed', result: { type: 'mark_ack' } }));
    await waitUntil(() => resolved(events).length === 1, 5_000, 'the resolved event');
    expect(resolved(events)).toEqual([{ type: 'bridge_request_resolved', requestId: 'w-1', state: 'completed', text: 'request w-1: the server says completed' }]);
    expect(link.writes.isUnknown('w-1')).toBe(false);
    expect(server.frames.filter((f) => f.op === 'request_status').map((f) => f.params)).toEqual([{ requestId: 'w-1' }]);
    expect(await link.request('MARK x', { requestId: 'w-1' })).toMatchObject({ type: 'mark_ack', duplicate: true });
  });

  it('on the same run: failed is the record too; a state the ledger has no word for leaves no event', async () => {
    const failed = await lostWrite('run_x', (id) => ({ type: 'request_status', requestId: id, state: 'failed', error: { code: 'game_error', message: 'no' } }));
    await waitUntil(() => resolved(failed.events).length === 1, 5_000, 'the resolved event');
    expect(resolved(failed.events)[0]).toMatchObject({ state: 'failed', text: 'request w-1: the server says failed' });
    expect(failed.link.writes.isUnknown('w-1')).toBe(false);
    // The record is the server's failure, said as definite: the write sent again gets it, unsent.
    const again = await failure(failed.link.request('MARK x', { requestId: 'w-1' }));
    expect(again).toMatchObject({ code: 'mod_error', message: 'w-1: no', details: { request: 'w-1', serverCode: 'game_error' } });
    expect(again.outcome).toEqual({ retryable: false, resultUnknown: false, requestId: 'w-1' });
    expect(failed.server.frames.filter((f) => f.op === 'mark')).toHaveLength(1);
    const pending = await lostWrite('run_x', (id) => ({ type: 'request_status', requestId: id, state: 'running' }));
    await waitUntil(() => pending.server.frames.some((f) => f.op === 'request_status'), 5_000, 'the ledger asked');
    await pending.link.request('PING');
    expect(resolved(pending.events)).toEqual([]);
    expect(pending.link.writes.isUnknown('w-1')).toBe(true);
  });
  it('on the same run: a ledger answer that does not repeat the id is taken as about the id asked', async () => {
    const { link, events } = await lostWrite('run_x', () => ({ type: 'request_status', state: 'completed', result: { type: 'mark_ack' } }));
    await waitUntil(() => resolved(events).length === 1, 5_000, 'the resolved event');
    expect(link.writes.isUnknown('w-1')).toBe(false);
  });

  it('on the same run: a ledger answer with no state reads unknown, and the write stays unknown', async () => {
    const { link, events } = await lostWrite('run_x', (id) => ({ type: 'request_status', requestId: id }));
    await waitUntil(() => resolved(events).length === 1, 5_000, 'the resolved event');
    expect(resolved(events)).toEqual([{ type: 'bridge_request_resolved', requestId: 'w-1', state: 'unknown', text: 'request w-1: the server says unknown' }]);
    expect(link.writes.isUnknown('w-1')).toBe(true);
  });
});

describe('the link holds to its own bounds', () => {
  it('maxQueued: past it a request is refused busy, unsent; one that waits out its deadline is a queue timeout', async () => {
    const server = await fixture.server({ hello: (s) => s.write(encodeFrame({ ...WELCOME, limits: { maxPendingRequests: 1 } })) });
    const { link } = start(server, { maxQueued: 1 });
    await waitUntil(() => link.connected, 5_000, 'the session');
    const held = link.request('PING', { timeoutMs: 10_000 }).catch((e: Error) => e);
    const queued = failure(link.request('PING', { timeoutMs: 150 }));
    const refused = await failure(link.request('PING'));
    expect(refused).toMatchObject({ code: 'busy', message: "1 requests already wait for the server; 'ping' was not sent. Retry when fewer are pending" });
    expect((await queued).code).toBe('timeout');
    expect(link.status().stats).toMatchObject({ timeouts: 1, queueTimeouts: 1 });
    expect(server.frames).toHaveLength(1);
    await link.stop();
    await held;
  });

  it('maxFrameBytes: a frame from the server over it is a bad frame that ends the session', async () => {
    const server = await fixture.server((s) => {
      s.write(encodeFrame(WELCOME));
      s.write(encodeFrame({ type: 'event', seq: 1, event: { type: 'chat', text: 'x'.repeat(3_000) } }));
    });
    const { link, lines } = start(server, { maxFrameBytes: 2_000 });
    await waitUntil(() => lines.some((l) => l.includes('bad frame')), 5_000, 'the bad frame');
    expect(lines.find((l) => l.includes('bad frame'))).toMatch(
      new RegExp(`^the server at ${server.address} sent a bad frame \\(a frame of \\d+ bytes is over the 2000-byte limit\\); reconnecting; retrying$`),
    );
    expect(link.status().control).toMatchObject({ events: { events: 0 } });
  });

  it('no keep-alive ping while the link itself sends and hears within the ping time', async () => {
    const server = await fixture.server({ hello: (s) => s.write(encodeFrame(WELCOME)), frame: (s, f) => reply(s, f, { type: 'pong' }) });
    const { link } = start(server, { liveness: { pingMs: 250, deadMs: 10_000 } });
    await waitUntil(() => link.connected, 5_000, 'the session');
    for (let i = 0; i < 8; i++) {
      await link.request('PING');
      await new Promise((r) => setTimeout(r, 60));
    }
    expect(server.frames).toHaveLength(8);
    expect((link.status().control as { liveness: { pings: number } }).liveness.pings).toBe(0);
  });

  it('at most 64 lost writes are asked of the ledger a session', async () => {
    let n = 0;
    const server = await fixture.server({
      hello: (s) => {
        n += 1;
        s.write(encodeFrame({ ...WELCOME, limits: { maxPendingRequests: 100 } }));
      },
      frame: (s, f) => {
        if (f.op === 'mark' && server.frames.filter((g) => g.op === 'mark').length === 65) s.destroy();
        else if (f.op === 'request_status') reply(s, f, { type: 'request_status', requestId: f.params.requestId, state: 'running' });
      },
    });
    const { link } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the first session');
    const writes = Array.from({ length: 65 }, (_, i) => failure(link.request('MARK x', { requestId: `w-${i}` })));
    expect((await Promise.all(writes)).every((e) => e.outcome?.resultUnknown === true)).toBe(true);
    await waitUntil(() => n >= 2 && link.connected, 5_000, 'the second session');
    await waitUntil(() => server.frames.filter((f) => f.op === 'request_status').length >= 64, 5_000, 'the ledger asked');
    await link.request('PING', { timeoutMs: 100 }).catch(() => {});
    expect(server.frames.filter((f) => f.op === 'request_status')).toHaveLength(64);
  });
});

describe('reconnecting', () => {
  /** When each hello of a server that refuses every session came. */
  async function attempts(count: number, options: Partial<ControlLinkOptions>) {
    const at: number[] = [];
    const server = await fixture.server((s) => {
      at.push(Date.now());
      s.end(encodeFrame({ type: 'error', code: 'maintenance' }));
    });
    start(server, options);
    await waitUntil(() => at.length >= count, 10_000, `${count} attempts`);
    return at;
  }

  it('the pauses follow the options given: at most 40 ms, ten attempts well within 4 s (5 s apart at the default cap)', async () => {
    const at = await attempts(10, {});
    expect(at[9]! - at[0]!).toBeLessThan(4_000);
  });

  it('the first pause is the given minimum: 20 ms, not the default 250', async () => {
    const at = await attempts(2, { reconnectMaxMs: 1_000 });
    expect(at[1]! - at[0]!).toBeLessThan(200);
  });

  it('without options the first pause is about 250 ms (less its jitter), not none', async () => {
    const at = await attempts(2, { reconnectMinMs: undefined, reconnectMaxMs: undefined });
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(200);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AbortLike } from '../../../../core/host/cancel.js';
import type { McbridgeError } from '../../../../core/host/errors.js';
import type { ModConnection } from '../../../../core/host/link/connection.js';
import { newLinkStats, type ModReply } from '../../../../core/host/link/replies.js';
import { RequestQueue, type Expectation } from '../../../../core/host/link/request-queue.js';
import { silentLogger } from '../../../../core/util/log.js';
import { failure } from '../../../support/errors.js';

/**
 * The RequestQueue's own bookkeeping, with the clock in the test's hands: what status() and a
 * queue timeout report, the counters, and that nothing (a timer, an abort listener) outlives a
 * request. The connection is a recorder of what would be written; replies are handed to
 * `onReply` as a ModConnection would hand them.
 */
const SLOW: Expectation = { replies: ['state'], immediate: false };
const QUICK: Expectation = { replies: ['pong'], immediate: true };

type Recorder = ModConnection & { lines: string[] };

function recorder(): Recorder {
  const conn = {
    lines: [] as string[],
    write(line: string) {
      conn.lines.push(...line.split('\n'));
    },
  };
  return conn as unknown as Recorder;
}

function setup(grace = 10_000) {
  const stats = newLinkStats();
  const expired: ModConnection[] = [];
  const queue = new RequestQueue({ stats, log: silentLogger(), owedGraceMs: grace, echoWindowMs: 100, onOwedExpired: (c) => expired.push(c) });
  const conn = recorder();
  queue.attach(conn);
  const ask = (line: string, expect = SLOW, timeoutMs = 1_000, signal?: AbortLike) => queue.enqueue(line, expect, timeoutMs, Date.now(), signal);
  const reply = (msg: Record<string, unknown>, from: ModConnection = conn) => queue.onReply(from, msg, JSON.stringify(msg));
  return { stats, queue, conn, ask, reply, expired };
}

/** An AbortLike that shows who listens. */
function watchedSignal() {
  const listeners = new Set<() => void>();
  const signal = {
    aborted: false,
    addEventListener: (_type: 'abort', listener: () => void) => listeners.add(listener),
    removeEventListener: (_type: 'abort', listener: () => void) => listeners.delete(listener),
    abort() {
      signal.aborted = true;
      for (const l of [...listeners]) l();
    },
  };
  return { signal, listeners };
}

/** A promise and whether it has settled yet, for checks between two steps of the fake clock. */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: boolean } {
  const t = { promise, settled: false };
  t.promise = promise.finally(() => (t.settled = true));
  return t;
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('RequestQueue status', () => {
  it('ages what is in flight, queued and owed from when each was sent or asked', async () => {
    const { queue, ask } = setup();
    const first = ask('STATE').catch((e: McbridgeError) => e);
    await vi.advanceTimersByTimeAsync(250);
    void ask('STATE', SLOW, 5_000);
    await vi.advanceTimersByTimeAsync(100);
    expect(queue.status()).toEqual({
      inFlight: [{ line: 'STATE', ageMs: 350 }],
      queued: 1,
      oldestQueuedMs: 100,
      owed: [],
      doubleAnswering: false,
    });
    await vi.advanceTimersByTimeAsync(650); // the first times out: its reply is owed
    expect(((await first) as McbridgeError).code).toBe('timeout');
    expect(queue.status()).toMatchObject({ inFlight: [], queued: 1, owed: [{ line: 'STATE', ageMs: 1_000, why: 'abandoned' }] });
  });

  it('a queue timeout names what was in flight and its place in the queue, counting it twice', async () => {
    const { queue, ask, stats } = setup();
    void ask('STATE', SLOW, 10_000).catch(() => {});
    await vi.advanceTimersByTimeAsync(40);
    void ask('STATE', SLOW, 10_000).catch(() => {});
    const late = ask('STATE', SLOW, 100);
    const err = failure(late);
    await vi.advanceTimersByTimeAsync(100);
    expect(await err).toMatchObject({ code: 'timeout', details: { sent: false, inFlight: [{ line: 'STATE', ageMs: 140 }], ahead: 2 } });
    expect(stats).toMatchObject({ timeouts: 1, queueTimeouts: 1 });
    expect(queue.status().queued).toBe(1);
  });
});

describe('RequestQueue counters', () => {
  it('counts an overtake only when something is out', async () => {
    const { ask, reply, stats, conn } = setup();
    const alone = ask('PING', QUICK);
    reply({ type: 'pong' });
    await alone;
    expect(stats.overtakes).toBe(0);
    void ask('STATE').catch(() => {});
    const quick = ask('PING', QUICK);
    expect(conn.lines).toEqual(['PING', 'STATE', 'PING']);
    reply({ type: 'pong', n: 2 });
    await quick;
    expect(stats.overtakes).toBe(1);
  });

  it('counts a cancel before sending and one after, and a timeout after sending', async () => {
    const { ask, stats, queue } = setup();
    const sent = watchedSignal();
    const queued = watchedSignal();
    const first = failure(ask('STATE', SLOW, 5_000, sent.signal));
    const second = failure(ask('STATE', SLOW, 5_000, queued.signal));
    queued.signal.abort();
    expect((await second).code).toBe('cancelled');
    expect(stats.cancelled).toBe(1);
    sent.signal.abort();
    expect((await first).code).toBe('cancelled');
    expect(stats.cancelled).toBe(2);
    expect(queue.status().owed).toHaveLength(1);
    expect(stats.timeouts).toBe(0);
    // Nothing listens to a signal once its request is settled.
    expect(sent.listeners.size + queued.listeners.size).toBe(0);
  });

  it('counts a timeout of a sent request once, and a late reply when it comes', async () => {
    const { ask, reply, stats } = setup();
    const err = failure(ask('STATE', SLOW, 200));
    await vi.advanceTimersByTimeAsync(200);
    expect(await err).toMatchObject({ code: 'timeout' });
    expect(stats).toMatchObject({ timeouts: 1, queueTimeouts: 0 });
    reply({ type: 'state', tick: 1 });
    expect(stats.lateReplies).toBe(1);
  });
});

describe('RequestQueue leaves nothing behind', () => {
  it('no timer stays once a request is answered, timed out or cancelled, or once the connection goes', async () => {
    const { ask, reply, queue } = setup();
    const answered = ask('STATE');
    reply({ type: 'state', tick: 1 });
    await answered;
    expect(vi.getTimerCount()).toBe(0);

    const { signal } = watchedSignal();
    const cancelled = failure(ask('PING', QUICK, 1_000, signal));
    signal.abort();
    await cancelled;
    reply({ type: 'pong' }); // the owed reply: its grace timer goes with it
    expect(vi.getTimerCount()).toBe(0);

    const out = failure(ask('STATE'));
    const waiting = failure(ask('STATE'));
    queue.detach('the mod connection on port 1 closed');
    expect((await out).message).toBe("the mod connection on port 1 closed while waiting for the reply to 'STATE'");
    expect(await waiting).toMatchObject({ code: 'not_connected', message: "the mod connection on port 1 closed before 'STATE' was sent" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a reply held back as a possible copy is released after the echo window, or twice what the last one took', async () => {
    const { ask, reply } = setup();
    const first = ask('STATE');
    await vi.advanceTimersByTimeAsync(80);
    reply({ type: 'state', tick: 7 });
    await first;
    const second = tracked(ask('STATE'));
    reply({ type: 'state', tick: 7 }); // byte-equal to the last: kept back for 2 × 80 ms
    await vi.advanceTimersByTimeAsync(159);
    expect(second.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(second.settled).toBe(true);
    expect((await second.promise).tick).toBe(7);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('RequestQueue owed replies', () => {
  it('resets the connection when an owed reply has not come within the grace, and not when it has', async () => {
    const silent = setup(500);
    const timedOut = failure(silent.ask('STATE', SLOW, 100));
    await vi.advanceTimersByTimeAsync(100);
    expect((await timedOut).code).toBe('timeout');
    await vi.advanceTimersByTimeAsync(499);
    expect(silent.expired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(silent.expired).toEqual([silent.conn]);

    const answering = setup(500);
    const late = failure(answering.ask('STATE', SLOW, 100));
    await vi.advanceTimersByTimeAsync(100);
    await late;
    answering.reply({ type: 'state' });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(answering.expired).toEqual([]);
  });
});

describe('RequestQueue ends', () => {
  it('stop fails what is queued and refuses what comes, sending nothing more', async () => {
    const { ask, queue, conn } = setup();
    const out = ask('STATE').catch((e: McbridgeError) => e);
    const queued = failure(ask('STATE'));
    queue.stop();
    expect(await queued).toMatchObject({ code: 'unavailable', message: "the daemon stopped before 'STATE' was sent" });
    expect(await failure(ask('PING', QUICK))).toMatchObject({ code: 'unavailable', message: "the daemon stopped before 'PING' was sent" });
    queue.attach(conn);
    expect(conn.lines).toEqual(['STATE']);
    queue.detach('gone');
    expect(((await out) as McbridgeError).code).toBe('not_connected');
  });

  it('refuses a request whose signal is already aborted, sending nothing', async () => {
    const { ask, conn } = setup();
    const { signal } = watchedSignal();
    signal.aborted = true;
    expect((await failure(ask('STATE', SLOW, 1_000, signal))).code).toBe('cancelled');
    expect(conn.lines).toEqual([]);
  });

  it('ignores a reply from a connection it no longer uses, and forgets that the old one answered twice', async () => {
    const { ask, reply, queue, conn } = setup();
    const first = ask('PING', QUICK);
    reply({ type: 'pong', t: 1 });
    await first;
    reply({ type: 'pong', t: 1 }); // a copy with nothing waiting: the mod answers twice
    expect(queue.status().doubleAnswering).toBe(true);
    queue.detach('closed');
    expect(queue.status().doubleAnswering).toBe(false);
    const next = recorder();
    queue.attach(next);
    const pending = tracked(ask('STATE'));
    reply({ type: 'state' }, conn);
    await vi.advanceTimersByTimeAsync(0);
    expect(pending.settled).toBe(false);
    reply({ type: 'state' }, next);
    await pending.promise;
    expect(next.lines).toEqual(['STATE']);
  });

  it('on a mod that answers twice, a queue timeout lists the request in flight, not its barrier', async () => {
    const { ask, reply, conn } = setup();
    const first = ask('PING', QUICK);
    reply({ type: 'pong', t: 1 });
    await first;
    reply({ type: 'pong', t: 1 });
    void ask('STATE', SLOW, 10_000).catch(() => {});
    expect(conn.lines.slice(-2)).toEqual(['PING', 'STATE']);
    const err = failure(ask('STATE', SLOW, 100));
    await vi.advanceTimersByTimeAsync(100);
    expect(await err).toMatchObject({ details: { inFlight: [{ line: 'STATE', ageMs: 100 }], ahead: 1 } });
  });
});

describe('RequestQueue copies', () => {
  /** Answers one STATE with `tick` after `ms`. */
  async function round(q: ReturnType<typeof setup>, ms: number, tick: number): Promise<void> {
    const answered = q.ask('STATE');
    await vi.advanceTimersByTimeAsync(ms);
    q.reply({ type: 'state', tick });
    await answered;
  }

  it('the window for a held copy follows how long the last reply of its type took', async () => {
    const q = setup();
    await round(q, 300, 1);
    await round(q, 10, 7); // the last took 10 ms: the window is the echo window, 100 ms
    const third = tracked(q.ask('STATE'));
    q.reply({ type: 'state', tick: 7 });
    await vi.advanceTimersByTimeAsync(99);
    expect(third.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(third.settled).toBe(true);
    expect((await third.promise).tick).toBe(7);
  });

  it('a third copy while one is held is dropped as a copy, and the held one still waits its window', async () => {
    const q = setup();
    await round(q, 80, 7);
    const second = tracked(q.ask('STATE'));
    q.reply({ type: 'state', tick: 7 });
    q.reply({ type: 'state', tick: 7 });
    await vi.advanceTimersByTimeAsync(100);
    expect(second.settled).toBe(false);
    expect(q.stats.duplicateReplies).toBe(1);
    await vi.advanceTimersByTimeAsync(60);
    expect(second.settled).toBe(true);
    await second.promise;
  });

  it('a held reply given up with its request counts as late, and leaves no timer', async () => {
    const q = setup();
    await round(q, 80, 7);
    const { signal } = watchedSignal();
    const second = failure(q.ask('STATE', SLOW, 1_000, signal));
    q.reply({ type: 'state', tick: 7 });
    signal.abort();
    expect((await second).code).toBe('cancelled');
    expect(q.stats.lateReplies).toBe(1);
    expect(q.queue.status().owed).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a copy of the last reply is not taken for the late reply an abandoned request owes', async () => {
    const q = setup();
    await round(q, 10, 7);
    const owed = failure(q.ask('STATE', SLOW, 100));
    await vi.advanceTimersByTimeAsync(100);
    await owed;
    q.reply({ type: 'state', tick: 7 });
    expect(q.stats).toMatchObject({ duplicateReplies: 1, lateReplies: 0 });
    expect(q.queue.status().owed).toHaveLength(1);
    q.reply({ type: 'state', tick: 8 });
    expect(q.stats.lateReplies).toBe(1);
    expect(q.queue.status().owed).toEqual([]);
  });

  it('a reply without a type does not hide the copies of typed ones', async () => {
    const q = setup();
    const any = q.queue.enqueue('PING', { replies: [], immediate: true }, 1_000, Date.now(), undefined);
    q.reply({ t: 1 });
    await any;
    await round(q, 10, 7);
    q.reply({ type: 'state', tick: 7 });
    expect(q.stats.duplicateReplies).toBe(1);
    expect(q.queue.status().doubleAnswering).toBe(true);
  });

  it('on a mod that answers twice, a request waits for the barrier out before it, and status says which entry is the barrier', async () => {
    const q = setup();
    const first = q.ask('PING', QUICK);
    q.reply({ type: 'pong', t: 1 });
    await first;
    q.reply({ type: 'pong', t: 1 });
    void q.ask('STATE', SLOW, 10_000).catch(() => {});
    expect(q.queue.status().owed).toEqual([{ line: 'PING', ageMs: 0, why: 'barrier' }]);
    const caps = q.queue.enqueue('CAPS', { replies: ['capabilities'], immediate: true }, 10_000, Date.now(), undefined);
    expect(q.conn.lines).toEqual(['PING', 'PING', 'STATE']);
    q.reply({ type: 'pong', t: 2 });
    await vi.advanceTimersByTimeAsync(0);
    expect(q.conn.lines).toEqual(['PING', 'PING', 'STATE', 'PING', 'CAPS']);
    q.reply({ type: 'pong', t: 3 });
    q.reply({ type: 'capabilities', capabilities: [] });
    expect((await caps).type).toBe('capabilities');
  });
});

describe('RequestQueue without a connection', () => {
  it('holds requests until a connection is attached', async () => {
    const stats = newLinkStats();
    const queue = new RequestQueue({ stats, log: silentLogger(), owedGraceMs: 1_000, echoWindowMs: 100, onOwedExpired: () => {} });
    const pending = queue.enqueue('STATE', SLOW, 1_000, Date.now(), undefined);
    expect(queue.status().queued).toBe(1);
    const conn = recorder();
    queue.attach(conn);
    expect(conn.lines).toEqual(['STATE']);
    queue.onReply(conn, { type: 'state' }, '{"type":"state"}');
    expect((await pending).type).toBe('state');
  });
});

describe('RequestQueue order', () => {
  it('a quick request does not pass a slow one queued before it while only quick ones are out', async () => {
    const { queue, conn, reply } = setup();
    const quick = (replies: string[]): Expectation => ({ replies, immediate: true });
    const a = queue.enqueue('A', quick(['a']), 1_000, Date.now(), undefined);
    const b = queue.enqueue('B', { replies: ['b'], immediate: false }, 1_000, Date.now(), undefined);
    const c = queue.enqueue('C', quick(['c']), 1_000, Date.now(), undefined);
    expect(conn.lines).toEqual(['A']);
    reply({ type: 'a' });
    await a;
    await vi.advanceTimersByTimeAsync(0);
    // B is slow: with it out, C (quick, another reply type) overtakes.
    expect(conn.lines).toEqual(['A', 'B', 'C']);
    reply({ type: 'c' });
    reply({ type: 'b' });
    const answers: ModReply[] = await Promise.all([b, c]);
    expect(answers.map((r) => r.type)).toEqual(['b', 'c']);
  });
});

/**
 * The control link's small parts on their own (issue 35, "Test strength"): the limits a welcome
 * announces, bounded; the keep-alive's deadlines and its watch on vitest's clock; the reads handed
 * to the link a bounded number per turn. Each assertion is one a planted bug in these files breaks.
 */
import { EventEmitter } from 'node:events';
import type tls from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_FRAME_BYTES, encodeFrame, FrameReader } from '../../../../../core/host/link/control/frames.js';
import { boundLimits } from '../../../../../core/host/link/control/limits.js';
import { livenessOf, Watchdog } from '../../../../../core/host/link/control/liveness.js';
import { readFrames } from '../../../../../core/host/link/control/reading.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('the limits a welcome announces', () => {
  it('are the defaults when absent or not finite numbers', () => {
    const defaults = { maxFrameBytes: DEFAULT_MAX_FRAME_BYTES, maxPendingRequests: 32, requestTimeoutMillis: 30_000, idleSeconds: 300 };
    expect(boundLimits(undefined)).toEqual(defaults);
    expect(boundLimits({})).toEqual(defaults);
    expect(boundLimits({ maxFrameBytes: '2048', maxPendingRequests: Number.NaN, requestTimeoutMillis: Number.POSITIVE_INFINITY, idleSeconds: null })).toEqual(defaults);
  });

  it('are floored and capped, and whole except the idle time', () => {
    expect(boundLimits({ maxFrameBytes: 1, maxPendingRequests: 0, requestTimeoutMillis: 5, idleSeconds: 0.003 })).toEqual({
      maxFrameBytes: 1024,
      maxPendingRequests: 1,
      requestTimeoutMillis: 1_000,
      idleSeconds: 1,
    });
    expect(boundLimits({ maxFrameBytes: 2 ** 40, maxPendingRequests: 1e9, requestTimeoutMillis: 1e12, idleSeconds: 1e9 })).toEqual({
      maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
      maxPendingRequests: 1024,
      requestTimeoutMillis: 3_600_000,
      idleSeconds: 86_400,
    });
    expect(boundLimits({ maxFrameBytes: 2048.9, maxPendingRequests: 7.5, requestTimeoutMillis: 1500.5, idleSeconds: 1.5 })).toEqual({
      maxFrameBytes: 2048,
      maxPendingRequests: 7,
      requestTimeoutMillis: 1500,
      idleSeconds: 1.5,
    });
  });
});

describe('the keep-alive deadlines', () => {
  const limits = (idleSeconds: number) => ({ ...boundLimits(undefined), idleSeconds });

  it('ping after a third of the idle time, within 0.25-15 s, dead 10 s later', () => {
    expect(livenessOf(limits(300))).toEqual({ pingMs: 15_000, deadMs: 25_000 });
    expect(livenessOf(limits(30))).toEqual({ pingMs: 10_000, deadMs: 20_000 });
    expect(livenessOf(limits(0.3))).toEqual({ pingMs: 250, deadMs: 10_250 });
  });

  it('an override of either keeps the other derived', () => {
    expect(livenessOf(limits(300), { pingMs: 100 })).toEqual({ pingMs: 100, deadMs: 10_100 });
    expect(livenessOf(limits(30), { deadMs: 50 })).toEqual({ pingMs: 10_000, deadMs: 50 });
  });
});

function watch() {
  const pings: number[] = [];
  const deaths: number[] = [];
  let answer: { resolve(): void; reject(e: Error): void } | null = null;
  const dog = new Watchdog({
    ping: (timeoutMs) => {
      pings.push(timeoutMs);
      return new Promise<void>((resolve, reject) => (answer = { resolve, reject }));
    },
    dead: (silentMs) => deaths.push(silentMs),
  });
  return { dog, pings, deaths, answer: () => answer! };
}

describe('the watch of one session', () => {
  it('checks every half of the shorter of ping time and answer time', () => {
    vi.useFakeTimers();
    const { dog, pings } = watch();
    // pingMs 100 and 30 ms to answer: a check every 15 ms, so the first ping goes at 105 ms.
    dog.start({ pingMs: 100, deadMs: 130 });
    dog.sent();
    vi.advanceTimersByTime(104);
    expect(pings).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(pings).toEqual([130]);
  });

  it('pings when nothing was sent for the ping time although the server talks', () => {
    vi.useFakeTimers();
    const { dog, pings } = watch();
    dog.start({ pingMs: 100, deadMs: 1_000 });
    dog.sent();
    for (let t = 0; t < 3; t++) {
      vi.advanceTimersByTime(25);
      dog.heard();
    }
    expect(pings).toEqual([]);
    vi.advanceTimersByTime(25);
    expect(pings).toEqual([1_000]);
  });

  it('pings when nothing was heard for the ping time although the link sends; one ping at a time', async () => {
    vi.useFakeTimers();
    const { dog, pings, answer } = watch();
    dog.start({ pingMs: 100, deadMs: 1_000 });
    dog.sent();
    vi.advanceTimersByTime(50);
    dog.sent();
    expect(pings).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(pings).toEqual([1_000]);
    vi.advanceTimersByTime(300);
    expect(pings).toHaveLength(1);
    expect(dog.status({ pingMs: 100, deadMs: 1_000 })).toMatchObject({ pings: 1, silentMs: 400, silentSessions: 0 });
    answer().reject(new Error('no answer'));
    await vi.advanceTimersByTimeAsync(50);
    expect(pings).toHaveLength(2);
  });

  it('a session that keeps talking never dies', async () => {
    vi.useFakeTimers();
    const { dog, deaths, pings, answer } = watch();
    dog.start({ pingMs: 100, deadMs: 300 });
    for (let t = 0; t < 20; t++) {
      await vi.advanceTimersByTimeAsync(50);
      dog.heard();
      if (pings.length > 0) answer().resolve();
    }
    expect(deaths).toEqual([]);
  });

  it('a first check with nothing sent yet pings', () => {
    vi.useFakeTimers();
    const { dog, pings } = watch();
    dog.start({ pingMs: 1_000, deadMs: 2_000 });
    dog.heard();
    vi.advanceTimersByTime(500);
    expect(pings).toEqual([2_000]);
  });

  it('a session silent for the dead time is declared dead once, and the watch stops', () => {
    vi.useFakeTimers();
    const { dog, deaths } = watch();
    const l = { pingMs: 100, deadMs: 300 };
    dog.start(l);
    vi.advanceTimersByTime(299);
    expect(deaths).toEqual([]);
    expect(dog.status(l)).toMatchObject({ pingMs: 100, deadMs: 300, silentSessions: 0, silentMs: 299 });
    vi.advanceTimersByTime(1);
    expect(deaths).toEqual([300]);
    vi.advanceTimersByTime(1_000);
    expect(deaths).toEqual([300]);
    expect(dog.status(l)).toEqual({ pingMs: 100, deadMs: 300, silentSessions: 1, pings: 1, silentMs: null });
  });

  it('a new start replaces the old deadlines; stop ends the checks', () => {
    vi.useFakeTimers();
    const { dog, deaths, pings } = watch();
    dog.start({ pingMs: 100, deadMs: 200 });
    vi.advanceTimersByTime(150);
    dog.start({ pingMs: 10_000, deadMs: 20_000 });
    vi.advanceTimersByTime(1_000);
    expect(deaths).toEqual([]);
    dog.stop();
    vi.advanceTimersByTime(60_000);
    expect(deaths).toEqual([]);
    expect(pings).toHaveLength(1);
  });
});

class FakeSocket extends EventEmitter {
  paused = false;
  destroyed = false;
  pauses = 0;
  pause(): this {
    this.paused = true;
    this.pauses += 1;
    return this;
  }
  resume(): this {
    this.paused = false;
    return this;
  }
  isPaused(): boolean {
    return this.paused;
  }
}

function reading(perTurn: number, maxBytes = 1024) {
  const socket = new FakeSocket();
  const got: unknown[] = [];
  const bad: Error[] = [];
  let heard = 0;
  readFrames(socket as unknown as tls.TLSSocket, new FrameReader(maxBytes), perTurn, {
    heard: () => (heard += 1),
    frame: (f) => got.push(f.n),
    bad: (e) => bad.push(e),
  });
  return { socket, got, bad, heard: () => heard };
}

const frames = (from: number, to: number) => Buffer.concat(Array.from({ length: to - from + 1 }, (_, i) => encodeFrame({ n: from + i })));
const turn = () => new Promise((r) => setImmediate(r));

describe('reads, a bounded number of frames per turn', () => {
  it('hands over at most perTurn frames, pauses the socket, and goes on in order next turn', async () => {
    const r = reading(2);
    r.socket.emit('data', frames(1, 5));
    expect(r.got).toEqual([1, 2]);
    expect(r.socket.paused).toBe(true);
    // Bytes that come meanwhile wait behind the queue.
    r.socket.emit('data', frames(6, 6));
    expect(r.got).toEqual([1, 2]);
    await turn();
    expect(r.got).toEqual([1, 2, 3, 4]);
    expect(r.socket.paused).toBe(true);
    await turn();
    expect(r.got).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r.socket.paused).toBe(false);
    expect(r.socket.pauses).toBe(2);
    expect(r.heard()).toBe(2);
    r.socket.emit('data', frames(7, 8));
    expect(r.got).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r.socket.pauses).toBe(2);
  });

  it('exactly perTurn frames need no pause', () => {
    const r = reading(3);
    r.socket.emit('data', frames(1, 3));
    expect(r.got).toEqual([1, 2, 3]);
    expect(r.socket.pauses).toBe(0);
  });

  it('a destroyed socket is not resumed', async () => {
    const r = reading(1);
    r.socket.emit('data', frames(1, 2));
    r.socket.destroyed = true;
    await turn();
    expect(r.got).toEqual([1, 2]);
    expect(r.socket.paused).toBe(true);
  });

  it('a frame that breaks the rules goes to bad, and nothing of its chunk is handed over', () => {
    const r = reading(8, 1024);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(2048, 0);
    r.socket.emit('data', Buffer.concat([frames(1, 1), head]));
    expect(r.got).toEqual([]);
    expect(r.bad.map((e) => e.message)).toEqual(['a frame of 2048 bytes is over the 1024-byte limit']);
    expect(r.heard()).toBe(1);
  });
});

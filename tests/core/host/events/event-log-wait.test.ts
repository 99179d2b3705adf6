import { getEventListeners, setMaxListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordedEvent } from '../../../../core/host/events/event-log.js';
import { fill, log, rejectsWithCode } from '../../../support/event-log.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('EventLog.waitFor', () => {
  it('resolves from the buffer when a matching event came after since', async () => {
    const l = log();
    l.record({ type: 'chat', message: 'old' });
    l.record({ type: 'game', message: 'x' });
    l.record({ type: 'chat', message: 'new' });
    const e = await l.waitFor((ev) => ev.type === 'chat', { since: { seq: 1 } });
    expect(e).toMatchObject({ seq: 3, message: 'new' });
  });

  it('resolves with the first (oldest) buffered match after since', async () => {
    const l = log();
    fill(l, 5, (i) => ({ type: 'chat', i }));
    expect((await l.waitFor(() => true, { since: { seq: 2 } })).seq).toBe(3);
  });

  it('does not look at the buffer without since: only later events count', async () => {
    const l = log();
    l.record({ type: 'chat', message: 'before' });
    const p = l.waitFor((ev) => ev.type === 'chat');
    l.record({ type: 'game' });
    l.record({ type: 'chat', message: 'after' });
    await expect(p).resolves.toMatchObject({ seq: 3, message: 'after' });
  });

  it('resolves from a later event when the buffer has no match after since', async () => {
    const l = log();
    l.record({ type: 'chat' });
    const p = l.waitFor((ev) => ev.type === 'mark', { since: { seq: 0 } });
    l.record({ type: 'mark', name: 'done' });
    await expect(p).resolves.toMatchObject({ seq: 2, name: 'done' });
  });

  it('times out with code timeout', async () => {
    vi.useFakeTimers();
    const l = log();
    const p = l.waitFor(() => false, { timeoutMs: 1_000 });
    const settled = rejectsWithCode(p, 'timeout');
    await vi.advanceTimersByTimeAsync(999);
    let done = false;
    void settled.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const err = await settled;
    expect(err.message).toContain('1000');
  });

  it('does not time out once it has resolved', async () => {
    vi.useFakeTimers();
    const l = log();
    const p = l.waitFor((e) => e.type === 'chat', { timeoutMs: 100 });
    l.record({ type: 'chat' });
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(p).resolves.toMatchObject({ seq: 1 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is cancelled with code cancelled through its AbortSignal', async () => {
    const l = log();
    const controller = new AbortController();
    const p = l.waitFor(() => false, { signal: controller.signal, timeoutMs: 60_000 });
    controller.abort();
    await rejectsWithCode(p, 'cancelled');
  });

  it('rejects at once when the signal is already aborted and nothing is buffered', async () => {
    const l = log();
    const controller = new AbortController();
    controller.abort();
    await rejectsWithCode(
      l.waitFor(() => true, { signal: controller.signal }),
      'cancelled',
    );
  });

  it('clears its timer when cancelled', async () => {
    vi.useFakeTimers();
    const l = log();
    const controller = new AbortController();
    const p = l.waitFor(() => false, { signal: controller.signal, timeoutMs: 5_000 });
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    await rejectsWithCode(p, 'cancelled');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no listener behind after resolving, timing out or being cancelled', async () => {
    vi.useFakeTimers();
    const l = log();
    let calls = 0;
    const counting = (type: string) => (e: RecordedEvent) => {
      calls += 1;
      return e.type === type;
    };

    const resolved = l.waitFor(counting('chat'));
    // Settle-capture now: the rejection happens while timers advance, before any await.
    const timedOut = l.waitFor(counting('never'), { timeoutMs: 10 }).then(
      () => 'resolved',
      (e: { code?: string }) => e.code,
    );
    const controller = new AbortController();
    const cancelled = l.waitFor(counting('never'), { signal: controller.signal });
    l.record({ type: 'chat' });
    await expect(resolved).resolves.toMatchObject({ seq: 1 });
    await vi.advanceTimersByTimeAsync(10);
    expect(await timedOut).toBe('timeout');
    controller.abort();
    await rejectsWithCode(cancelled, 'cancelled');

    const before = calls;
    expect(() => fill(l, 1000, () => ({ type: 'chat' }))).not.toThrow();
    expect(calls).toBe(before);
  });

  it('removes its abort listener from a long-lived signal once settled', async () => {
    vi.useFakeTimers();
    const l = log();
    const controller = new AbortController(); // like a plugin's stop signal, shared by many waits
    setMaxListeners(0, controller.signal); // as the host does for those
    const waits: Array<Promise<unknown>> = [];
    for (let i = 0; i < 20; i += 1) waits.push(l.waitFor((e) => e.type === 'chat', { signal: controller.signal }));
    waits.push(l.waitFor(() => false, { signal: controller.signal, timeoutMs: 10 }).catch((e: unknown) => e));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(21);
    l.record({ type: 'chat' });
    await vi.advanceTimersByTimeAsync(10);
    await Promise.all(waits);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(() => controller.abort()).not.toThrow();
  });

  it('scans a foreign-stream cursor from the oldest buffered event', async () => {
    const l = log();
    l.record({ type: 'chat' });
    const e = await l.waitFor(() => true, { since: { streamId: 'c'.repeat(32), seq: 99 } });
    expect(e.seq).toBe(1);
  });
});

describe('EventLog subscribers', () => {
  it('pushes every event to every subscriber in order, until unsubscribed', () => {
    const l = log();
    const a: number[] = [];
    const b: number[] = [];
    const offA = l.subscribe((e) => a.push(e.seq));
    l.subscribe((e) => b.push(e.seq));
    fill(l, 2);
    offA();
    fill(l, 1);
    expect(a).toEqual([1, 2]);
    expect(b).toEqual([1, 2, 3]);
  });

  it('a throwing subscriber does not stop the others or the log', () => {
    const l = log();
    const got: number[] = [];
    l.subscribe(() => {
      throw new Error('subscriber bug');
    });
    l.subscribe((e) => got.push(e.seq));
    expect(() => fill(l, 3)).not.toThrow();
    expect(got).toEqual([1, 2, 3]);
    expect(l.lastSeq).toBe(3);
    expect(l.size).toBe(3);
  });
});

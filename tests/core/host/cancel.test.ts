import { describe, expect, it } from 'vitest';
import { Cancellation, signalOf } from '../../../core/host/cancel.js';
import { sleep } from '../../../core/index.js';

describe('Cancellation', () => {
  it('calls each listener once, in order, on the first abort only', () => {
    const c = new Cancellation();
    const heard: string[] = [];
    c.addEventListener('abort', () => heard.push('a'));
    c.addEventListener('abort', () => heard.push('b'));
    c.abort();
    c.abort();
    expect(heard).toEqual(['a', 'b']);
    expect(c.aborted).toBe(true);
  });

  it('never calls a listener that was removed, nor one added after the abort', () => {
    const c = new Cancellation();
    const heard: string[] = [];
    const first = () => heard.push('first');
    const middle = () => heard.push('middle');
    const last = () => heard.push('last');
    for (const l of [first, middle, last]) c.addEventListener('abort', l);
    c.removeEventListener('abort', middle); // not the newest: taken from the middle
    c.removeEventListener('abort', last); // the newest
    c.removeEventListener('abort', () => heard.push('never added'));
    c.abort();
    c.addEventListener('abort', () => heard.push('late'));
    expect(heard).toEqual(['first']);
  });

  it('makes a real AbortSignal only when asked, aborted if the call already was', () => {
    const before = new Cancellation();
    const signal = before.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(before.signal).toBe(signal);
    let fired = 0;
    signal.addEventListener('abort', () => fired++);
    before.abort();
    expect(signal.aborted).toBe(true);
    expect(fired).toBe(1);

    const after = new Cancellation();
    after.abort();
    expect(after.signal.aborted).toBe(true);
  });

  it('gives a plain AbortSignal back as it is', () => {
    const controller = new AbortController();
    expect(signalOf(controller.signal)).toBe(controller.signal);
    const c = new Cancellation();
    expect(signalOf(c)).toBe(c.signal);
  });
});

describe('sleep', () => {
  it('resolves after the time when nothing aborts', async () => {
    const started = Date.now();
    await sleep(30, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('rejects with cancelled at once when the signal aborts, before or during', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(sleep(10_000, aborted.signal)).rejects.toMatchObject({ code: 'cancelled' });
    const later = new AbortController();
    // A minute: a sleep that ignored the abort would outlast the test's own timeout.
    const pending = sleep(60_000, later.signal);
    setImmediate(() => later.abort());
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
  });
});

import { describe, expect, it } from 'vitest';
import { Cancellation, signalOf } from '../../../core/host/cancel.js';

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

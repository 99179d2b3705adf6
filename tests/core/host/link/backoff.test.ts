import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Backoff } from '../../../../core/host/link/backoff.js';

/** How long pause() waits, read off fake timers: resolved at `ms` and not one millisecond before. */
async function pauseLength(backoff: Backoff, ms: number): Promise<void> {
  let done = false;
  void backoff.pause().then(() => {
    done = true;
  });
  if (ms > 0) {
    await vi.advanceTimersByTimeAsync(ms - 1);
    expect(done, `still waiting at ${ms - 1} ms`).toBe(false);
  }
  await vi.advanceTimersByTimeAsync(1);
  expect(done, `over at ${ms} ms`).toBe(true);
}

describe('Backoff', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('doubles the pause from the minimum up to the maximum, with jitter of -20 % to +20 %', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const backoff = new Backoff(100, 500);
    await pauseLength(backoff, 100);
    await pauseLength(backoff, 200);
    await pauseLength(backoff, 400);
    await pauseLength(backoff, 500);
    random.mockReturnValue(0);
    await pauseLength(backoff, 400);
    random.mockReturnValue(1);
    await pauseLength(backoff, 600);
  });

  it('starts short again after a reset', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const backoff = new Backoff(100, 10_000);
    await pauseLength(backoff, 80);
    await pauseLength(backoff, 160);
    backoff.reset();
    await pauseLength(backoff, 80);
  });

  it('skips one pause when asked, without counting it as an attempt', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const backoff = new Backoff(100, 10_000);
    backoff.skipNextPause();
    await pauseLength(backoff, 0);
    await pauseLength(backoff, 100);
    await pauseLength(backoff, 200);
  });

  it('ends a pause in progress when interrupted, and an interrupt with no pause does nothing', async () => {
    const backoff = new Backoff(60_000, 60_000);
    backoff.interrupt();
    let done = false;
    void backoff.pause().then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(false);
    backoff.interrupt();
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});

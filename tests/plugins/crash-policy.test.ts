import { describe, expect, it } from 'vitest';
import { CrashPolicy } from '../../plugins/server/crash-policy.js';

describe('CrashPolicy', () => {
  it('backs off exponentially from minDelay, bounded by maxDelay, and gives up after maxCrashes in the window', () => {
    const policy = new CrashPolicy({ maxCrashes: 6, windowMs: 1_000_000, minDelayMs: 1_000, maxDelayMs: 5_000 });
    expect([0, 1, 2, 3, 4].map((t) => policy.onCrash(t))).toEqual([{ restartInMs: 1_000 }, { restartInMs: 2_000 }, { restartInMs: 4_000 }, { restartInMs: 5_000 }, { restartInMs: 5_000 }]);
    expect(policy.onCrash(5)).toEqual({ giveUp: expect.stringContaining('crashed 6 times within 1000 s') });
  });

  it('defaults to 5 crashes in 60 s, 1 s to 30 s', () => {
    const policy = new CrashPolicy();
    expect([0, 10, 20, 30].map((t) => policy.onCrash(t))).toEqual([{ restartInMs: 1_000 }, { restartInMs: 2_000 }, { restartInMs: 4_000 }, { restartInMs: 8_000 }]);
    expect(policy.onCrash(40)).toHaveProperty('giveUp');
    const slow = new CrashPolicy({ maxCrashes: 20 });
    for (let i = 0; i < 6; i++) slow.onCrash(i);
    expect(slow.onCrash(6)).toEqual({ restartInMs: 30_000 });
  });

  it('forgets crashes older than the window, and all of them on reset', () => {
    const policy = new CrashPolicy({ maxCrashes: 3, windowMs: 60_000, minDelayMs: 1_000, maxDelayMs: 30_000 });
    policy.onCrash(0);
    policy.onCrash(1_000);
    expect(policy.onCrash(60_900)).toEqual({ restartInMs: 2_000 });
    expect(policy.onCrash(60_950)).toHaveProperty('giveUp');
    policy.reset();
    expect(policy.onCrash(63_000)).toEqual({ restartInMs: 1_000 });
  });
});

import { describe, expect, it } from 'vitest';
import { checkTokenStrength, ConnectionGuard, DEFAULT_GUARD_LIMITS, MIN_TOKEN_LENGTH, peerAddress } from '../../../core/api/connection-guard.js';
import { silentLogger } from '../../../core/util/log.js';

const TOKEN = 'a-token-of-plenty-length';

function guard(limits = {}) {
  let now = 1_000_000;
  const g = new ConnectionGuard(TOKEN, limits, silentLogger(), () => now);
  return { g, advance: (ms: number) => (now += ms) };
}

describe('ConnectionGuard', () => {
  it('documents its defaults', () => {
    expect(MIN_TOKEN_LENGTH).toBe(16);
    expect(DEFAULT_GUARD_LIMITS).toEqual({
      maxPending: 64,
      maxPendingPerSource: 8,
      pressuredAuthTimeoutMs: 1_000,
      preAuthBytes: 8192,
      authTimeoutMs: 10_000,
      maxFailures: 10,
      failureWindowMs: 60_000,
      backoffMs: 60_000,
      maxGlobalFailures: 100,
    });
  });

  it('refuses tokens shorter than 16 characters, saying how to make one', () => {
    expect(() => checkTokenStrength('x')).toThrow(/at least 16 characters \(got 1\).*openssl rand/);
    expect(() => checkTokenStrength('x'.repeat(15))).toThrow(expect.objectContaining({ code: 'invalid_params' }));
    expect(() => checkTokenStrength('x'.repeat(16))).not.toThrow();
    expect(() => checkTokenStrength(undefined)).not.toThrow();
  });

  it('matches only the exact token, whatever the lengths', () => {
    const { g } = guard();
    expect(g.matches(TOKEN)).toBe(true);
    for (const wrong of [undefined, '', TOKEN.slice(0, -1), TOKEN + 'x', TOKEN.toUpperCase(), 'z'.repeat(10_000)]) expect(g.matches(wrong)).toBe(false);
  });

  it('after maxFailures wrong tokens from one address throttles its wrong tokens until the backoff ends; the right token always passes', () => {
    const { g, advance } = guard({ maxFailures: 3, backoffMs: 5_000 });
    for (let i = 0; i < 3; i++) expect(g.authenticate('wrong', '10.0.0.1')).toMatchObject({ code: 'unauthorized' });
    const throttled = g.authenticate('wrong again', '10.0.0.1');
    expect(throttled).toMatchObject({ code: 'unauthorized', details: { reason: 'throttled', retryAfterMs: 5_000 } });
    expect(throttled?.message).toMatch(/too many failed token attempts from 10\.0\.0\.1; wait 5 s/);
    expect(g.authenticate(TOKEN, '10.0.0.1')).toBeNull();
    expect(g.authenticate('wrong', '10.0.0.2')).not.toMatchObject({ details: { reason: 'throttled' } });
    advance(5_001);
    expect(g.authenticate('wrong', '10.0.0.1')).not.toMatchObject({ details: { reason: 'throttled' } });
  });

  it('rotating source addresses spend one global budget: past it every address is throttled, the right token still passes', () => {
    const { g } = guard({ maxGlobalFailures: 20, backoffMs: 5_000 });
    for (let i = 0; i < 20; i++) g.authenticate('wrong', `127.0.0.${i + 2}`);
    expect(g.authenticate('wrong', '127.0.0.99')).toMatchObject({ details: { reason: 'throttled' } });
    expect(g.authenticate('wrong', '127.0.0.99')?.message).toMatch(/^too many failed token attempts; wait 5 s/);
    expect(g.authenticate(TOKEN, '127.0.0.99')).toBeNull();
  });

  it('forgets failures older than the window', () => {
    const { g, advance } = guard({ maxFailures: 3, failureWindowMs: 1_000 });
    g.authenticate('wrong', 'a');
    g.authenticate('wrong', 'a');
    advance(1_001);
    g.authenticate('wrong', 'a');
    expect(g.authenticate(TOKEN, 'a')).toBeNull();
  });

  it('admits up to maxPending at once, then the oldest of the busiest source gives way; counts releases once', () => {
    const { g } = guard({ maxPending: 3, maxPendingPerSource: 2 });
    const expired: string[] = [];
    const admit = (address: string, name: string) => g.admit(address, (error) => expired.push(`${name}: ${error.code}`));
    const a = admit('a', 'a1');
    admit('a', 'a2');
    expect(admit('a', 'a3')).toMatchObject({ code: 'unavailable', message: expect.stringContaining('from a') });
    admit('b', 'b1');
    expect(g.pending).toBe(3);
    const c = admit('c', 'c1');
    expect(c).not.toBeInstanceOf(Error);
    expect(expired).toEqual(['a1: unavailable']);
    expect(g.pending).toBe(3);
    if (a instanceof Error || c instanceof Error) throw new Error('admitted');
    expect(a.bytesLeft).toBe(8192);
    a.release(); // already given way: counts nothing
    c.release();
    c.release();
    expect(g.pending).toBe(2);
  });

  it('keys IPv4 peers of a dual-stack socket by their IPv4 address', () => {
    expect(peerAddress('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(peerAddress('::1')).toBe('::1');
    expect(peerAddress(undefined)).toBe('unknown');
  });
});

/**
 * The link's error messages: each says what happened and what to do, and the caller reads its
 * details. Built from plain values, so they are checked here directly; the link tests check
 * which of them a request gets.
 */
import { describe, expect, it } from 'vitest';
import { cancelledError, queueTimeoutError, timeoutError } from '../../../../core/host/link/replies.js';

describe('timeoutError', () => {
  it('says how long a request queued before it was sent, from a tenth of a second on', () => {
    expect(timeoutError('STATE', 2_000, 100).message).toBe("no response for 'STATE' within 2.0s (0.1s of it queued behind earlier requests)");
    expect(timeoutError('STATE', 2_000, 99).message).toBe("no response for 'STATE' within 2.0s");
    expect(timeoutError('STATE', 1_500).details).toEqual({ request: 'STATE', timeoutMs: 1_500, queuedMs: 0, sent: true });
  });
});

describe('queueTimeoutError', () => {
  it('counts what was ahead, names what the mod is still answering, and says what to do', () => {
    const err = queueTimeoutError('ENTITIES', 3_000, { inFlight: [{ line: 'STATE', ageMs: 2_900 }], queued: 2 });
    expect(err.code).toBe('timeout');
    expect(err.message).toBe(
      "no response for 'ENTITIES' within 3.0s: it waited in the queue behind 3 requests (the mod is still answering 'STATE' for 2.9s) " +
        'and was never sent. Try again when the mod has caught up, or give the call a longer timeout.',
    );
    expect(err.details).toEqual({ request: 'ENTITIES', timeoutMs: 3_000, sent: false, ahead: 3, inFlight: [{ line: 'STATE', ageMs: 2_900 }] });
  });

  it('speaks of one request in the singular, and names none in flight when none is', () => {
    expect(queueTimeoutError('WAIT 40', 200, { inFlight: [], queued: 1 }).message).toBe(
      "no response for 'WAIT 40' within 0.2s: it waited in the queue behind 1 request and was never sent. " + 'Try again when the mod has caught up, or give the call a longer timeout.',
    );
    expect(
      queueTimeoutError('MARK x', 200, {
        inFlight: [
          { line: 'STATE', ageMs: 100 },
          { line: 'CMD list', ageMs: 50 },
        ],
        queued: 0,
      }).message,
    ).toContain("behind 2 requests (the mod is still answering 'STATE' for 0.1s, 'CMD list' for 0.1s) and was never sent.");
  });
});

describe('cancelledError', () => {
  it('names the request that was cancelled', () => {
    const err = cancelledError('WAIT 100');
    expect(err.code).toBe('cancelled');
    expect(err.message).toBe("the request 'WAIT 100' was cancelled");
  });
});

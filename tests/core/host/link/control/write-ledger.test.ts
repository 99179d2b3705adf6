import { describe, expect, it } from 'vitest';
import { McbridgeError } from '../../../../../core/host/errors.js';
import { withWriteOutcome, WriteLedger } from '../../../../../core/host/link/writes.js';

describe('withWriteOutcome', () => {
  it('a refusal is definite, an unsent failure retryable, a sent one unknown; an outcome already given stays', () => {
    expect(withWriteOutcome(new McbridgeError('mod_error', 'x'), true, 'r').outcome).toEqual({ retryable: false, resultUnknown: false, requestId: 'r' });
    expect(withWriteOutcome(new McbridgeError('not_connected', 'x'), false, 'r').outcome).toEqual({ retryable: true, resultUnknown: false, requestId: 'r' });
    expect(withWriteOutcome(new McbridgeError('timeout', 'x'), true, 'r').outcome).toEqual({ retryable: false, resultUnknown: true, requestId: 'r' });
    const given = new McbridgeError('timeout', 'x', undefined, { retryable: true, resultUnknown: false, requestId: 'server' });
    expect(withWriteOutcome(given, true, 'r').outcome).toEqual({ retryable: true, resultUnknown: false, requestId: 'server' });
  });
});

describe('WriteLedger', () => {
  it('answers a completed id again, marked duplicate; refuses one in flight or unknown; forgets a retryable one', () => {
    const ledger = new WriteLedger();
    expect(ledger.admit('a', 'CMD x')).toBeNull();
    expect(ledger.admit('a', 'CMD x')).toBeInstanceOf(McbridgeError);
    ledger.settle('a', { type: 'cmd_ack', detail: 'x' }, null);
    expect(ledger.admit('a', 'CMD x')).toEqual({ type: 'cmd_ack', detail: 'x', duplicate: true, requestId: 'a' });

    expect(ledger.admit('b', 'CMD y')).toBeNull();
    ledger.settle('b', null, withWriteOutcome(new McbridgeError('timeout', 'late'), true, 'b'));
    expect(ledger.unknownIds()).toEqual(['b']);
    expect((ledger.admit('b', 'CMD y') as McbridgeError).message).toMatch(/may have run/);
    // The control protocol's server keeps a ledger of its own: there an unknown id goes out again.
    expect(ledger.admit('b', 'CMD y', true)).toBeNull();

    expect(ledger.admit('c', 'CMD z')).toBeNull();
    ledger.settle('c', null, withWriteOutcome(new McbridgeError('not_connected', 'down'), false, 'c'));
    expect(ledger.admit('c', 'CMD z')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
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

describe('WriteLedger bounds and fingerprints (issue 35, items 2 and 3)', () => {
  const answer = (n: number, bytes: number) => ({ type: 'cmd_ack', detail: `say ${n}`, output: ['x'.repeat(bytes)] });

  it('an answer over 64 KiB is kept as a cut that says so: small fields, original size, sha-256', () => {
    const ledger = new WriteLedger();
    const reply = answer(1, 1024 * 1024);
    expect(ledger.admit('big', 'CMD say 1')).toBeNull();
    ledger.settle('big', reply, null);
    expect(ledger.bytes).toBeLessThan(4096);
    const json = JSON.stringify(reply);
    expect(ledger.admit('big', 'CMD say 1')).toMatchObject({
      type: 'cmd_ack',
      detail: 'say 1',
      duplicate: true,
      requestId: 'big',
      truncated: true,
      originalBytes: Buffer.byteLength(json),
      sha256: createHash('sha256').update(json).digest('hex'),
      droppedFields: ['output'],
    });
    // A small one is kept whole, and never said to be cut.
    expect(ledger.admit('small', 'CMD say 2')).toBeNull();
    ledger.settle('small', answer(2, 10), null);
    expect(ledger.admit('small', 'CMD say 2')).toEqual({ ...answer(2, 10), duplicate: true, requestId: 'small' });
  });

  it('all answers together stay within the byte budget: the oldest settled go first, one in flight stays', () => {
    const ledger = new WriteLedger(200_000);
    expect(ledger.admit('flying', 'CMD say flying')).toBeNull();
    for (let n = 0; n < 20; n++) {
      expect(ledger.admit(`w${n}`, `CMD say ${n}`)).toBeNull();
      ledger.settle(`w${n}`, answer(n, 50_000), null);
    }
    expect(ledger.bytes).toBeLessThanOrEqual(200_000);
    expect(ledger.size).toBeLessThan(10);
    expect(ledger.admit('w0', 'CMD say 0')).toBeNull(); // forgotten: new again
    expect(ledger.admit('w19', 'CMD say 19')).toMatchObject({ duplicate: true, detail: 'say 19' });
    expect(ledger.admit('flying', 'CMD say flying')).toBeInstanceOf(McbridgeError); // still in flight
    expect(ledger.summary()).toMatchObject({ tracked: ledger.size, bytes: ledger.bytes });
  });

  it('an id reused for another payload is a conflict, in every state; the same payload is still a duplicate', () => {
    const ledger = new WriteLedger();
    expect(ledger.admit('r', 'MARK hello')).toBeNull();
    const pending = ledger.admit('r', 'CMD summon minecraft:pig') as McbridgeError;
    expect(pending.code).toBe('conflict');
    ledger.settle('r', { type: 'mark_ack' }, null);
    const done = ledger.admit('r', 'CMD summon minecraft:pig') as McbridgeError;
    expect(done).toBeInstanceOf(McbridgeError);
    expect(done.code).toBe('conflict');
    expect(done.message).toMatch(/use a new request id/i);
    expect(done.outcome).toEqual({ retryable: false, resultUnknown: false, requestId: 'r' });
    expect(ledger.admit('r', 'MARK hello')).toMatchObject({ type: 'mark_ack', duplicate: true });
    expect(ledger.admit('u', 'CMD a')).toBeNull();
    ledger.settle('u', null, withWriteOutcome(new McbridgeError('timeout', 'late'), true, 'u'));
    expect((ledger.admit('u', 'CMD b', true) as McbridgeError).code).toBe('conflict');
  });

  it('an answer for an id it never admitted is left alone (a stray answer resolves nothing)', () => {
    const ledger = new WriteLedger();
    ledger.settle('stray', { type: 'cmd_ack' }, null);
    expect(ledger.size).toBe(0);
    expect(ledger.admit('stray', 'CMD x')).toBeNull();
  });
});

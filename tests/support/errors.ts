import { expect } from 'vitest';
import { McbridgeError } from '../../core/host/errors.js';

/** The McbridgeError a synchronous call must throw; fails the test when it throws nothing. */
export function caught(fn: () => unknown): McbridgeError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(McbridgeError);
    return err as McbridgeError;
  }
  throw new Error('expected a throw');
}

/** The error a promise must reject with; fails the test, naming what it got, when it resolves. */
export function failure(promise: Promise<unknown>): Promise<McbridgeError> {
  return promise.then(
    (value) => {
      throw new Error(`expected the call to fail, got ${JSON.stringify(value)}`);
    },
    (err: McbridgeError) => err,
  );
}

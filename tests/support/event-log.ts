/** Helpers for the event log's unit tests. */
import { expect } from 'vitest';
import { McbridgeError } from '../../core/host/errors.js';
import { EventLog, type RecordedEvent } from '../../core/host/events/event-log.js';
export const STREAM = 'a'.repeat(32);

export function log(capacity = 1000): EventLog {
  return new EventLog({ capacity, streamId: STREAM });
}

export function fill(l: EventLog, n: number, make: (i: number) => Record<string, unknown> = (i) => ({ type: 'game', i })): void {
  for (let i = 0; i < n; i += 1) l.record(make(i));
}

export const seqs = (events: RecordedEvent[]) => events.map((e) => e.seq);
export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Assert that a promise rejects with a McbridgeError of this code. */
export async function rejectsWithCode(p: Promise<unknown>, code: string): Promise<McbridgeError> {
  const err = await p.then(
    () => {
      throw new Error(`expected a rejection with code ${code}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McbridgeError);
  expect((err as McbridgeError).code).toBe(code);
  return err as McbridgeError;
}

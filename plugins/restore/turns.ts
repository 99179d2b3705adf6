/** Long loops over a recording give the daemon's other callers a turn now and then. */

/** Records handled between turns: a slice takes well under a millisecond on an idle machine. */
export const SLICE = 512;

/** Resolves after the event loop has served what was waiting (I/O, other requests). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Before record `index`: a turn for the others once a slice is done. */
export const turnAt = (index: number): Promise<void> | undefined => (index > 0 && index % SLICE === 0 ? nextTurn() : undefined);

/** `fn` for each item, a slice per turn of the event loop. */
export async function eachSliced<T>(items: Iterable<T>, fn: (item: T, index: number) => void): Promise<void> {
  let index = 0;
  for (const item of items) {
    const turn = turnAt(index);
    if (turn) await turn;
    fn(item, index++);
  }
}

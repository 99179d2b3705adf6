import { McbridgeError } from '../errors.js';
import { EVENT_CATEGORIES, type EventCategory } from './categories.js';
import type { Cursor, EventLog, RecordedEvent } from './event-log.js';

/**
 * What a follower yields: the next recorded event, or a notice that events it had not yet
 * yielded are gone. `from`..`to` are the missing seqs (inclusive), `dropped` how many they are.
 * `evicted`: the ring pushed them out before the follower read them (it fell behind).
 * `stream-reset`: the cursor came from another daemon run (or from the future); whatever that
 * run still had after it is lost, and this run is followed from its oldest buffered event.
 */
export type FollowItem = { kind: 'event'; event: RecordedEvent } | { kind: 'gap'; reason: 'evicted' | 'stream-reset'; dropped: number; from: number; to: number };

export interface FollowOptions {
  /** The last event already seen; default: now (only events recorded from here on). */
  since?: Cursor | undefined;
  /** Ends the iteration (it returns `done`), besides the context's own signal. */
  signal?: AbortSignal | undefined;
  /** Only these categories; events of others are skipped, not reported as gaps. */
  categories?: readonly EventCategory[] | undefined;
  /** Only events it accepts; the others are skipped, not reported as gaps. */
  filter?: ((event: RecordedEvent) => boolean) | undefined;
}

/** An async iterator of follow items; `return()` (what a `for await` break calls) ends it. */
export interface EventFollower extends AsyncIterableIterator<FollowItem, undefined> {
  return(): Promise<IteratorReturnResult<undefined>>;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * A live iterator over the ring from a cursor. It keeps nothing but its position: it reads
 * each event from the ring when asked, so a consumer that falls behind costs no memory and
 * never slows `record()` or another follower; if the ring overtakes it, it yields a gap.
 * It listens to the log only while a `next()` waits for a new event.
 */
class Follower implements EventFollower {
  /** The last seq handled (yielded, skipped or reported in a gap). */
  private after: number;
  private reset: boolean;
  private done = false;
  private wake: (() => void) | undefined;
  /** `next()` calls run one after another, like an async generator's. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly accept: (event: RecordedEvent) => boolean;

  constructor(
    private readonly log: EventLog,
    private readonly signals: readonly AbortSignal[],
    options: FollowOptions,
  ) {
    const position = options.since === undefined ? { seq: log.lastSeq, reset: false } : log.position(options.since);
    this.after = position.seq;
    this.reset = position.reset;
    const categories = options.categories === undefined ? undefined : new Set<string>(options.categories);
    for (const category of categories ?? []) {
      if (!(EVENT_CATEGORIES as readonly string[]).includes(category)) {
        throw new McbridgeError('invalid_params', `unknown event category '${category}'; use one of ${EVENT_CATEGORIES.join(', ')}`);
      }
    }
    const filter = options.filter;
    this.accept = (event) => (categories === undefined || categories.has(event.category)) && (filter === undefined || filter(event));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<FollowItem, undefined>> {
    const result = this.queue.then(() => this.step());
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Ends the iteration now (a `for await` break calls it); a pending `next()` resolves done. */
  return(): Promise<IteratorReturnResult<undefined>> {
    this.done = true;
    this.wake?.();
    return Promise.resolve(DONE);
  }

  private async step(): Promise<IteratorResult<FollowItem, undefined>> {
    for (;;) {
      if (this.done || this.signals.some((s) => s.aborted)) {
        this.done = true;
        return DONE;
      }
      let item: FollowItem | undefined;
      try {
        item = this.take();
      } catch (err) {
        // A throwing filter ends the iteration, as it would end an async generator.
        this.done = true;
        throw err;
      }
      if (item) return { done: false, value: item };
      await this.nextRecord();
    }
  }

  /** The next item the ring already holds, if any. */
  private take(): FollowItem | undefined {
    const { log } = this;
    const oldest = log.oldestSeq;
    if (this.reset) {
      this.reset = false;
      this.after = oldest - 1;
      return { kind: 'gap', reason: 'stream-reset', dropped: oldest - 1, from: 1, to: oldest - 1 };
    }
    if (this.after + 1 < oldest) {
      const from = this.after + 1;
      this.after = oldest - 1;
      return { kind: 'gap', reason: 'evicted', dropped: oldest - from, from, to: oldest - 1 };
    }
    while (this.after < log.lastSeq) {
      this.after += 1;
      const event = log.at(this.after)!;
      if (this.accept(event)) return { kind: 'event', event };
    }
    return undefined;
  }

  /** Resolves when an event is recorded, a signal aborts, or `return()` is called. */
  private nextRecord(): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        unsubscribe();
        for (const s of this.signals) s.removeEventListener('abort', finish);
        if (this.wake === finish) this.wake = undefined;
        resolve();
      };
      const unsubscribe = this.log.subscribe(finish);
      for (const s of this.signals) s.addEventListener('abort', finish, { once: true });
      this.wake = finish;
    });
  }
}

/**
 * Follow the log from `options.since` (default: now) until one of `signals` (or
 * `options.signal`) aborts or the consumer stops. An invalid cursor or category throws here.
 */
export function followEvents(log: EventLog, options: FollowOptions = {}, signals: readonly AbortSignal[] = []): EventFollower {
  const all = options.signal === undefined ? signals : [...signals, options.signal];
  return new Follower(log, all, options);
}

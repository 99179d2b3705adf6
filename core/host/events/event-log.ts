import { randomBytes } from 'node:crypto';
import { McbridgeError } from '../errors.js';
import { categorize, type EventCategory } from './categories.js';
import { canSplice, spliceEventJson } from './event-json.js';

/** An event as the log keeps it: the mod's fields plus ours. Read-only once recorded. */
export interface RecordedEvent extends Record<string, unknown> {
  type: string;
  seq: number;
  /** The target (game server) it came from: `default` on a daemon with one. */
  target?: string;
  streamId: string;
  eventId: string;
  category: EventCategory;
  receivedAt: number;
  contextId?: string;
  /** The `seq` the mod itself put on the event (chat), when it had one. */
  modSeq?: unknown;
}

/** A position in the stream: everything with a greater `seq` is unseen. */
export interface Cursor {
  streamId?: string | undefined;
  seq: number;
}

export interface EventQuery {
  /** Last seq the caller has seen; omitted means "the newest `limit` events". */
  since?: Cursor | undefined;
  limit?: number | undefined;
  filter?: ((event: RecordedEvent) => boolean) | undefined;
}

export interface EventPage {
  events: RecordedEvent[];
  /** Feed back as `since` to get exactly the events not seen yet. */
  next: number;
  streamId: string;
  /** Events the caller never saw are not in this page: `evicted` by the ring, or cut by `limit` (`truncated`). */
  dropped: boolean;
  evicted: number;
  truncated: boolean;
  /** The cursor came from another daemon run: replay restarted at the oldest buffered event. */
  streamReset?: true;
}

export interface WaitForOptions {
  since?: Cursor | undefined;
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

export type EventListener = (event: RecordedEvent) => void;

/** The ring's figures, shown under `events` in `status`. */
export interface EventStats {
  buffered: number;
  capacity: number;
  /** Bytes of JSON the buffered events hold, and the bound (`--buffer-bytes`). */
  bytes: number;
  maxBytes: number;
  lastSeq: number;
  oldestSeq: number;
  /** Events pushed out of the ring since the daemon started. */
  evicted: number;
  streamId: string;
  byCategory: Record<string, number>;
  /** Live listeners: the local API's push, and waits and followers that are waiting now. */
  listeners: number;
}

export const DEFAULT_EVENT_LIMIT = 200;
export const DEFAULT_BUFFER = 1000;
/** 64 MiB: a thousand events of 64 KiB, far beyond what the mod sends in normal play. */
export const DEFAULT_BUFFER_BYTES = 64 * 1024 * 1024;
/** What an event that cannot be encoded counts for (none should be: every event came from JSON or is the link's own). */
const UNENCODABLE_EVENT_BYTES = 256;

/** An event's JSON text when none came with it: a control frame's event, or the link's own. */
function encodeEvent(raw: Record<string, unknown>): string | undefined {
  try {
    return JSON.stringify(raw);
  } catch {
    return undefined;
  }
}

/**
 * The bounded event ring. `seq` grows by one per event for the whole daemon run, so a
 * cursor is just the last seq seen and the ring is addressed by arithmetic. Listeners
 * are called synchronously and must not block; a throwing listener is isolated.
 */
export class EventLog {
  readonly streamId: string;
  readonly capacity: number;
  private readonly ring: Array<RecordedEvent | undefined>;
  /** Per ring slot: the mod's own JSON text for the event, when `toJson` may splice it. */
  private readonly sources: Array<string | undefined>;
  /** `,"streamId":"…","eventId":"…:` with the stream id escaped once. */
  private readonly idsJson: string;
  /** Bytes of JSON the ring may hold (the mod's text, or an estimate for synthetic events). */
  readonly maxBytes: number;
  /** Per ring slot: the bytes it counts for. */
  private readonly sizes: number[];
  private bytes = 0;
  private start = 0; // ring index of the oldest event
  private count = 0;
  private seq = 0;
  private evictedTotal = 0;
  private readonly listeners = new Set<EventListener>();
  private readonly byCategory: Record<string, number> = {};

  /** Stamped on every event; none for a log outside a daemon (tests, embedding code). */
  readonly target: string | undefined;

  constructor(options: { capacity?: number; maxBytes?: number; streamId?: string; target?: string } = {}) {
    const capacity = options.capacity ?? DEFAULT_BUFFER;
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new McbridgeError('invalid_params', `the event buffer must hold at least 1 event, got ${capacity}`);
    }
    const maxBytes = options.maxBytes ?? DEFAULT_BUFFER_BYTES;
    if (!Number.isInteger(maxBytes) || maxBytes < 1) {
      throw new McbridgeError('invalid_params', `the event buffer must hold at least 1 byte, got ${maxBytes}`);
    }
    this.capacity = capacity;
    this.maxBytes = maxBytes;
    this.ring = new Array(capacity);
    this.sources = new Array(capacity);
    this.sizes = new Array(capacity).fill(0);
    this.streamId = options.streamId ?? randomBytes(16).toString('hex');
    this.target = options.target;
    const escaped = JSON.stringify(this.streamId);
    const target = this.target === undefined ? '' : `,"target":${JSON.stringify(this.target)}`;
    this.idsJson = `${target},"streamId":${escaped},"eventId":${escaped.slice(0, -1)}:`;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Seq of the oldest buffered event (lastSeq + 1 when empty). */
  get oldestSeq(): number {
    return this.seq - this.count + 1;
  }

  get size(): number {
    return this.count;
  }

  private evictOldest(): void {
    this.bytes -= this.sizes[this.start];
    // Let go of the event now: with a byte bound its slot may not be reused for a while.
    this.ring[this.start] = undefined;
    this.sources[this.start] = undefined;
    this.sizes[this.start] = 0;
    this.start = (this.start + 1) % this.capacity;
    this.count -= 1;
    this.evictedTotal += 1;
  }

  stats(): EventStats {
    return {
      buffered: this.count,
      capacity: this.capacity,
      bytes: this.bytes,
      maxBytes: this.maxBytes,
      lastSeq: this.seq,
      oldestSeq: this.oldestSeq,
      evicted: this.evictedTotal,
      streamId: this.streamId,
      byCategory: { ...this.byCategory },
      listeners: this.listeners.size,
    };
  }

  /**
   * Add an event. `source` is the JSON text `raw` was parsed from, if any: `toJson` then
   * reuses it instead of encoding the whole event again (the relay's hottest cost).
   */
  record(raw: Record<string, unknown>, source?: string): RecordedEvent {
    this.seq += 1;
    const type = typeof raw.type === 'string' ? raw.type : 'unknown';
    // The same object, key order and values as `{ ...raw, type, seq, ... }`, built the way
    // V8 handles fast: that literal clones the hidden class JSON.parse gave `raw` and then
    // grows it field by field, which cost ~30 us per event on Node 20; `...{}` first gives
    // the copy a fresh hidden class, and plain stores then add the fields (~1 us).
    const event = { ...{}, ...raw } as RecordedEvent;
    // The mod's own chat `seq` (per server start, with gaps) survives as `modSeq`.
    if (raw.seq !== undefined) event.modSeq = raw.seq;
    event.type = type;
    event.seq = this.seq;
    if (this.target !== undefined) {
      // A mod field of the same name is kept beside ours, as `seq` is.
      if (raw.target !== undefined) event.modTarget = raw.target;
      event.target = this.target;
    }
    event.streamId = this.streamId;
    event.eventId = `${this.streamId}:${this.seq}`;
    event.category = categorize(type);
    event.receivedAt = Date.now();
    const contextId = raw.contextId ?? raw.context_id;
    if (typeof contextId === 'string' && contextId) event.contextId = contextId;

    // Bounded by count and by bytes: 100 events of 8 MiB must not hold 800 MiB, whatever the
    // transport. An event that came without its text (the control protocol's, parsed from a frame)
    // is measured by encoding it once; `toJson` then splices that text as it does the mod's line.
    // The newest event always stays, however big (the link bounds one line or frame).
    source ??= encodeEvent(raw);
    const size = source?.length ?? UNENCODABLE_EVENT_BYTES;
    while (this.count === this.capacity || (this.count > 0 && this.bytes + size > this.maxBytes)) this.evictOldest();
    const slot = (this.start + this.count) % this.capacity;
    this.ring[slot] = event;
    this.sources[slot] = source !== undefined && canSplice(raw) && (this.target === undefined || raw.target === undefined) ? source : undefined;
    this.sizes[slot] = size;
    this.bytes += size;
    this.count += 1;
    this.byCategory[event.category] = (this.byCategory[event.category] ?? 0) + 1;

    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A subscriber's bug must not stop the stream for the others.
      }
    }
    return event;
  }

  /**
   * The event as JSON text, equal in meaning to `JSON.stringify(event)`. For an event
   * still in the ring that came with the mod's text, that text is reused and only the
   * added fields are encoded (see event-json.ts); otherwise the event is stringified.
   */
  toJson(event: RecordedEvent): string {
    const pieces = this.jsonPieces(event);
    return pieces.length === 1 ? pieces[0]! : pieces.join('');
  }

  /** `toJson` as pieces to write one after another, for writers that copy into a buffer. */
  jsonPieces(event: RecordedEvent): string[] {
    const slot = this.slotOf(event.seq);
    const source = slot === -1 ? undefined : this.sources[slot];
    if (source !== undefined && this.ring[slot] === event) {
      const pieces = spliceEventJson(source, event, this.idsJson);
      if (pieces !== null) return pieces;
    }
    return [JSON.stringify(event)];
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The buffered event with this seq, if still there. */
  at(seq: number): RecordedEvent | undefined {
    const slot = this.slotOf(seq);
    return slot === -1 ? undefined : this.ring[slot];
  }

  /** The ring index holding this seq, or -1 when it is not buffered. */
  private slotOf(seq: number): number {
    const offset = seq - this.oldestSeq;
    return offset < 0 || offset >= this.count ? -1 : (this.start + offset) % this.capacity;
  }

  /** Resolve a cursor against this run: a foreign stream or a seq from the future restarts at 0. */
  position(since: Cursor): { seq: number; reset: boolean } {
    if (!Number.isInteger(since.seq)) {
      // A fractional or NaN seq would address the ring between slots and page out holes.
      throw new McbridgeError('invalid_params', `since must be a whole seq number, got ${since.seq}`);
    }
    const foreign = since.streamId !== undefined && since.streamId !== this.streamId;
    if (foreign || since.seq > this.seq) return { seq: 0, reset: true };
    return { seq: Math.max(0, since.seq), reset: false };
  }

  query(q: EventQuery = {}): EventPage {
    const limit = q.limit ?? DEFAULT_EVENT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new McbridgeError('invalid_params', `limit must be a positive integer, got ${limit}`);
    }
    const filter = q.filter ?? (() => true);

    if (q.since === undefined) {
      // A tail view: the newest `limit` matching events, oldest first.
      const picked: RecordedEvent[] = [];
      let truncated = false;
      for (let seq = this.seq; seq >= this.oldestSeq; seq -= 1) {
        const event = this.at(seq)!;
        if (!filter(event)) continue;
        if (picked.length === limit) {
          truncated = true;
          break;
        }
        picked.push(event);
      }
      picked.reverse();
      return { events: picked, next: this.seq, streamId: this.streamId, dropped: truncated, evicted: 0, truncated };
    }

    const { seq: after, reset } = this.position(q.since);
    const first = Math.max(after + 1, this.oldestSeq);
    const evicted = Math.max(0, this.oldestSeq - (after + 1));
    const events: RecordedEvent[] = [];
    let next = this.seq;
    let truncated = false;
    for (let seq = first; seq <= this.seq; seq += 1) {
      const event = this.at(seq)!;
      if (!filter(event)) continue;
      if (events.length === limit) {
        truncated = true;
        next = events[events.length - 1]!.seq;
        break;
      }
      events.push(event);
    }
    const page: EventPage = {
      events,
      next,
      streamId: this.streamId,
      dropped: evicted > 0 || truncated,
      evicted,
      truncated,
    };
    if (reset) page.streamReset = true;
    return page;
  }

  /**
   * The first event after `since` (default: now) that matches. Buffered events are
   * checked first, so nothing that arrived between a call and its wait is missed.
   */
  waitFor(match: (event: RecordedEvent) => boolean, options: WaitForOptions = {}): Promise<RecordedEvent> {
    const { signal, timeoutMs } = options;
    if (options.since !== undefined) {
      let after: number;
      try {
        ({ seq: after } = this.position(options.since));
      } catch (err) {
        return Promise.reject(err);
      }
      for (let seq = Math.max(after + 1, this.oldestSeq); seq <= this.seq; seq += 1) {
        const event = this.at(seq)!;
        if (match(event)) return Promise.resolve(event);
      }
    }
    if (signal?.aborted) return Promise.reject(new McbridgeError('cancelled', 'the wait was cancelled'));
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        unsubscribe();
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const unsubscribe = this.subscribe((event) => {
        if (!match(event)) return;
        cleanup();
        resolve(event);
      });
      const onAbort = () => {
        cleanup();
        reject(new McbridgeError('cancelled', 'the wait was cancelled'));
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              cleanup();
              reject(new McbridgeError('timeout', `no matching event within ${timeoutMs} ms`, { timeoutMs }));
            }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** Accept `12`, `"12"` or `"<streamId>:12"` as a cursor. */
export function parseCursor(value: number | string): Cursor {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0) return { seq: value };
    throw new McbridgeError('invalid_params', `since must be a seq number or an eventId "<streamId>:<seq>", got ${value}`);
  }
  const match = /^(?:([0-9a-zA-Z_-]+):)?(\d+)$/.exec(value.trim());
  if (!match) {
    throw new McbridgeError('invalid_params', `since must be a seq number or an eventId "<streamId>:<seq>", got ${JSON.stringify(value)}`);
  }
  return { streamId: match[1], seq: Number(match[2]) };
}

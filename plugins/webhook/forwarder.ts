import type { FollowItem } from 'mcbridge';
import { WebhookReceiver, type LogLike, type ReceiverStatus } from './receiver.js';
import type { Resolved } from './config.js';
import { receiverKey, Spool, type SpoolState } from './spool.js';

/** The longest a change waits before the spool is written. */
const SPOOL_WRITE_MS = 50;

export interface ForwarderStatus {
  enabled: boolean;
  /** Why nothing is forwarded, when nothing is. */
  off?: string;
  connected: boolean;
  /** The spool file, when one keeps the queues across restarts. */
  spool?: string;
  receivers: ReceiverStatus[];
}

/**
 * Fans one stream of follow items out to every receiver. Each receiver filters and queues on
 * its own, and `handle` never waits for a delivery, so a receiver that hangs only fills its
 * own queue: the others, and whoever feeds the stream, carry on.
 */
export class Forwarder {
  readonly receivers: WebhookReceiver[];
  private connected = false;
  private spool: Spool | undefined;
  /** One write per handled event, not one per receiver that queued it. */
  private handling = false;
  private writeTimer: NodeJS.Timeout | undefined;
  /** The last event handed to the receivers: where a restarted forwarder carries on. */
  private cursor: { streamId?: string | undefined; lastSeq?: number | undefined } = {};

  constructor(private readonly resolved: Resolved, log: LogLike) {
    this.receivers = resolved.receivers.map((config) => new WebhookReceiver(config, log));
  }

  /** The categories any receiver wants, or undefined when one wants them all. */
  categories(): string[] | undefined {
    const all = this.receivers.flatMap((r) => r.config.events);
    return all.includes('*') ? undefined : [...new Set(all)];
  }

  /**
   * Keep the queues and the stream cursor in `spool` from now on, and take back what a previous
   * run left there. Returns that run's cursor: follow the daemon from it to miss nothing.
   */
  useSpool(spool: Spool): { streamId?: string | undefined; lastSeq?: number | undefined } {
    return this.takeSpool(spool).resume;
  }

  /** `useSpool`, with the whole state as loaded (whether the previous run stopped cleanly). */
  takeSpool(spool: Spool): { state: SpoolState; resume: { streamId?: string | undefined; lastSeq?: number | undefined } } {
    const state = spool.load();
    this.receivers.forEach((r, i) => {
      const owed = state.queues[receiverKey(r.config.url, i)];
      if (owed?.length) r.restore(owed);
      r.onChange = () => this.persist();
    });
    this.spool = spool;
    this.cursor = { streamId: state.streamId, lastSeq: state.lastSeq };
    return { state, resume: { ...this.cursor } };
  }

  /**
   * Write the state down soon: at most one write per `SPOOL_WRITE_MS` (an fsync costs about as
   * much as a local delivery). A crash loses nothing by it: cursor and queues are written
   * together, so a stale spool only means re-reading recent events from the daemon's buffer and
   * re-sending recently delivered ones, with the same `eventId`.
   */
  private persist(): void {
    if (!this.spool || this.handling || this.writeTimer) return;
    this.writeTimer = setTimeout(() => this.flush(), SPOOL_WRITE_MS);
  }

  /**
   * Write the state now. Over the byte bound, the oldest queued events go first (counted as
   * dropped). `closed`: the caller has handed over every event its stream holds (a clean stop).
   */
  flush(closed = false): void {
    clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    if (!this.spool) return;
    const state = (): SpoolState => ({
      ...this.cursor,
      ...(closed ? { closed } : {}),
      queues: Object.fromEntries(this.receivers.map((r, i) => [receiverKey(r.config.url, i), r.pending()])),
    });
    let s = state();
    while (Spool.size(s) > this.spool.maxBytes) {
      const longest = [...this.receivers].sort((a, b) => b.pending().length - a.pending().length)[0];
      if (!longest?.dropOldest('spool full')) break;
      s = state();
    }
    this.spool.save(s);
  }

  start(): void {
    for (const r of this.receivers) r.start();
  }

  setConnected(connected: boolean): void {
    this.connected = connected;
    for (const r of this.receivers) r.connected = connected;
  }

  handle(item: FollowItem): void {
    if (item.kind === 'gap') {
      for (const r of this.receivers) r.noteGap(item.dropped, item.reason);
      return;
    }
    this.cursor = { streamId: item.event.streamId, lastSeq: item.event.seq };
    this.handling = true;
    try {
      for (const r of this.receivers) r.offer(item.event);
    } finally {
      this.handling = false;
    }
    // Also when no receiver wanted it: the cursor moved.
    this.persist();
  }

  /** Carry on after `at` (a resumed stream, or a new one), as if its last event had been handled. */
  moveTo(at: { streamId: string; lastSeq: number }): void {
    this.cursor = { ...at };
    this.persist();
  }

  /** The last event handed to the receivers. */
  position(): { streamId?: string | undefined; lastSeq?: number | undefined } {
    return { ...this.cursor };
  }

  /** `closed`: every event of the stream was handed over first, so a restart need not report a gap. */
  async stop(closed = false): Promise<void> {
    this.setConnected(false);
    await Promise.all(this.receivers.map((r) => r.stop()));
    this.flush(closed);
  }

  status(): ForwarderStatus {
    return {
      enabled: this.receivers.length > 0,
      ...(this.resolved.off ? { off: this.resolved.off } : {}),
      connected: this.connected,
      ...(this.spool ? { spool: this.spool.file } : {}),
      receivers: this.receivers.map((r) => r.status()),
    };
  }
}

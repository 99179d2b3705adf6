import type { FollowItem } from 'mcbridge';
import { StateFile, type StateFileStatus } from 'mcbridge/kit';
import { WebhookReceiver, type LogLike, type ReceiverStatus } from './receiver.js';
import type { Resolved } from './config.js';
import { receiverKey, recordBytes, Spool, type SpoolDamage, type SpoolState } from './spool.js';

/** The least time between two spool writes: an fsync costs about as much as a local delivery. */
const SPOOL_WRITE_MS = 50;

/** How the spool is doing: writes, failures (a full disk), and what a damaged one lost. */
export interface SpoolStatus extends StateFileStatus {
  /** The byte bound; past it the oldest queued events are dropped (counted in each receiver's `dropped`). */
  maxBytes: number;
  damaged?: SpoolDamage;
}

export interface ForwarderStatus {
  enabled: boolean;
  /** Why nothing is forwarded, when nothing is. */
  off?: string;
  connected: boolean;
  /** The spool file, when one keeps the queues across restarts. */
  spool?: string;
  spoolStatus?: SpoolStatus;
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
  private spoolFile: StateFile | undefined;
  private damage: SpoolDamage | undefined;
  /** Set by a stop that handed over every event of its stream: the next write says so. */
  private closed = false;
  /** One write per handled event, not one per receiver that queued it. */
  private handling = false;
  /** The last event handed to the receivers: where a restarted forwarder carries on. */
  private cursor: { streamId?: string | undefined; lastSeq?: number | undefined } = {};

  constructor(
    private readonly resolved: Resolved,
    private readonly log: LogLike,
  ) {
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
    const { damage, ...state } = spool.load();
    if (damage) this.reportDamage(spool, damage);
    this.receivers.forEach((r, i) => {
      const owed = state.queues[receiverKey(r.config.url, i)];
      if (owed?.length) r.restore(owed);
      r.onChange = () => this.persist();
    });
    this.spool = spool;
    this.spoolFile = new StateFile(spool.file, {
      render: () => Spool.render(this.spoolState()),
      minIntervalMs: SPOOL_WRITE_MS,
      onFailure: (err, s) =>
        this.log.error(
          { spool: spool.file, code: err.code, failures: s.failures },
          `webhook spool ${spool.file} cannot be written (${s.lastError}); delivery goes on from memory, and the spool is written again once it can be (a restart meanwhile loses what only memory holds)`,
        ),
      onRecovery: (s) => this.log.info({ spool: spool.file, failures: s.failures }, `webhook spool ${spool.file} is written again`),
    });
    this.cursor = { streamId: state.streamId, lastSeq: state.lastSeq };
    return { state, resume: { ...this.cursor } };
  }

  private reportDamage(spool: Spool, damage: SpoolDamage): void {
    this.damage = damage;
    for (const r of this.receivers) r.noteGap(0, 'spool-damaged');
    const where = damage.movedTo ? `moved to ${damage.movedTo}` : `could not be moved aside (${damage.moveError}); it is overwritten`;
    this.log.error({ spool: spool.file, ...damage }, `webhook spool ${spool.file} was damaged: ${damage.skipped} part(s) could not be read and are lost, the rest is delivered; the file was ${where}`);
  }

  /** Write the state down soon (coalesced: a burst of changes is one write; a slow disk is fewer writes, never a blocked loop). */
  private persist(): void {
    if (!this.handling) this.spoolFile?.changed();
  }

  /**
   * The state to write. Over the byte bound, the oldest queued events go first (counted as
   * dropped). A crash loses nothing by a stale spool: cursor and queues are written together, so
   * it only means re-reading recent events from the daemon's buffer and re-sending recently
   * delivered ones, with the same `eventId`.
   */
  private spoolState(): SpoolState {
    const keys = this.receivers.map((r, i) => receiverKey(r.config.url, i));
    const size = () => this.receivers.reduce((n, r, i) => n + r.pending().reduce((m, d) => m + recordBytes(keys[i]!, d), 0), 200);
    let over = size() - this.spool!.maxBytes;
    while (over > 0) {
      const longest = [...this.receivers.keys()].sort((a, b) => this.receivers[b]!.pending().length - this.receivers[a]!.pending().length)[0];
      const dropped = longest === undefined ? undefined : this.receivers[longest]!.dropOldest('spool full');
      if (!dropped) break;
      over -= recordBytes(keys[longest!]!, dropped);
    }
    return {
      ...this.cursor,
      ...(this.closed ? { closed: true } : {}),
      queues: Object.fromEntries(this.receivers.map((r, i) => [keys[i]!, r.pending()])),
    };
  }

  /** Write the state now and wait for it (a failure is reported and counted, never thrown). */
  async flush(closed = false): Promise<void> {
    this.closed = closed;
    await this.spoolFile?.flush();
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
    await this.flush(closed);
    this.spoolFile?.close();
  }

  status(): ForwarderStatus {
    return {
      enabled: this.receivers.length > 0,
      ...(this.resolved.off ? { off: this.resolved.off } : {}),
      connected: this.connected,
      ...(this.spool && this.spoolFile ? { spool: this.spool.file, spoolStatus: { ...this.spoolFile.status(), maxBytes: this.spool.maxBytes, ...(this.damage ? { damaged: this.damage } : {}) } } : {}),
      receivers: this.receivers.map((r) => r.status()),
    };
  }
}

/**
 * The control protocol's event envelopes, made into the event log's events: each server `seq`
 * recorded once, replays after a reconnect included, and every hole said out loud as an event of
 * its own, with a count where one is known (docs/control.md, "Events").
 */
import type { ModMessage } from '../connection.js';
import type { Welcome } from './session.js';

export interface StreamPosition {
  runId: string | null;
  lastSeq: number;
}

export interface StreamStats {
  events: number;
  replayed: number;
  duplicates: number;
  /** Events the server could not give (its buffer did not reach back, a new run, a drop), where counted. */
  lost: number;
  gaps: number;
  runChanges: number;
  badEnvelopes: number;
}

/**
 * How far an envelope's seq may lead the newest one known (the last recorded, or the welcome's
 * `replay.to`): a million events is more than any server drops before it closes a slow session. One
 * further is a bad envelope, dropped and counted — else one `seq: 2^53-1` would make every later
 * event a duplicate and count 9e15 lost.
 */
export const MAX_SEQ_LEAD = 1 << 20;

export class EventStream {
  private runId: string | null = null;
  private lastSeq = 0;
  /** The newest seq the server said it had at the last welcome; null when it did not say. */
  private horizon: number | null = null;
  private sessions = 0;
  readonly stats: StreamStats = { events: 0, replayed: 0, duplicates: 0, lost: 0, gaps: 0, runChanges: 0, badEnvelopes: 0 };

  constructor(private readonly emit: (event: ModMessage) => void) {}

  /** What the next hello asks for. */
  position(): StreamPosition {
    return { runId: this.runId, lastSeq: this.lastSeq };
  }

  /** A new session's welcome: a new run or a replay that does not reach back is reported before any of its events. */
  welcome(w: Welcome): void {
    this.sessions += 1;
    const first = this.sessions === 1;
    if (this.runId !== null && w.runId !== this.runId) {
      this.stats.runChanges += 1;
      this.emit({
        type: 'bridge_run_changed',
        text: `the game restarted (run ${w.runId}, was ${this.runId}): events after seq ${this.lastSeq} of the old run are gone`,
        previousRunId: this.runId,
        runId: w.runId,
        lastSeq: this.lastSeq,
      });
      this.lastSeq = 0;
    } else if (!first && w.replay?.lost === true) {
      const from = this.lastSeq + 1;
      const to = typeof w.replay.from === 'number' ? w.replay.from - 1 : null;
      this.gap(from, to, 'the server no longer held them when the link came back');
    }
    this.runId = w.runId;
    const to = w.replay?.to;
    this.horizon = typeof to === 'number' && Number.isSafeInteger(to) ? to : null;
  }

  /** One `{type: "event"}` frame; false when it was not an envelope (counted, dropped). */
  envelope(frame: Record<string, unknown>): boolean {
    const { seq, event } = frame;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1 || event === null || typeof event !== 'object' || Array.isArray(event)) {
      this.stats.badEnvelopes += 1;
      return false;
    }
    if (typeof frame.runId === 'string' && this.runId !== null && frame.runId !== this.runId) {
      // An envelope of another run within one session: the server's word is the welcome's; drop it.
      this.stats.badEnvelopes += 1;
      return false;
    }
    const base = Math.max(this.lastSeq, this.horizon ?? 0);
    if ((this.lastSeq > 0 || this.horizon !== null) && seq > base + MAX_SEQ_LEAD) {
      this.stats.badEnvelopes += 1;
      return false;
    }
    if (seq <= this.lastSeq) {
      this.stats.duplicates += 1;
      return true;
    }
    if (seq > this.lastSeq + 1 && this.lastSeq > 0) this.gap(this.lastSeq + 1, seq - 1, 'the server dropped them (the link fell behind)');
    this.lastSeq = seq;
    this.stats.events += 1;
    const replayed = frame.replay === true;
    if (replayed) this.stats.replayed += 1;
    const inner = event as ModMessage;
    this.emit(replayed ? { ...inner, serverSeq: seq, replayed: true } : { ...inner, serverSeq: seq });
    return true;
  }

  private gap(from: number, to: number | null, why: string): void {
    const missed = to === null ? null : Math.max(0, to - from + 1);
    if (missed === 0) return;
    this.stats.gaps += 1;
    if (missed !== null) this.stats.lost += missed;
    this.emit({
      type: 'bridge_events_lost',
      text: `${missed === null ? 'an unknown number of' : missed} event${missed === 1 ? '' : 's'} of the game (seq ${from}${to === null ? ' on' : `..${to}`}) never reached the bridge: ${why}`,
      runId: this.runId,
      fromSeq: from,
      toSeq: to,
      missed,
    });
  }
}

/**
 * Repeats folded: one entry per trace hash (an exception × 342, first and last seen), and the
 * counts by level, for `logs_summary`. Kept apart from the ring so a trace still answers
 * `log_trace` after its records were evicted; bounded in entries (the least recently seen go).
 */
import type { LogEntry } from './log4j.js';

export interface FoldedTrace {
  hash: string;
  /** The trace's first line (the exception), or the record's message when the trace has none. */
  first: string;
  level: string | null;
  count: number;
  firstSeen: number;
  lastSeen: number;
  /** The newest record carrying it. */
  lastSeq: number;
  /** The whole trace: the record's line and its trace, as last seen. */
  trace: string;
}

const recordLine = (e: LogEntry) => (e.time === null ? e.message : `[${e.time}] [${e.thread}/${e.level}]${e.logger ? ` [${e.logger}]` : ''}: ${e.message}`);

export class TraceFolds {
  private readonly byHash = new Map<string, FoldedTrace>();
  readonly byLevel: Record<string, number> = {};
  /** Folds pushed out by the bound. */
  forgotten = 0;

  constructor(readonly maxTraces = 1000) {}

  /** A record without a trace: only its level counts. */
  count(level: string | null): void {
    const key = level ?? 'plain';
    this.byLevel[key] = (this.byLevel[key] ?? 0) + 1;
  }

  add(entry: LogEntry & { seq: number }): void {
    this.count(entry.level);
    if (entry.hash === undefined || entry.trace === undefined) return;
    const trace = `${recordLine(entry)}\n${entry.trace}`;
    const known = this.byHash.get(entry.hash);
    if (known) {
      known.count += 1;
      known.lastSeen = entry.at;
      known.lastSeq = entry.seq;
      known.trace = trace;
      // Map order is the recency order the bound evicts by.
      this.byHash.delete(entry.hash);
      this.byHash.set(entry.hash, known);
      return;
    }
    const head = entry.trace.split('\n', 1)[0]!;
    const first = /^\s+at /.test(head) ? entry.message : head.trim();
    this.byHash.set(entry.hash, { hash: entry.hash, first: first.slice(0, 500), level: entry.level, count: 1, firstSeen: entry.at, lastSeen: entry.at, lastSeq: entry.seq, trace });
    if (this.byHash.size > this.maxTraces) {
      this.byHash.delete(this.byHash.keys().next().value!);
      this.forgotten += 1;
    }
  }

  get(hash: string): FoldedTrace | undefined {
    return this.byHash.get(hash);
  }

  /** The most frequent first (ties: the most recent). */
  top(n: number): FoldedTrace[] {
    return [...this.byHash.values()].sort((a, b) => b.count - a.count || b.lastSeen - a.lastSeen).slice(0, n);
  }

  get size(): number {
    return this.byHash.size;
  }
}

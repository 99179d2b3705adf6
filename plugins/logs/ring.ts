/**
 * The record ring: bounded in records and in bytes, a `seq` per record, and pages with exact
 * cursors as the event log gives them (core/host/events/event-log.ts): a `since` older than the
 * ring says `dropped` and how many were `evicted`; a page cut by `limit` or `max_bytes` says
 * `truncated` and its `next` is the last record it holds. Nothing is skipped silently.
 */
import { McbridgeError, type EventStats } from 'mcbridge';
import { type Level, type LogEntry, parseLine, SCAN, scanLayout } from './log4j.js';

export interface LogRecord extends LogEntry {
  [field: string]: unknown;
  seq: number;
}

export interface LogPage {
  records: LogRecord[];
  /** Feed back as `since` for exactly the records not seen yet. */
  next: number;
  dropped: boolean;
  evicted: number;
  truncated: boolean;
  truncatedBy?: 'items' | 'bytes' | 'time';
  /** Bytes of JSON the page's records hold. */
  bytes: number;
  /** The cursor is newer than anything here (another run's, or a state folder lost): read from the oldest record. */
  reset?: true;
}

/** The event ring's figures, without what only events have: a reader of `status` sees one shape. */
export type RingStats = Omit<EventStats, 'streamId' | 'byCategory' | 'listeners'>;

export interface PageQuery {
  since?: number | undefined;
  limit: number;
  maxBytes: number;
  filter?: ((record: LogRecord) => boolean) | undefined;
  /** Stop looking at this `performance.now()` (a grep's time budget): the page says `truncatedBy: 'time'`. */
  deadline?: number | undefined;
}

export const recordBytes = (record: LogRecord): number => Buffer.byteLength(JSON.stringify(record)) + 1;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range starts at NUL
const NON_ASCII = /[^\u0000-\u007f]/;
/** UTF-8 bytes of a string; an ASCII one (most log lines) without the native call, which cost more than the test. */
const utf8Bytes = (text: string): number => (NON_ASCII.test(text) ? Buffer.byteLength(text) : text.length);

/** A character JSON.stringify writes otherwise than itself, or one of more than a byte: such a line is stringified. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const NOT_VERBATIM = /["\\\u0000-\u001f\u0080-\uffff]/;

/** `{"time":…,"level":…,"thread":…,"logger":…,"message":…,"at":…,"source":…,"seq":…}` without its values. */
const SKELETON = '{"time":,"level":,"thread":,"logger":,"message":,"at":,"source":,"seq":}'.length;

let lastSource = '';
let lastQuoted = '""';
let lastQuotedBytes = 2;
/** A source's name as JSON (there are a few: `stdout`, `stderr`, `file`, `mcbridge`; mostly the last one). */
function quoted(source: string): string {
  if (source !== lastSource) {
    lastSource = source;
    lastQuoted = JSON.stringify(source);
    lastQuotedBytes = Buffer.byteLength(lastQuoted);
  }
  return lastQuoted;
}

/**
 * The JSON line of a record kept as its line (LogRing.pushLine: nothing in it to escape), exactly
 * as JSON.stringify writes `{...parseLine(text), at, source, seq}` (logs-scan.test.ts compares).
 */
export function lineJson(text: string, at: number, source: string, seq: number): string {
  const src = quoted(source);
  if (!scanLayout(text)) return `{"time":null,"level":null,"thread":null,"logger":null,"message":"${text}","at":${at},"source":${src},"seq":${seq}}`;
  const s = SCAN;
  const logger = s.loggerStart === -1 ? 'null' : `"${text.slice(s.loggerStart, s.loggerEnd)}"`;
  return `{"time":"${text.slice(1, s.timeEnd)}","level":"${s.level}","thread":"${text.slice(s.timeEnd + 3, s.threadEnd)}","logger":${logger},"message":"${text.slice(s.messageStart)}","at":${at},"source":${src},"seq":${seq}}`;
}

/** The record of a line kept as its line, as JSON.parse would give it back. */
function lineRecord(text: string, at: number, source: string, seq: number): LogRecord {
  const p = parseLine(text);
  return { time: p.time, level: p.level, thread: p.thread, logger: p.logger, message: p.message, at, source, seq };
}

let lastAt = Number.NaN;
let lastAtDigits = 0;
const digits = (n: number): number => {
  if (n === lastAt) return lastAtDigits;
  lastAt = n;
  lastAtDigits = String(n).length;
  return lastAtDigits;
};

// One answer object per level, not one per line.
const PLAIN_ENTRY = { level: null, asLine: false } as const;
const PLAIN_LINE = { level: null, asLine: true } as const;
const LINE_OF = Object.fromEntries((['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const).map((l) => [l, { level: l, asLine: true }])) as Record<Level, { level: Level; asLine: true }>;

/**
 * Records are kept as flat strings and parsed when read: a pipe's burst fills the ring faster
 * than anything reads it, and 10,000 live objects (each with its strings) cost the garbage
 * collector far more than 10,000 flat strings (docs/decisions.md, "The log ring keeps JSON lines").
 * A record that is its line and nothing more (most) is kept as that line, with its `at` and
 * `source` beside it, and counted at the bytes of the JSON line it reads back as, without writing
 * it; any other is kept as its JSON line (docs/decisions.md, "Log capture: a record kept as its line").
 */
export class LogRing {
  /** A record's JSON line, or its log line when `sources` names a source for it. */
  private readonly records: string[] = [];
  private readonly sources: Array<string | null> = [];
  private readonly ats: number[] = [];
  private readonly sizes: number[] = [];
  private head = 0; // index of the oldest record in `records` (compacted now and then)
  private bytes = 0;
  private seq: number;
  private evictedTotal = 0;
  /** The JSON line of the record pushed last, for the records file (one stringify per record). */
  newestJson = '';
  /** The bytes (with its line break) the record pushed last counts for. */
  newestSize = 0;

  constructor(
    readonly capacity: number,
    readonly maxBytes: number,
    firstSeq = 0,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new McbridgeError('invalid_params', `the log ring must hold at least 1 record, got ${capacity}`);
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new McbridgeError('invalid_params', `the log ring must hold at least 1 byte, got ${maxBytes}`);
    this.seq = firstSeq;
  }

  private seqWidth = 0;
  private seqWidthUntil = 0;
  /** Digits of `seq` as JSON writes it, kept instead of a String per line. */
  private seqDigits(): number {
    if (this.seq >= this.seqWidthUntil) {
      this.seqWidth = String(this.seq).length;
      this.seqWidthUntil = 10 ** this.seqWidth;
    }
    return this.seqWidth;
  }

  get lastSeq(): number {
    return this.seq;
  }

  get size(): number {
    return this.records.length - this.head;
  }

  get oldestSeq(): number {
    return this.seq - this.size + 1;
  }

  /** Add a record with the next seq (or its own, when read back from disk: it must be newer). The entry is taken, not copied. */
  push(entry: LogEntry, seq?: number): LogRecord {
    if (seq !== undefined && seq <= this.seq) throw new McbridgeError('internal', `log record seq ${seq} is not after ${this.seq}`);
    const gap = seq === undefined ? 0 : seq - this.seq - 1;
    this.seq = seq ?? this.seq + 1;
    // Records lost between runs (a persisted file cut short) count as evicted, so cursors say so.
    if (gap > 0) {
      this.clear();
      this.evictedTotal += gap;
    }
    // The entry becomes the record (no copy: a copy per line was the capture's second cost); its seq last, as a spread put it.
    const record = entry as LogRecord;
    record.seq = this.seq;
    const json = JSON.stringify(record);
    this.newestJson = json;
    this.store(json, null, 0, utf8Bytes(json) + 1);
    return record;
  }

  /**
   * A record that is `parseLine(text)` with `at` and `source` (the assembler's RecordSink.line),
   * kept as its line when its JSON would be the line's characters as they are (printable ASCII,
   * no `"` or `\\`), pushed as an entry otherwise. Answers the record's level (for the folds) and
   * whether it was kept as its line (`newestJson` is then not written).
   */
  pushLine(text: string, at: number, source: string): { level: Level | null; asLine: boolean } {
    if (NOT_VERBATIM.test(text) || !Number.isSafeInteger(at) || at < 0) return this.pushParsed(text, at, source);
    this.seq += 1;
    // The JSON line's bytes: its skeleton, each value (strings quoted), the line break.
    quoted(source);
    let size = SKELETON + digits(at) + lastQuotedBytes + this.seqDigits() + 1;
    let level: Level | null = null;
    if (scanLayout(text)) {
      const s = SCAN;
      level = s.level;
      // time, level, thread quoted; the logger or null; the message quoted.
      size += s.timeEnd - 1 + 2 + level.length + 2 + (s.threadEnd - s.timeEnd - 3) + 2 + (s.loggerStart === -1 ? 4 : s.loggerEnd - s.loggerStart + 2) + (text.length - s.messageStart) + 2;
    } else size += 4 * 4 + text.length + 2;
    this.store(text, source, at, size);
    return level === null ? PLAIN_LINE : LINE_OF[level];
  }

  /** pushLine's other way, apart so that its optimised code holds only the common one. */
  private pushParsed(text: string, at: number, source: string): { level: Level | null; asLine: boolean } {
    const p = parseLine(text);
    this.push({ time: p.time, level: p.level, thread: p.thread, logger: p.logger, message: p.message, at, source });
    return p.level === null ? PLAIN_ENTRY : { level: p.level, asLine: false };
  }

  private store(text: string, source: string | null, at: number, size: number): void {
    while (this.size === this.capacity || (this.size > 0 && this.bytes + size > this.maxBytes)) this.evictOldest();
    this.records.push(text);
    this.sources.push(source);
    this.ats.push(at);
    this.sizes.push(size);
    this.bytes += size;
    this.newestSize = size;
  }

  private clear(): void {
    this.records.length = 0;
    this.sources.length = 0;
    this.ats.length = 0;
    this.sizes.length = 0;
    this.head = 0;
    this.bytes = 0;
  }

  private evictOldest(): void {
    this.bytes -= this.sizes[this.head]!;
    this.head += 1;
    this.evictedTotal += 1;
    if (this.head > 1024 && this.head * 2 > this.records.length) {
      this.records.splice(0, this.head);
      this.sources.splice(0, this.head);
      this.ats.splice(0, this.head);
      this.sizes.splice(0, this.head);
      this.head = 0;
    }
  }

  at(seq: number): LogRecord | undefined {
    const offset = seq - this.oldestSeq;
    return offset < 0 || offset >= this.size ? undefined : this.read(this.head + offset, seq);
  }

  private read(i: number, seq: number): LogRecord {
    const source = this.sources[i]!;
    return source === null ? (JSON.parse(this.records[i]!) as LogRecord) : lineRecord(this.records[i]!, this.ats[i]!, source, seq);
  }

  /** Every buffered record, oldest first. */
  *all(): IterableIterator<LogRecord> {
    for (let i = this.head, seq = this.oldestSeq; i < this.records.length; i += 1, seq += 1) yield this.read(i, seq);
  }

  stats(): RingStats {
    return { buffered: this.size, capacity: this.capacity, bytes: this.bytes, maxBytes: this.maxBytes, lastSeq: this.seq, oldestSeq: this.oldestSeq, evicted: this.evictedTotal };
  }

  /**
   * Records after `since`, oldest first; without `since`, the newest that fit, oldest first. At
   * least one record always comes back when one matches, so paging never sticks on a large one.
   */
  page(q: PageQuery): LogPage {
    if (q.since !== undefined && (!Number.isInteger(q.since) || q.since < 0)) {
      throw new McbridgeError('invalid_params', `since must be the whole seq number a previous answer gave as next, got ${q.since}`);
    }
    const filter = q.filter ?? (() => true);
    const records: LogRecord[] = [];
    let bytes = 0;
    let truncatedBy: LogPage['truncatedBy'];
    const forward = q.since !== undefined;
    const reset = forward && q.since! > this.seq;
    const after = reset ? 0 : (q.since ?? 0);
    const first = Math.max(after + 1, this.oldestSeq);
    const evicted = forward ? Math.max(0, this.oldestSeq - (after + 1)) : 0;
    let lastLooked = forward ? first - 1 : this.seq;
    let checked = 0;
    for (let seq = forward ? first : this.seq; forward ? seq <= this.seq : seq >= this.oldestSeq; seq += forward ? 1 : -1) {
      if (q.deadline !== undefined && (checked++ & 63) === 0 && performance.now() > q.deadline) {
        truncatedBy = 'time';
        break;
      }
      const record = this.at(seq)!;
      if (filter(record)) {
        if (records.length === q.limit) {
          truncatedBy = 'items';
          break;
        }
        const size = this.sizes[this.head + (seq - this.oldestSeq)]!;
        if (records.length > 0 && bytes + size > q.maxBytes) {
          truncatedBy = 'bytes';
          break;
        }
        records.push(record);
        bytes += size;
      }
      lastLooked = seq;
    }
    if (!forward) records.reverse();
    const truncated = truncatedBy !== undefined;
    // Forward: go on right after the last record looked at (kept or filtered out); a tail view goes on from the newest.
    const next = forward ? (truncated ? lastLooked : this.seq) : this.seq;
    const page: LogPage = { records, next, dropped: evicted > 0 || truncated, evicted, truncated, bytes };
    if (truncatedBy) page.truncatedBy = truncatedBy;
    if (reset) page.reset = true;
    return page;
  }
}

/**
 * Minecraft's Log4j layouts read into records, and stack traces joined to the record they follow.
 * `[12:34:56] [Server thread/INFO]: msg`, `[12:34:56] [Worker-Main-2/WARN] [minecraft/RecipeManager]: msg`,
 * with `[12:34:56.789]` and `[07Dec2026 12:34:56.789]` times too; any other line is a plain record.
 */
import { createHash } from 'node:crypto';
import type { Line } from './lines.js';

export type Level = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';
export const LEVELS: readonly Level[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'];

export interface ParsedLine {
  /** The time as the log wrote it (`12:34:56`, `07Dec2026 12:34:56.789`); null on a plain line. */
  time: string | null;
  level: Level | null;
  thread: string | null;
  logger: string | null;
  message: string;
}

/** A record before the ring gives it a seq. */
export interface LogEntry extends ParsedLine {
  /** When mcbridge read it (ms since the epoch). */
  at: number;
  /** Where it came from: `file`, `stdout`, `stderr`, `mcbridge`. */
  source: string;
  /** The stack trace joined to it, line by line, and the hash of its frames. */
  trace?: string;
  hash?: string;
  /** The line was longer than the line bound; `bytes` is its whole length. */
  cut?: true;
  bytes?: number;
  /** A run of binary lines stood here: `bytes` of them, `lines` lines. */
  binary?: { lines: number; bytes: number };
}

/** The layouts as one expression: the reference `scanLayout` is tested against (logs-scan.test.ts). */
export const LAYOUT = /^\[((?:\d{2}[A-Za-z]{3}\d{4} )?\d{2}:\d{2}:\d{2}(?:[.,]\d{3})?)\] \[([^\]]*)\/(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|SEVERE)\](?: \[([^\]]*)\])?: ?(.*)$/s;

/** As written, then as recorded; the most frequent first. */
const LEVEL_NAMES: ReadonlyArray<readonly [string, Level]> = [
  ['INFO', 'INFO'],
  ['WARN', 'WARN'],
  ['ERROR', 'ERROR'],
  ['DEBUG', 'DEBUG'],
  ['WARNING', 'WARN'],
  ['FATAL', 'FATAL'],
  ['TRACE', 'TRACE'],
  ['SEVERE', 'ERROR'],
];

/**
 * Where `scanLayout` found the fields of the line it was last given (one object, reused: this
 * runs for every line, and an object per line was a good part of the capture's garbage).
 * `loggerStart` is -1 without a logger.
 */
export const SCAN = { timeEnd: 0, threadEnd: 0, level: 'INFO' as Level, loggerStart: -1, loggerEnd: -1, messageStart: 0 };

/** `[HH:MM:SS` or `[ddMMMyyyy HH:MM:SS`, then `.mmm` or `,mmm` or nothing, then `] [`: one native test, no match object. */
const TIME = /^\[(?:\d{2}[A-Za-z]{3}\d{4} )?\d{2}:\d{2}:\d{2}(?:[.,]\d{3})?\] \[/;

/**
 * LAYOUT read with one test of the time and indexOf for the rest instead of a regex with
 * captures: the same lines match, with the same fields (SCAN), and nothing is cut out of the line
 * until someone reads the record.
 */
export function scanLayout(t: string): boolean {
  if (t.charCodeAt(0) !== 91 || !TIME.test(t)) return false;
  // Where the time ends follows from its form: a date puts a letter where the clock has its `:`.
  let q = t.charCodeAt(3) === 58 ? 9 : 19;
  if (t.charCodeAt(q) !== 93) q += 4;
  const threadStart = q + 3;
  // The thread cannot hold a `]`: the first one closes `thread/LEVEL`.
  const close = t.indexOf(']', threadStart);
  if (close === -1) return false;
  let threadEnd = -1;
  for (const [name, level] of LEVEL_NAMES) {
    const at = close - name.length;
    if (at - 1 >= threadStart && t.charCodeAt(at - 1) === 47 && t.startsWith(name, at)) {
      threadEnd = at - 1;
      SCAN.level = level;
      break;
    }
  }
  if (threadEnd === -1) return false;
  let m = close + 1;
  SCAN.loggerStart = -1;
  SCAN.loggerEnd = -1;
  if (t.charCodeAt(m) === 32 && t.charCodeAt(m + 1) === 91) {
    const end = t.indexOf(']', m + 2);
    if (end === -1 || t.charCodeAt(end + 1) !== 58) return false;
    SCAN.loggerStart = m + 2;
    SCAN.loggerEnd = end;
    m = end + 1;
  }
  if (t.charCodeAt(m) !== 58) return false;
  m += 1;
  if (t.charCodeAt(m) === 32) m += 1;
  SCAN.timeEnd = q;
  SCAN.threadEnd = threadEnd;
  SCAN.messageStart = m;
  return true;
}

export function parseLine(text: string): ParsedLine {
  if (!scanLayout(text)) return { time: null, level: null, thread: null, logger: null, message: text };
  const s = SCAN;
  return {
    time: text.slice(1, s.timeEnd),
    level: s.level,
    thread: text.slice(s.timeEnd + 3, s.threadEnd),
    logger: s.loggerStart === -1 ? null : text.slice(s.loggerStart, s.loggerEnd),
    message: text.slice(s.messageStart),
  };
}

const FRAME = /^\s+at /;
const CONTINUATION = /^(?:\s+at |\s*Caused by: |\s*Suppressed: |\s+\.\.\. \d+ more)/;
/** `java.lang.IllegalStateException: boom`, `net.minecraft.ReportedException`: a header awaiting its frames. */
const EXCEPTION_HEADER = /^(?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Throwable)?(?::|$)/;

const CAUSE = /^(?:Caused by|Suppressed): /;

/** The lines of a trace that name code, never its messages: the same exception at another time hashes the same. */
export function traceHash(lines: readonly string[]): string {
  // One update of the whole text, not one a line: the same digest, a native call instead of many.
  let text = '';
  for (const line of lines) {
    const t = line.trim();
    if (FRAME.test(line)) text += `${t}\n`;
    else if (CAUSE.test(t)) text += `${t.split(':', 2).join(':')}\n`;
    else if (EXCEPTION_HEADER.test(t)) text += `${t.split(':', 1)[0]}\n`;
  }
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

export interface AssemblerOptions {
  /** Lines of trace one record keeps; the rest are counted (`... N lines cut by mcbridge`). */
  maxTraceLines?: number;
  now?: () => number;
}

/**
 * Where records go. `line` is a record that is its line and nothing more (no trace, not cut):
 * `parseLine(text)` with `at` and `source`, so the taker need not build it (LogRing.pushLine).
 */
export interface RecordSink {
  entry(entry: LogEntry): void;
  line(text: string, at: number, source: string): void;
}

/** A plain function takes every record as an entry (tests, simple uses). */
const sinkOf = (emit: ((entry: LogEntry) => void) | RecordSink): RecordSink =>
  typeof emit === 'function' ? { entry: emit, line: (text, at, source) => emit({ ...parseLine(text), at, source }) } : emit;

/**
 * Lines in, records out. A record is held until the next line shows whether a trace follows; a
 * line that looks like an exception header is held until its first frame (or its absence) decides
 * whether it starts a trace or is a plain record. `flush` ends what is held. The held record is
 * its line (and `at`, `source`) until a trace or a cut makes it an entry: most records never are.
 */
export class RecordAssembler {
  private pending: LogEntry | null = null;
  private pendingText: string | null = null;
  private pendingAt = 0;
  private pendingSource = '';
  private trace: string[] = [];
  private traceCut = 0;
  private header: { line: Line; source: string } | null = null;
  private readonly maxTraceLines: number;
  private readonly now: () => number;
  private readonly sink: RecordSink;

  constructor(emit: ((entry: LogEntry) => void) | RecordSink, options: AssemblerOptions = {}) {
    this.sink = sinkOf(emit);
    this.maxTraceLines = options.maxTraceLines ?? 200;
    this.now = options.now ?? Date.now;
  }

  line(line: Line, source: string): void {
    this.text(line.text, line.bytes, line.cut, source);
  }

  /** `line` without a Line object: the splitter's way in. */
  text(text: string, bytes: number, cut: boolean, source: string): void {
    // A Log4j line starts with `[`: neither a trace line nor an exception header, so most lines skip both tests.
    const layout = text.charCodeAt(0) === 91;
    if (!layout) {
      if ((this.pending !== null || this.pendingText !== null || this.header !== null) && CONTINUATION.test(text)) {
        if (this.header !== null) {
          // A header directly followed by a frame: the trace of the record before it (or its own record).
          if (this.pending === null && this.pendingText === null) this.start(this.plain(this.header.line, this.header.source));
          this.addTrace(this.header.line.text);
          this.header = null;
        }
        this.addTrace(text);
        return;
      }
      this.releaseHeader();
      if (EXCEPTION_HEADER.test(text)) {
        this.header = { line: { text, bytes, cut }, source };
        return;
      }
    } else if (this.header !== null) this.releaseHeader();
    this.end();
    if (cut) this.pending = this.entry(parseLine(text), true, bytes, source);
    else {
      this.pendingText = text;
      this.pendingAt = this.now();
      this.pendingSource = source;
    }
  }

  /** A binary run stands in the stream as a plain record of its own. */
  binary(note: { lines: number; bytes: number }, source: string): void {
    this.releaseHeader();
    this.end();
    this.sink.entry({
      time: null,
      level: null,
      thread: null,
      logger: null,
      message: `[binary output: ${note.lines} lines, ${note.bytes} bytes]`,
      at: this.now(),
      source,
      binary: { lines: note.lines, bytes: note.bytes },
    });
  }

  flush(): void {
    this.releaseHeader();
    this.end();
  }

  private entry(parsed: ParsedLine, cut: boolean, bytes: number, source: string, at = this.now()): LogEntry {
    // Field by field, not a spread: the order is the JSON's.
    const entry: LogEntry = { time: parsed.time, level: parsed.level, thread: parsed.thread, logger: parsed.logger, message: parsed.message, at, source };
    if (cut) {
      entry.cut = true;
      entry.bytes = bytes;
    }
    return entry;
  }

  private plain(line: Line, source: string): LogEntry {
    return this.entry({ time: null, level: null, thread: null, logger: null, message: line.text }, line.cut, line.bytes, source);
  }

  /** A held header that no frame followed is a plain record. */
  private releaseHeader(): void {
    if (this.header === null) return;
    const { line, source } = this.header;
    this.header = null;
    this.end();
    this.start(this.plain(line, source));
  }

  private start(entry: LogEntry): void {
    this.end();
    this.pending = entry;
  }

  private addTrace(text: string): void {
    // The held line becomes an entry now that it has a trace.
    if (this.pendingText !== null) {
      this.pending = this.entry(parseLine(this.pendingText), false, 0, this.pendingSource, this.pendingAt);
      this.pendingText = null;
    }
    if (this.trace.length < this.maxTraceLines) this.trace.push(text);
    else this.traceCut += 1;
  }

  private end(): void {
    if (this.pendingText !== null) {
      const text = this.pendingText;
      this.pendingText = null;
      this.sink.line(text, this.pendingAt, this.pendingSource);
      return;
    }
    const entry = this.pending;
    if (entry === null) return;
    this.pending = null;
    if (this.trace.length > 0) {
      entry.hash = traceHash(this.trace);
      if (this.traceCut > 0) this.trace.push(`\t... ${this.traceCut} lines cut by mcbridge`);
      entry.trace = this.trace.join('\n');
    }
    this.trace = [];
    this.traceCut = 0;
    this.sink.entry(entry);
  }
}

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

const LAYOUT = /^\[((?:\d{2}[A-Za-z]{3}\d{4} )?\d{2}:\d{2}:\d{2}(?:[.,]\d{3})?)\] \[([^\]]*)\/(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|SEVERE)\](?: \[([^\]]*)\])?: ?(.*)$/s;

const LEVEL_OF = new Map<string, Level>([...LEVELS.map((l): [string, Level] => [l, l]), ['WARNING', 'WARN'], ['SEVERE', 'ERROR']]);

export function parseLine(text: string): ParsedLine {
  const m = LAYOUT.exec(text);
  if (!m) return { time: null, level: null, thread: null, logger: null, message: text };
  // The shared constant, not the match's copy: 10,000 records in the ring keep one each otherwise.
  const level = LEVEL_OF.get(m[3]!)!;
  return { time: m[1]!, level, thread: m[2]!, logger: m[4] ?? null, message: m[5]! };
}

const FRAME = /^\s+at /;
const CONTINUATION = /^(?:\s+at |\s*Caused by: |\s*Suppressed: |\s+\.\.\. \d+ more)/;
/** `java.lang.IllegalStateException: boom`, `net.minecraft.ReportedException`: a header awaiting its frames. */
const EXCEPTION_HEADER = /^(?:[a-zA-Z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Throwable)?(?::|$)/;

/** The lines of a trace that name code, never its messages: the same exception at another time hashes the same. */
export function traceHash(lines: readonly string[]): string {
  const h = createHash('sha256');
  for (const line of lines) {
    const t = line.trim();
    if (FRAME.test(line)) h.update(`${t}\n`);
    else if (/^(?:Caused by|Suppressed): /.test(t)) h.update(`${t.split(':', 2).join(':')}\n`);
    else if (EXCEPTION_HEADER.test(t)) h.update(`${t.split(':', 1)[0]}\n`);
  }
  return h.digest('hex').slice(0, 12);
}

export interface AssemblerOptions {
  /** Lines of trace one record keeps; the rest are counted (`... N lines cut by mcbridge`). */
  maxTraceLines?: number;
  now?: () => number;
}

/**
 * Lines in, records out. A record is held until the next line shows whether a trace follows; a
 * line that looks like an exception header is held until its first frame (or its absence) decides
 * whether it starts a trace or is a plain record. `flush` ends what is held.
 */
export class RecordAssembler {
  private pending: LogEntry | null = null;
  private trace: string[] = [];
  private traceCut = 0;
  private header: { line: Line; source: string } | null = null;
  private readonly maxTraceLines: number;
  private readonly now: () => number;

  constructor(
    private readonly emit: (entry: LogEntry) => void,
    options: AssemblerOptions = {},
  ) {
    this.maxTraceLines = options.maxTraceLines ?? 200;
    this.now = options.now ?? Date.now;
  }

  line(line: Line, source: string): void {
    const text = line.text;
    // A Log4j line starts with `[`: neither a trace line nor an exception header, so most lines skip both tests.
    const layout = text.charCodeAt(0) === 91;
    if (!layout && CONTINUATION.test(text) && (this.pending !== null || this.header !== null)) {
      if (this.header !== null) {
        // A header directly followed by a frame: the trace of the record before it (or its own record).
        if (this.pending === null) this.start(this.plain(this.header.line, this.header.source));
        this.addTrace(this.header.line.text);
        this.header = null;
      }
      this.addTrace(text);
      return;
    }
    this.releaseHeader();
    if (!layout && EXCEPTION_HEADER.test(text)) {
      this.header = { line, source };
      return;
    }
    this.end();
    const parsed = parseLine(text);
    this.start(this.entry(parsed, line, source));
  }

  /** A binary run stands in the stream as a plain record of its own. */
  binary(note: { lines: number; bytes: number }, source: string): void {
    this.releaseHeader();
    this.end();
    this.emit({
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

  private entry(parsed: ParsedLine, line: Line, source: string): LogEntry {
    // Field by field, not a spread: this runs for every line, and the order is the JSON's.
    const entry: LogEntry = { time: parsed.time, level: parsed.level, thread: parsed.thread, logger: parsed.logger, message: parsed.message, at: this.now(), source };
    if (line.cut) {
      entry.cut = true;
      entry.bytes = line.bytes;
    }
    return entry;
  }

  private plain(line: Line, source: string): LogEntry {
    return this.entry({ time: null, level: null, thread: null, logger: null, message: line.text }, line, source);
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
    if (this.trace.length < this.maxTraceLines) this.trace.push(text);
    else this.traceCut += 1;
  }

  private end(): void {
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
    this.emit(entry);
  }
}

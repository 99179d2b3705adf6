/**
 * One target's log capture: raw chunks from each source cut into lines, lines assembled into
 * records (traces joined), records into the ring, the folds and the file. Pure of timers but one:
 * a record is held until the next line shows whether a trace follows, so a quiet source's last
 * record is let go after `idleMs`.
 */
import { TraceFolds } from './fold.js';
import { RecordAssembler, type LogEntry, type RecordSink } from './log4j.js';
import { type BinaryNote, DEFAULT_MAX_LINE, LineSplitter, type LineSink, type SplitterCounters } from './lines.js';
import type { RecordFile } from './persist.js';
import { LogRing, type LogRecord } from './ring.js';

interface Source {
  splitter: LineSplitter;
  assembler: RecordAssembler;
}

export interface CaptureOptions {
  maxRecords: number;
  maxBytes: number;
  maxLine?: number;
  idleMs?: number;
  file?: RecordFile | null;
}

export class LogCapture {
  readonly ring: LogRing;
  readonly folds = new TraceFolds();
  private readonly sources = new Map<string, Source>();
  private idle: NodeJS.Timeout | null = null;
  /** When the chunk being cut was read: every record of it has this `at` (Date.now per line cost 3% of the capture). */
  private readAt = 0;
  /** The assemblers' way out: records to the ring, the folds and the file. */
  private readonly records: RecordSink = {
    entry: (entry) => {
      this.add(entry);
    },
    line: (text, at, source) => this.addLine(text, at, source),
  };
  private readonly idleMs: number;
  private readonly file: RecordFile | null;
  /** Where the previous run's log-file follower stopped, from the records file. */
  readonly resume: { inode: number; offset: number } | undefined;

  constructor(private readonly options: CaptureOptions) {
    this.idleMs = options.idleMs ?? 100;
    this.file = options.file ?? null;
    const loaded = this.file?.load();
    this.resume = loaded?.follow;
    const restored = loaded?.records ?? [];
    this.ring = new LogRing(options.maxRecords, options.maxBytes, 0);
    for (const record of restored) {
      const { seq, ...entry } = record;
      this.ring.push(entry, seq);
      this.folds.add(record);
    }
  }

  private source(name: string): Source {
    let source = this.sources.get(name);
    if (!source) {
      const assembler = new RecordAssembler(this.records, { now: () => this.readAt });
      // One sink per source, made once: no closure or object per line.
      const lines: LineSink = {
        line: (text, bytes, cut) => assembler.text(text, bytes, cut, name),
        binary: (note: BinaryNote) => assembler.binary(note, name),
      };
      const splitter = new LineSplitter(lines, this.options.maxLine ?? DEFAULT_MAX_LINE);
      source = { splitter, assembler };
      this.sources.set(name, source);
    }
    return source;
  }

  /** Raw bytes from `source` (`file`, `stdout`, `stderr`). */
  write(source: string, chunk: Buffer): void {
    this.readAt = Date.now();
    this.source(source).splitter.push(chunk);
    this.armIdle();
  }

  /** Whole lines of mcbridge's own (`[mcbridge] server started, pid 123`): a record each, nothing held. */
  note(source: string, text: string): void {
    for (const line of text.split('\n')) if (line !== '') this.add({ time: null, level: null, thread: null, logger: null, message: line, at: Date.now(), source });
  }

  /** Let go of every held record (a source ended, the capture stops, a quiet moment). */
  flush(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    // A partial line stays in its splitter: its end may still come.
    for (const { assembler } of this.sources.values()) assembler.flush();
  }

  /** A source ended: its partial last line too. */
  end(source: string): void {
    const s = this.sources.get(source);
    if (!s) return;
    this.readAt = Date.now();
    s.splitter.flush();
    s.assembler.flush();
  }

  stop(): void {
    for (const name of this.sources.keys()) this.end(name);
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
  }

  counters(): Record<string, SplitterCounters> {
    return Object.fromEntries([...this.sources].map(([name, s]) => [name, { ...s.splitter.counters }]));
  }

  private armIdle(): void {
    if (this.idle !== null) this.idle.refresh();
    else {
      this.idle = setTimeout(() => this.flush(), this.idleMs);
      this.idle.unref?.();
    }
  }

  private add(entry: LogEntry): LogRecord {
    const record = this.ring.push(entry);
    this.folds.add(record);
    this.file?.appendJson(this.ring.newestJson);
    return record;
  }

  private addLine(text: string, at: number, source: string): void {
    const { level, asLine } = this.ring.pushLine(text, at, source);
    this.folds.count(level);
    if (this.file === null) return;
    if (asLine) this.file.appendLine(text, at, source, this.ring.lastSeq, this.ring.newestSize);
    else this.file.appendJson(this.ring.newestJson);
  }
}

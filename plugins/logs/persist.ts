/**
 * The ring on disk: JSON lines in `<stateDir>/logs/<target>.jsonl`, rotated to `.jsonl.1` when it
 * passes half the bound, so the two hold at most `maxBytes` (and at least the newest half of it).
 * Read back on start, so "why did it crash last night" survives a daemon restart. Writes are
 * batched and asynchronous; a full disk or a read-only folder is counted in status, never fatal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { lineJson, type LogRecord } from './ring.js';

/** A record the ring keeps as its line: written as JSON only when its batch is. */
interface QueuedLine {
  text: string;
  at: number;
  source: string;
  seq: number;
}

export interface PersistStatus {
  file: string;
  maxBytes: number;
  written: number;
  writeErrors: number;
  lastError: string | null;
  /** Records read back at start, and lines that were not records (a torn last line). */
  restored: number;
  skipped: number;
}

/** The file name a target's records go to: its name, with anything but [A-Za-z0-9.-] spelled `_`. */
export function logFileOf(stateDir: string, target: string): string {
  return path.join(stateDir, 'logs', `${target.replace(/[^A-Za-z0-9.-]/g, '_')}.jsonl`);
}

export class RecordFile {
  readonly status: PersistStatus;
  private queue: Array<string | QueuedLine> = [];
  private queued = 0;
  private size = 0;
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly file: string,
    readonly maxBytes: number,
  ) {
    this.status = { file, maxBytes, written: 0, writeErrors: 0, lastError: null, restored: 0, skipped: 0 };
  }

  /** The records of both files, oldest first, and where the follower of `logFile` stopped (if it wrote one). */
  load(): { records: LogRecord[]; follow?: { inode: number; offset: number } } {
    const records: LogRecord[] = [];
    let follow: { inode: number; offset: number } | undefined;
    for (const file of [`${this.file}.1`, this.file]) {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      if (file === this.file) this.size = Buffer.byteLength(text);
      for (const line of text.split('\n')) {
        if (line === '') continue;
        try {
          const value = JSON.parse(line) as Record<string, unknown>;
          if (typeof value.follow === 'object' && value.follow !== null) follow = value.follow as { inode: number; offset: number };
          else if (typeof value.seq === 'number' && typeof value.message === 'string') records.push(value as unknown as LogRecord);
          else this.status.skipped += 1;
        } catch {
          this.status.skipped += 1;
        }
      }
    }
    // Ascending and unique: a file torn or written twice must not break the ring's order.
    const ordered: LogRecord[] = [];
    for (const r of records) if (ordered.length === 0 || r.seq > ordered[ordered.length - 1]!.seq) ordered.push(r);
    this.status.restored = ordered.length;
    return follow ? { records: ordered, follow } : { records: ordered };
  }

  append(record: LogRecord): void {
    this.enqueue(JSON.stringify(record));
  }

  /** A record already written as its JSON line (the ring's), so it is not stringified twice. */
  appendJson(line: string): void {
    this.enqueue(line);
  }

  /** A record the ring keeps as its line (LogRing.pushLine), `bytes` its JSON line's with the line break. */
  appendLine(text: string, at: number, source: string, seq: number, bytes: number): void {
    this.queue.push({ text, at, source, seq });
    this.queued += bytes;
    this.schedule();
  }

  /** Where the follower is: written after the records it read, so a restart resumes past them. */
  mark(follow: { inode: number; offset: number }): void {
    this.enqueue(JSON.stringify({ follow }));
  }

  private enqueue(line: string): void {
    this.queue.push(line);
    this.queued += line.length + 1;
    this.schedule();
  }

  private schedule(): void {
    if (this.queued > 256 * 1024) void this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), 200);
      this.timer.unref?.();
    }
  }

  /** Write what is queued; one write at a time, in order. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const run = async (): Promise<void> => {
      while (this.queue.length > 0) {
        const lines = this.queue.map((q) => (typeof q === 'string' ? q : lineJson(q.text, q.at, q.source, q.seq)));
        this.queue = [];
        this.queued = 0;
        const text = `${lines.join('\n')}\n`;
        try {
          await fs.promises.mkdir(path.dirname(this.file), { recursive: true });
          if (this.size > 0 && this.size + Buffer.byteLength(text) > this.maxBytes / 2) {
            await fs.promises.rename(this.file, `${this.file}.1`);
            this.size = 0;
          }
          // A batch bigger than the whole half is cut to its newest lines.
          const kept = Buffer.byteLength(text) > this.maxBytes / 2 ? newest(lines, this.maxBytes / 2) : text;
          await fs.promises.appendFile(this.file, kept, { mode: 0o600 });
          this.size += Buffer.byteLength(kept);
          this.status.written += lines.length;
        } catch (err) {
          this.status.writeErrors += 1;
          this.status.lastError = (err as Error).message;
        }
      }
    };
    this.flushing = (this.flushing ?? Promise.resolve()).then(run);
    return this.flushing;
  }
}

function newest(lines: string[], bytes: number): string {
  const kept: string[] = [];
  let total = 0;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const size = Buffer.byteLength(lines[i]!) + 1;
    if (total + size > bytes) break;
    kept.push(lines[i]!);
    total += size;
  }
  return kept.length === 0 ? '' : `${kept.reverse().join('\n')}\n`;
}

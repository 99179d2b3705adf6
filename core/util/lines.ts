/**
 * Newline framing for every JSON-lines stream mcbridge reads (the mod link, the local
 * API, its clients). Splits on `\n`, drops a trailing `\r` (the mod writes `\r\n` on
 * Windows hosts), and bounds a line so a runaway peer cannot grow memory without limit.
 */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface LineSplitterOptions {
  maxLineBytes?: number;
  onLine: (line: string) => void;
  /** A line went past the bound; its bytes were discarded up to the next newline. */
  onOverflow?: (bytes: number) => void;
}

export class LineSplitter {
  private readonly maxLineBytes: number;
  private readonly onLine: (line: string) => void;
  private readonly onOverflow: (bytes: number) => void;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false; // inside an oversize line, dropping until its newline

  constructor(options: LineSplitterOptions) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.onLine = options.onLine;
    this.onOverflow = options.onOverflow ?? (() => {});
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        this.hold(chunk.subarray(start));
        return;
      }
      this.finish(chunk.subarray(start, nl));
      start = nl + 1;
    }
  }

  private hold(part: Buffer): void {
    if (part.length === 0) return;
    if (this.discarding) {
      this.pendingBytes += part.length;
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) {
      this.pending = [];
      this.discarding = true;
    }
  }

  private finish(tail: Buffer): void {
    if (this.discarding) {
      const bytes = this.pendingBytes + tail.length;
      this.discarding = false;
      this.pendingBytes = 0;
      this.onOverflow(bytes);
      return;
    }
    let line: Buffer;
    if (this.pending.length === 0) {
      line = tail;
    } else {
      this.pending.push(tail);
      line = Buffer.concat(this.pending, this.pendingBytes + tail.length);
      this.pending = [];
    }
    this.pendingBytes = 0;
    if (line.length > this.maxLineBytes) {
      this.onOverflow(line.length);
      return;
    }
    let end = line.length;
    if (end > 0 && line[end - 1] === 13) end -= 1;
    this.onLine(line.toString('utf8', 0, end));
  }
}

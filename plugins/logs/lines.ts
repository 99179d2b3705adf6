/**
 * Raw output (a pipe's chunks, a file's appended bytes) cut into bounded lines. A server can print
 * a 10 MB line or spray binary: neither may hold more than `maxLine` bytes here, and a run of binary
 * lines becomes one counted note instead of thousands of records.
 */
import { isUtf8 } from 'node:buffer';

/** One line as the splitter hands it on: text at most `maxLine` bytes, the whole line's byte count kept. */
export interface Line {
  text: string;
  /** Bytes of the whole line, without its line break. */
  bytes: number;
  /** The line was longer than `maxLine`: `text` is its start. */
  cut: boolean;
}

/** A run of binary lines, reported once it ends (or at `flush`). */
export interface BinaryNote {
  binary: true;
  lines: number;
  bytes: number;
}

export interface SplitterCounters {
  lines: number;
  bytes: number;
  cut: number;
  binaryLines: number;
  binaryBytes: number;
}

export const DEFAULT_MAX_LINE = 16 * 1024;

/**
 * Binary: a NUL byte, or bytes that are not UTF-8. A cut line may end inside a character, so the
 * last three bytes are forgiven there. isUtf8 checks without throwing: a fatal TextDecoder cost a
 * try per line.
 */
function decode(bytes: Buffer, cut: boolean): string | null {
  if (bytes.includes(0)) return null;
  for (let drop = 0; drop <= (cut ? 3 : 0) && drop <= bytes.length; drop += 1) {
    const view = drop === 0 ? bytes : bytes.subarray(0, bytes.length - drop);
    if (isUtf8(view)) return view.toString('utf8');
  }
  return null;
}

export class LineSplitter {
  readonly counters: SplitterCounters = { lines: 0, bytes: 0, cut: 0, binaryLines: 0, binaryBytes: 0 };
  /** The current line's first bytes (at most maxLine), as chunks. */
  private head: Buffer[] = [];
  private headBytes = 0;
  /** Bytes of the current line so far, kept or not. */
  private lineBytes = 0;
  private binaryRun: BinaryNote | null = null;

  constructor(
    private readonly emit: (item: Line | BinaryNote) => void,
    readonly maxLine = DEFAULT_MAX_LINE,
  ) {}

  push(chunk: Buffer): void {
    this.counters.bytes += chunk.length;
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(10, from);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk, from, end);
      if (nl === -1) break;
      this.endLine();
      from = nl + 1;
    }
  }

  /** The last line without its line break, and a pending binary note: at the end of a stream. */
  flush(): void {
    if (this.lineBytes > 0) this.endLine();
    this.endBinaryRun();
  }

  private take(chunk: Buffer, from: number, end: number): void {
    const room = this.maxLine - this.headBytes;
    const keep = Math.min(room, end - from);
    if (keep > 0) {
      this.head.push(chunk.subarray(from, from + keep));
      this.headBytes += keep;
    }
    this.lineBytes += end - from;
  }

  private endLine(): void {
    let bytes = this.head.length === 1 ? this.head[0]! : Buffer.concat(this.head, this.headBytes);
    let total = this.lineBytes;
    this.head = [];
    this.headBytes = 0;
    this.lineBytes = 0;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 13 && total === bytes.length) {
      bytes = bytes.subarray(0, -1);
      total -= 1;
    }
    const cut = total > bytes.length;
    const text = decode(bytes, cut);
    if (text === null) {
      this.counters.binaryLines += 1;
      this.counters.binaryBytes += total;
      this.binaryRun ??= { binary: true, lines: 0, bytes: 0 };
      this.binaryRun.lines += 1;
      this.binaryRun.bytes += total;
      return;
    }
    this.endBinaryRun();
    this.counters.lines += 1;
    if (cut) this.counters.cut += 1;
    this.emit({ text, bytes: total, cut });
  }

  private endBinaryRun(): void {
    if (this.binaryRun === null) return;
    const note = this.binaryRun;
    this.binaryRun = null;
    this.emit(note);
  }
}

/**
 * Raw output (a pipe's chunks, a file's appended bytes) cut into bounded lines. A server can print
 * a 10 MB line or spray binary: neither may hold more than `maxLine` bytes here, and a run of binary
 * lines becomes one counted note instead of thousands of records.
 */
import { isAscii, isUtf8 } from 'node:buffer';

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

/** Where lines go: `line` for text (no object per line), `binary` for a run that ended. */
export interface LineSink {
  line(text: string, bytes: number, cut: boolean): void;
  binary(note: BinaryNote): void;
}

type Slicer = (this: Buffer, start: number, end: number) => string;
const proto = Buffer.prototype as unknown as { latin1Slice?: Slicer; utf8Slice?: Slicer };
/**
 * Buffer's own decoders without toString's argument checks (a tenth of the capture's time);
 * toString where a Node has them not.
 */
const LATIN1: Slicer =
  proto.latin1Slice ??
  function (this: Buffer, start, end) {
    return this.toString('latin1', start, end);
  };
const UTF8: Slicer =
  proto.utf8Slice ??
  function (this: Buffer, start, end) {
    return this.toString('utf8', start, end);
  };

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
  private readonly sink: LineSink;

  constructor(
    emit: ((item: Line | BinaryNote) => void) | LineSink,
    readonly maxLine = DEFAULT_MAX_LINE,
  ) {
    this.sink = typeof emit === 'function' ? { line: (text, bytes, cut) => emit({ text, bytes, cut }), binary: emit } : emit;
  }

  /**
   * The whole lines of a chunk are checked at once (no NUL, ASCII or else UTF-8: a line break
   * cannot sit inside a character, so then every line is) and each decoded from the chunk by
   * itself: a string of its own, which keeps no chunk alive in the ring. A chunk that fails the
   * check, a line begun in an earlier chunk and a line over `maxLine` go line by line as before.
   */
  push(chunk: Buffer): void {
    this.counters.bytes += chunk.length;
    let from = 0;
    if (this.lineBytes > 0) {
      const nl = chunk.indexOf(10);
      this.take(chunk, 0, nl === -1 ? chunk.length : nl);
      if (nl === -1) return;
      this.endLine();
      from = nl + 1;
    }
    const last = chunk.lastIndexOf(10);
    if (last >= from) {
      const whole = chunk.subarray(from, last);
      const encoding = whole.includes(0) ? null : isAscii(whole) ? LATIN1 : isUtf8(whole) ? UTF8 : null;
      if (encoding !== null) this.lines(chunk, from, last, encoding);
      else this.slowLines(chunk, from, last);
      from = last + 1;
    }
    if (from < chunk.length) this.take(chunk, from, chunk.length);
  }

  /** The lines of chunk[from, last] (last is a line break) known to be text. */
  private lines(chunk: Buffer, from: number, last: number, decode: Slicer): void {
    const max = this.maxLine;
    const counters = this.counters;
    const sink = this.sink;
    while (from <= last) {
      const nl = chunk.indexOf(10, from);
      let end = nl;
      if (end - from > max) {
        this.take(chunk, from, end);
        this.endLine();
      } else {
        if (end > from && chunk[end - 1] === 13) end -= 1;
        if (this.binaryRun !== null) this.endBinaryRun();
        counters.lines += 1;
        sink.line(decode.call(chunk, from, end), end - from, false);
      }
      from = nl + 1;
    }
  }

  private slowLines(chunk: Buffer, from: number, last: number): void {
    while (from <= last) {
      const nl = chunk.indexOf(10, from);
      this.take(chunk, from, nl);
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
    this.sink.line(text, total, cut);
  }

  private endBinaryRun(): void {
    if (this.binaryRun === null) return;
    const note = this.binaryRun;
    this.binaryRun = null;
    this.sink.binary(note);
  }
}

import type net from 'node:net';
import { LineSplitter } from '../util/lines.js';

/**
 * Request lines handled per connection per turn of the event loop: quick answers are
 * written, and so counted against the bound, before more lines are taken.
 */
const LINES_PER_TURN = 16;

export interface RequestReaderOptions {
  maxLineBytes: number;
  /** Unsent output past which no more lines are handled (and the socket is not read) until `drain`. */
  pauseAboveBytes: number;
  onLine(line: string): void;
  /** A line past `maxLineBytes`, of this many bytes, was dropped. */
  onOverflow(bytes: number): void;
}

/**
 * The reading side of one API connection: lines are handled in order, a few per turn, and
 * not at all while the connection's unsent output is over the bound. Then the socket is
 * not read either (`pause`), so a client that does not read its answers holds about that
 * much of the daemon's memory and no more; other connections never wait for it.
 */
export class RequestReader {
  private readonly splitter: LineSplitter;
  /** Read but not handled yet; a number stands for a line past the length bound. */
  private lines: Array<string | number> = [];
  private next = 0;
  private turnScheduled = false;
  private stopped = false;
  /** Not read because the unsent output is over the bound. */
  paused = false;

  constructor(private readonly socket: net.Socket, private readonly options: RequestReaderOptions) {
    this.splitter = new LineSplitter({
      maxLineBytes: options.maxLineBytes,
      onLine: (line) => this.lines.push(line),
      onOverflow: (bytes) => this.lines.push(bytes),
    });
  }

  /** Read nothing more (the socket closed). */
  stop(): void {
    this.stopped = true;
    this.lines = [];
    this.next = 0;
  }

  read(chunk: Buffer): void {
    if (this.stopped) return;
    this.splitter.push(chunk);
    this.pump();
  }

  /** Handle what was read, as far as the bound allows; again on `drain`. */
  pump(): void {
    let budget = LINES_PER_TURN;
    while (this.next < this.lines.length) {
      if (this.stopped || this.socket.destroyed) return;
      if (this.socket.writableLength > this.options.pauseAboveBytes) {
        this.paused = true;
        this.socket.pause();
        return;
      }
      if (budget-- === 0) {
        this.paused = false;
        this.socket.pause();
        this.nextTurn();
        return;
      }
      const line = this.lines[this.next]!;
      this.lines[this.next++] = 0; // let the text go now
      if (typeof line === 'number') this.options.onOverflow(line);
      else this.options.onLine(line);
    }
    this.lines = [];
    this.next = 0;
    if (this.stopped || this.socket.destroyed) return;
    this.paused = this.socket.writableLength > this.options.pauseAboveBytes;
    if (this.paused) this.socket.pause();
    else this.socket.resume();
  }

  private nextTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.pump();
    });
  }
}

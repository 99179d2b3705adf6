import type net from 'node:net';
import { LineSplitter } from '../util/lines.js';
import type { PreAuth } from './connection-guard.js';

/**
 * Request lines handled per connection per turn of the event loop: quick answers are
 * written, and so counted against the bound, before more lines are taken.
 */
const LINES_PER_TURN = 16;

export interface RequestReaderOptions {
  maxLineBytes: number;
  /** Unsent output past which no more lines are handled (and the socket is not read) until `drain`. */
  pauseAboveBytes: number;
  /** Set when the daemon has a token: the connection's allowance before it sends it. */
  preAuth: PreAuth | null;
  onLine(line: string): void;
  /** A line past `maxLineBytes`, of this many bytes, was dropped. */
  onOverflow(bytes: number): void;
  /** The pre-auth allowance is spent and none of its lines carried the token. */
  onAllowanceSpent(): void;
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
  /** Bytes read past the pre-auth allowance, held until the lines before them show whether the token came. */
  private beyondAllowance: Buffer | null = null;
  private preAuth: PreAuth | null;
  private turnScheduled = false;
  private stopped = false;
  /** Not read because the unsent output is over the bound. */
  paused = false;

  constructor(
    private readonly socket: net.Socket,
    private readonly options: RequestReaderOptions,
  ) {
    this.preAuth = options.preAuth;
    this.splitter = new LineSplitter({
      maxLineBytes: options.maxLineBytes,
      onLine: (line) => this.lines.push(line),
      onOverflow: (bytes) => this.lines.push(bytes),
    });
  }

  get authenticated(): boolean {
    return this.preAuth === null;
  }

  /** The token came: no allowance any more. */
  authenticate(): void {
    this.preAuth?.release();
    this.preAuth = null;
  }

  /** Read nothing more (the connection is being closed); the allowance is given back on `close`. */
  stop(): void {
    this.stopped = true;
    this.lines = [];
    this.next = 0;
    this.beyondAllowance = null;
  }

  /** The socket closed. */
  closed(): void {
    this.stop();
    this.preAuth?.release();
  }

  read(chunk: Buffer): void {
    if (this.stopped) return;
    if (this.preAuth) {
      const allowed = this.preAuth.bytesLeft;
      if (chunk.length > allowed) {
        this.beyondAllowance = chunk.subarray(allowed);
        chunk = chunk.subarray(0, allowed);
        this.socket.pause();
      }
      this.preAuth.bytesLeft -= chunk.length;
    }
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
    const beyond = this.beyondAllowance;
    if (beyond) {
      this.beyondAllowance = null;
      if (this.preAuth) this.options.onAllowanceSpent();
      else this.read(beyond);
      return;
    }
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

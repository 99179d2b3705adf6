/**
 * MCP over stdio: one JSON-RPC message per line on stdin, answers on stdout. A line that is not
 * JSON is answered with a parse error (id null) instead of being dropped without a word; a line
 * over the size bound (so a runaway client cannot grow memory) or nesting past the depth bound
 * is dropped and answered the same way.
 *
 * Output is bounded like the local API's (core/api/request-reader.ts): while more than
 * `pauseAboveBytes` of answers wait for a client that does not read them, no more lines are
 * handled and stdin is not read; past `maxUnsentBytes` (answers already owed keep coming) the
 * transport closes, which ends `mcbridge mcp`. Both are logged.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Logger } from '../../util/log.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from '../../util/lines.js';
import { RPC, type JSONRPCMessage } from './jsonrpc.js';
import { errorText, parseMessage } from './message-text.js';

/** As the local API's push buffer (DEFAULT_PUSH_BUFFER_BYTES). */
export const STDIO_PAUSE_ABOVE_BYTES = 8 * 1024 * 1024;
/** As the local API's hard bound: the push buffer plus its response overshoot. */
export const STDIO_MAX_UNSENT_BYTES = STDIO_PAUSE_ABOVE_BYTES + 64 * 1024 * 1024;
/** Lines handled per turn of the event loop, so their answers count against the bound before more are taken. */
const LINES_PER_TURN = 16;

export interface StdioOptions {
  maxLineBytes?: number;
  pauseAboveBytes?: number;
  maxUnsentBytes?: number;
  log?: Logger;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private started = false;
  private closed = false;
  private readonly splitter: LineSplitter;
  /** Read but not handled yet; a number stands for a line past the length bound. */
  private lines: Array<string | number> = [];
  private next = 0;
  private waiting: 'drain' | 'turn' | null = null;
  private readonly pauseAboveBytes: number;
  private readonly maxUnsentBytes: number;
  private readonly onData = (chunk: Buffer) => {
    this.splitter.push(chunk);
    this.pump();
  };
  private readonly onError = (error: Error) => this.onerror?.(error);

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly options: StdioOptions = {},
  ) {
    const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.pauseAboveBytes = options.pauseAboveBytes ?? STDIO_PAUSE_ABOVE_BYTES;
    this.maxUnsentBytes = options.maxUnsentBytes ?? STDIO_MAX_UNSENT_BYTES;
    this.splitter = new LineSplitter({
      maxLineBytes,
      onLine: (line) => this.lines.push(line),
      onOverflow: (bytes) => this.lines.push(bytes),
    });
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('the stdio transport is already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
    // A client that goes away mid-answer makes stdout fail (EPIPE): reported, never a crash.
    this.stdout.on('error', this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(JSON.stringify(message));
  }

  private write(text: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const line = text + '\n';
    const flushed = new Promise<void>((resolve) => {
      if (this.stdout.write(line)) resolve();
      else this.stdout.once('drain', resolve);
    });
    const unsent = this.stdout.writableLength;
    if (unsent > this.maxUnsentBytes) {
      this.options.log?.error(
        { unsentBytes: unsent, limit: this.maxUnsentBytes },
        `closing MCP stdio: the client does not read its answers (${unsent} bytes unsent, past the ${this.maxUnsentBytes}-byte limit)`,
      );
      void this.close();
      return Promise.resolve();
    }
    return flushed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lines = [];
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    this.stdout.off('error', this.onError);
    this.stdin.pause();
    this.onclose?.();
  }

  /** Handle what was read, a few lines per turn and none while too much output is unsent. */
  private pump(): void {
    if (this.waiting !== null) return;
    let budget = LINES_PER_TURN;
    while (this.next < this.lines.length && !this.closed) {
      if (this.stdout.writableLength > this.pauseAboveBytes) {
        this.stdin.pause();
        this.options.log?.warn({ unsentBytes: this.stdout.writableLength, limit: this.pauseAboveBytes }, 'MCP stdio: the client is not reading its answers; not reading its requests until it does');
        this.wait('drain');
        return;
      }
      if (budget-- === 0) {
        this.stdin.pause();
        this.wait('turn');
        return;
      }
      const line = this.lines[this.next]!;
      this.lines[this.next++] = 0; // let the text go now
      if (typeof line === 'number') this.refuse(RPC.invalidRequest, `a message of ${line} bytes is over the ${this.options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES}-byte bound and was dropped`);
      else this.receive(line);
    }
    this.lines = [];
    this.next = 0;
    if (!this.closed) this.stdin.resume();
  }

  private wait(what: 'drain' | 'turn'): void {
    this.waiting = what;
    const again = () => {
      this.waiting = null;
      this.pump();
    };
    if (what === 'drain') this.stdout.once('drain', again);
    else setImmediate(again);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    const parsed = parseMessage(line);
    if ('error' in parsed) {
      this.write(parsed.error).catch(() => {});
      return;
    }
    this.onmessage?.(parsed.message as JSONRPCMessage);
  }

  private refuse(code: number, message: string): void {
    this.write(errorText('null', code, message)).catch(() => {});
  }
}

/**
 * MCP over stdio: one JSON-RPC message per line on stdin, answers on stdout. A line that is not
 * JSON is answered with a parse error (id null) instead of being dropped without a word; a line
 * over the size bound (so a runaway client cannot grow memory) or nesting past the depth bound
 * is dropped and answered the same way.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { exceedsJsonDepth } from '../../util/json-depth.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from '../../util/lines.js';
import { errorResponse, MAX_MESSAGE_DEPTH, RPC, TOO_DEEP, type JSONRPCMessage } from './jsonrpc.js';

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private started = false;
  private readonly splitter: LineSplitter;
  private readonly onData = (chunk: Buffer) => this.splitter.push(chunk);
  private readonly onError = (error: Error) => this.onerror?.(error);

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {
    this.splitter = new LineSplitter({
      maxLineBytes,
      onLine: (line) => this.receive(line),
      onOverflow: (bytes) => this.reply(RPC.invalidRequest, `a message of ${bytes} bytes is over the ${maxLineBytes}-byte bound and was dropped`),
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
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    this.stdout.off('error', this.onError);
    this.stdin.pause();
    this.onclose?.();
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    if (exceedsJsonDepth(line, MAX_MESSAGE_DEPTH)) {
      this.reply(RPC.invalidRequest, TOO_DEEP);
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (err) {
      this.reply(RPC.parseError, `Parse error: each line must be one JSON-RPC message (${(err as Error).message})`);
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  private reply(code: number, message: string): void {
    this.send(errorResponse(null, code, message)).catch(() => {});
  }
}

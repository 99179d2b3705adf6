import net from 'node:net';
import { exceedsJsonDepth, MAX_MOD_LINE_DEPTH } from '../../util/json-depth.js';
import { LineSplitter } from '../../util/lines.js';

export type ModMessage = Record<string, unknown> & { type?: unknown };

export interface ModConnectionHandlers {
  /** The greeting: the first line without `"event":true`. */
  onHello(hello: ModMessage): void;
  /** `line` is the JSON text the event was parsed from. */
  onEvent(event: ModMessage, line: string): void;
  /** `line` is the JSON text the reply was parsed from (a second copy of a reply is byte-equal). */
  onReply(reply: ModMessage, line: string): void;
  /** A line that is not a JSON object, or one past the length or nesting bound. Never fatal. */
  onBadLine(problem: string): void;
  onClose(error: Error | undefined): void;
}

/**
 * One TCP connection to the mod: framing, JSON parsing and the routing rule of
 * docs/protocol.md#lines-and-framing (a line is an event if and only if it has `"event": true`).
 * It always drains the socket, because the mod's writes block the game thread.
 */
export class ModConnection {
  private greeted = false;
  private closed = false;
  private closeError: Error | undefined;

  private constructor(
    private readonly socket: net.Socket,
    private readonly handlers: ModConnectionHandlers,
    maxLineBytes: number,
  ) {
    const splitter = new LineSplitter({
      maxLineBytes,
      onLine: (line) => this.route(line),
      onOverflow: (bytes) => handlers.onBadLine(`a line of ${bytes} bytes exceeded the ${maxLineBytes}-byte limit and was discarded`),
    });
    socket.on('data', (chunk: Buffer) => splitter.push(chunk));
    socket.on('error', (err) => {
      this.closeError = err;
    });
    socket.on('close', () => {
      this.closed = true;
      handlers.onClose(this.closeError);
    });
  }

  static open(host: string, port: number, handlers: ModConnectionHandlers, options: { connectTimeoutMs: number; maxLineBytes: number }): Promise<ModConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`connect timed out after ${options.connectTimeoutMs} ms`));
      }, options.connectTimeoutMs);
      const onError = (err: Error) => {
        clearTimeout(timer);
        reject(err);
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.off('error', onError);
        resolve(new ModConnection(socket, handlers, options.maxLineBytes));
      });
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  write(line: string): void {
    if (!this.closed) this.socket.write(line + '\n');
  }

  close(): void {
    this.socket.destroy();
  }

  private route(line: string): void {
    if (line.trim() === '') return;
    if (exceedsJsonDepth(line, MAX_MOD_LINE_DEPTH)) {
      this.handlers.onBadLine(`a line nesting deeper than ${MAX_MOD_LINE_DEPTH} levels was discarded: ${line.slice(0, 120)}`);
      return;
    }
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.handlers.onBadLine(`not JSON: ${line.slice(0, 120)}`);
      return;
    }
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      this.handlers.onBadLine(`not a JSON object: ${line.slice(0, 120)}`);
      return;
    }
    const message = msg as ModMessage;
    if (message.event === true) {
      this.handlers.onEvent(message, line);
    } else if (!this.greeted) {
      this.greeted = true;
      this.handlers.onHello(message);
    } else {
      this.handlers.onReply(message, line);
    }
  }
}

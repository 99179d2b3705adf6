/**
 * One control connection after its TLS handshake: the hello deadline, framing, request
 * bookkeeping (ids, the pending bound, timeouts), read-idle close, and event delivery that drops
 * and counts instead of buffering without bound for a reader that cannot keep up.
 */
import type tls from 'node:tls';
import { encodeFrame, type Frame, FrameError, FrameReader } from './frames.js';
import type { WireError } from './ledger.js';
import { randomId } from './identity.js';
import type { StoredToken } from './tokens.js';

export interface Limits {
  maxFrameBytes: number;
  maxPendingRequests: number;
  requestTimeoutMillis: number;
  idleSeconds: number;
  handshakeSeconds: number;
  eventBuffer: number;
  maxDroppedEvents: number;
  controlProtocol: 1;
}

export interface ControlRequest {
  id: string;
  op: string;
  params: Record<string, unknown>;
}

/** How a request ended: a reply to send (or not, when a knob swallows it), and whether to hang up after. */
export type Outcome = { reply: Frame | null; close?: boolean };

/** What a session needs from the control server. */
export interface SessionHost {
  readonly limits: Limits;
  millis(): number;
  /** The welcome and the replayed envelopes, or the fatal error the hello earns. */
  greet(session: ControlSession, hello: Frame): { welcome: Frame; replay: Buffer[] } | { error: WireError };
  run(session: ControlSession, request: ControlRequest): Promise<Outcome>;
  isWrite(op: string): boolean;
  closed(session: ControlSession): void;
}

/** Bytes queued on a socket past which events are dropped (and counted) rather than queued. */
export const EVENT_BACKLOG_BYTES = 4 * 1024 * 1024;

export class ControlSession {
  readonly sessionId = randomId('sess');
  token: StoredToken | null = null;
  /** After welcome: receives events. */
  live = false;
  droppedEvents = 0;
  readonly pending = new Map<string, { op: string; beganAtMillis: number }>();
  private open = true;
  private readonly reader: FrameReader;
  private readonly deadline: NodeJS.Timeout;
  private idle: NodeJS.Timeout | null = null;

  constructor(
    private readonly socket: tls.TLSSocket,
    private readonly host: SessionHost,
  ) {
    const { limits } = host;
    this.reader = new FrameReader(
      limits.maxFrameBytes,
      (frame) => this.guarded(frame),
      (err) => this.fatal(err.code, err.message),
    );
    this.deadline = setTimeout(() => this.fatal('timeout', `no hello within ${limits.handshakeSeconds} s`), limits.handshakeSeconds * 1000);
    this.deadline.unref();
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.idle?.refresh();
      this.reader.push(chunk);
    });
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  get isOpen(): boolean {
    return this.open;
  }

  private send(frame: Frame): void {
    if (!this.open) return;
    this.socket.write(encodeFrame(frame));
  }

  /** An event envelope; dropped and counted while the reader lags, and past the bound the session ends. */
  pushEvent(frame: Buffer): void {
    if (!this.open || !this.live) return;
    if (this.socket.writableLength > EVENT_BACKLOG_BYTES) {
      if (++this.droppedEvents > this.host.limits.maxDroppedEvents) this.close();
      return;
    }
    this.socket.write(frame);
  }

  /** A fatal error frame, then the connection ends (the frame is flushed first). */
  fatal(code: string, message: string): void {
    if (!this.open) return;
    this.send({ type: 'error', code, message });
    this.open = false;
    this.stopTimers();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
    this.host.closed(this);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.stopTimers();
    this.socket.destroy();
    this.host.closed(this);
  }

  private stopTimers(): void {
    clearTimeout(this.deadline);
    if (this.idle) clearTimeout(this.idle);
  }

  /** Whatever a client sends, a throw ends its session only, never the sim's process. */
  private guarded(frame: Frame): void {
    try {
      this.onFrame(frame);
    } catch (err) {
      this.fatal('internal', `the server could not handle that frame: ${(err as Error).message}`);
    }
  }

  private onFrame(frame: Frame): void {
    if (!this.open) return;
    if (this.token === null) return this.onHello(frame);
    if (frame.type !== 'request') return this.fatal('bad_request', `a ${JSON.stringify(String(frame.type))} frame is not allowed here; send request frames`);
    this.onRequest(frame);
  }

  private onHello(frame: Frame): void {
    clearTimeout(this.deadline);
    if (frame.type !== 'hello') return this.fatal('bad_request', 'the first frame must be a hello');
    if (frame.protocol !== 1) return this.fatal('protocol_version', `this server speaks control protocol 1, not ${JSON.stringify(frame.protocol)}`);
    const answer = this.host.greet(this, frame);
    if ('error' in answer) return this.fatal(answer.error.code, answer.error.message);
    this.send(answer.welcome);
    for (const envelope of answer.replay) this.socket.write(envelope);
    this.live = true;
    this.idle = setTimeout(() => this.fatal('timeout', `nothing received for ${this.host.limits.idleSeconds} s`), this.host.limits.idleSeconds * 1000);
    this.idle.unref();
  }

  private reply(id: string, error: WireError): void {
    this.send({ type: 'reply', ok: false, id, error, serverTimeMillis: this.host.millis() });
  }

  private onRequest(frame: Frame): void {
    const { id, op, params = {}, timeoutMillis } = frame;
    if (typeof id !== 'string' || id.length < 1 || id.length > 128) return this.fatal('bad_request', 'a request needs an id: a string of 1..128 characters');
    const bad = (message: string) => this.reply(id, { code: 'bad_request', message, retryable: false, resultUnknown: false });
    if (typeof op !== 'string' || op === '') return bad('a request needs an op');
    if (params === null || typeof params !== 'object' || Array.isArray(params)) return bad('params must be a JSON object');
    if (timeoutMillis !== undefined && (!Number.isInteger(timeoutMillis) || (timeoutMillis as number) < 1)) return bad('timeoutMillis must be a positive integer');
    if (this.pending.has(id)) return this.reply(id, { code: 'request_in_flight', message: `request ${id} is still running; wait for its reply`, retryable: false, resultUnknown: false });
    if (this.pending.size >= this.host.limits.maxPendingRequests) {
      return this.reply(id, { code: 'too_many_pending', message: `${this.pending.size} requests are in flight, the most this server takes; wait for a reply`, retryable: true, resultUnknown: false });
    }
    const entry = { op, beganAtMillis: this.host.millis() };
    this.pending.set(id, entry);
    const waitMillis = (timeoutMillis as number | undefined) ?? this.host.limits.requestTimeoutMillis;
    const timer = setTimeout(() => {
      if (this.pending.get(id) !== entry) return;
      this.pending.delete(id);
      const write = this.host.isWrite(op);
      const message = write ? `operation ${op} is still running; its result is unknown, query request_status` : `operation ${op} did not finish within ${waitMillis} ms`;
      this.reply(id, { code: 'timeout', message, retryable: !write, resultUnknown: write });
    }, waitMillis);
    timer.unref();
    void this.host.run(this, { id, op, params: params as Record<string, unknown> }).then((outcome) => {
      if (this.pending.get(id) !== entry) return; // timed out: that reply was the answer
      clearTimeout(timer);
      this.pending.delete(id);
      if (outcome.reply) this.sendReply(outcome.reply);
      if (outcome.close) this.close();
    });
  }

  /** A result too big for one frame (or not JSON) is answered as an error, never sent half. */
  private sendReply(reply: Frame): void {
    let frame: Buffer;
    try {
      frame = encodeFrame(reply);
      if (frame.length - 4 > this.host.limits.maxFrameBytes) throw new FrameError('frame_too_large', `the result is over the frame limit of ${this.host.limits.maxFrameBytes} bytes`);
    } catch (err) {
      return this.reply(String(reply.id), { code: 'internal', message: (err as Error).message, retryable: false, resultUnknown: false });
    }
    if (this.open) this.socket.write(frame);
  }
}

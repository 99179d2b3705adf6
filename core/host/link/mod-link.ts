import { EventEmitter } from 'node:events';
import { McbridgeError } from '../errors.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../util/lines.js';
import type { Logger } from '../../util/log.js';
import { normalizeCaps, type Caps } from './caps.js';
import { ModConnection, type ModMessage } from './connection.js';
import { resolvePort, type PortResolution, type Vantage } from './discovery.js';
import { verbSpec } from './verbs.js';

export type { ModMessage };
export type LinkState = 'idle' | 'discovering' | 'connecting' | 'negotiating' | 'ready' | 'stopped';

export interface ModReply extends Record<string, unknown> {
  type: string;
}

export interface ModLinkOptions {
  vantage: Vantage;
  modHost?: string;
  modPort?: number;
  portFile?: string;
  serverDir?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  connectTimeoutMs?: number;
  helloTimeoutMs?: number;
  capsTimeoutMs?: number;
  /** How long an abandoned request's reply may stay owed before the connection is reset. */
  owedGraceMs?: number;
  maxLineBytes?: number;
  /** Concurrent blocking verbs (long WAITs), each on a connection of its own. */
  maxSideRequests?: number;
  log: Logger;
  /**
   * Mod events, the greeting hello and the link's synthetic events, in arrival order;
   * `line` is the mod's JSON text for an event that came over the wire as one.
   */
  onEvent(event: ModMessage, line?: string): void;
}

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Reply types that answer this line, for verbs the link does not know yet. */
  replies?: readonly string[];
}

export interface LinkStats {
  requests: number;
  timeouts: number;
  cancelled: number;
  lateReplies: number;
  strayReplies: number;
  badLines: number;
  connections: number;
  sideRequests: number;
}

export interface LinkStatus {
  state: LinkState;
  connected: boolean;
  vantage: Vantage;
  instance: string | null;
  mod: { host: string; port: number | null; portSource: string | null };
  discovery: PortResolution | null;
  hello: ModMessage | null;
  capabilities: string[] | null;
  capsSource: 'caps' | 'hello' | null;
  lastError: string | null;
  connectedAt: number | null;
  inFlight: string | null;
  queued: number;
  owed: string | null;
  stats: LinkStats;
}

interface Job {
  line: string;
  replies: readonly string[];
  timeoutMs: number;
  signal: AbortSignal | undefined;
  resolve(reply: ModReply): void;
  reject(err: McbridgeError): void;
  timer?: NodeJS.Timeout;
  detach?: () => void;
  settled: boolean;
}

function replyType(msg: ModMessage): string | undefined {
  return typeof msg.type === 'string' ? msg.type : undefined;
}

function modErrorOf(line: string, reply: ModMessage): McbridgeError {
  const message = typeof reply.message === 'string' ? reply.message : 'mod reported an error';
  return new McbridgeError('mod_error', message, { request: line, reply });
}

function cancelledError(line: string): McbridgeError {
  return new McbridgeError('cancelled', `the request '${line}' was cancelled`);
}

/**
 * The one connection to the mod. Replies carry no ids, so exactly one request is in
 * flight at a time and its reply is recognised by type. When a request is abandoned
 * (timeout or cancel) its reply is still owed: nothing else is sent until that reply has
 * arrived and been discarded, or the connection is reset. So a late reply can never be
 * handed to a later request. Blocking verbs (WAIT n > 0) run on short-lived connections
 * of their own that are simply closed on cancel, so they hold up nothing.
 */
export class ModLink extends EventEmitter {
  private readonly opts: Required<Omit<ModLinkOptions, 'modPort' | 'portFile' | 'serverDir' | 'cwd' | 'env'>> &
    Pick<ModLinkOptions, 'modPort' | 'portFile' | 'serverDir' | 'cwd' | 'env'>;
  private state: LinkState = 'idle';
  private conn: ModConnection | null = null;
  /** A connection still being greeted or negotiated; stop() closes it too. */
  private opening: ModConnection | null = null;
  private port: number | null = null;
  private discovery: PortResolution | null = null;
  private hello: ModMessage | null = null;
  private instance: string | null = null;
  private capsValue: Caps | null = null;
  private capsSource: 'caps' | 'hello' | null = null;
  private lastError: string | null = null;
  private lastLoggedError: string | null = null;
  private connectedAt: number | null = null;
  private queue: Job[] = [];
  private inFlight: Job | null = null;
  private owed: { line: string; replies: readonly string[]; timer: NodeJS.Timeout } | null = null;
  private sideActive = 0;
  private sideWaiters: Array<() => void> = [];
  /** Ends each side connection in use; stop() calls them all. */
  private readonly sideAborts = new Set<() => void>();
  private attempt = 0;
  private reconnectNow = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  readonly stats: LinkStats = {
    requests: 0, timeouts: 0, cancelled: 0, lateReplies: 0, strayReplies: 0, badLines: 0, connections: 0, sideRequests: 0,
  };

  constructor(options: ModLinkOptions) {
    super();
    this.opts = {
      modHost: '127.0.0.1',
      reconnectMinMs: 250,
      reconnectMaxMs: 5_000,
      connectTimeoutMs: 5_000,
      helloTimeoutMs: 5_000,
      capsTimeoutMs: 10_000,
      owedGraceMs: 10_000,
      maxLineBytes: DEFAULT_MAX_LINE_BYTES,
      maxSideRequests: 16,
      ...options,
    };
  }

  get vantage(): Vantage {
    return this.opts.vantage;
  }

  /** Advertised capabilities, or null when unknown (not connected, or a legacy mod). */
  get caps(): Caps | null {
    return this.capsValue;
  }

  get connected(): boolean {
    return this.state === 'ready';
  }

  /** What the CAPS view of the host needs, without building the whole `status()`. */
  capsInfo(): { connected: boolean; capsSource: 'caps' | 'hello' | null; instance: string | null; minecraft: string | null } {
    const minecraft = this.hello?.minecraft;
    return {
      connected: this.connected,
      capsSource: this.capsSource,
      instance: this.instance,
      minecraft: typeof minecraft === 'string' ? minecraft : null,
    };
  }

  start(): void {
    if (this.loop) return;
    this.loop = this.runLoop();
  }

  async stop(): Promise<void> {
    this.setState('stopped');
    this.wake?.();
    this.conn?.close();
    this.opening?.close();
    for (const job of this.queue.splice(0)) this.settle(job, new McbridgeError('unavailable', `the daemon stopped before '${job.line}' was sent`));
    for (const abort of [...this.sideAborts]) abort();
    await this.loop;
  }

  status(): LinkStatus {
    return {
      state: this.state,
      connected: this.state === 'ready',
      vantage: this.opts.vantage,
      instance: this.instance,
      mod: { host: this.opts.modHost, port: this.port, portSource: this.discovery?.source ?? null },
      discovery: this.discovery,
      hello: this.hello,
      capabilities: this.capsValue ? [...this.capsValue].sort() : null,
      capsSource: this.capsSource,
      lastError: this.lastError,
      connectedAt: this.connectedAt,
      inFlight: this.inFlight?.line ?? null,
      queued: this.queue.length,
      owed: this.owed?.line ?? null,
      stats: { ...this.stats },
    };
  }

  /** Send one verb line and resolve with its reply. A mod `error` reply rejects with `mod_error`. */
  async request(line: string, options: RequestOptions = {}): Promise<ModReply> {
    const trimmed = line.trim();
    if (trimmed === '') throw new McbridgeError('invalid_params', 'a mod request needs a verb, e.g. "STATE"');
    if (/[\r\n]/.test(trimmed)) {
      throw new McbridgeError('invalid_params', 'a mod request must be a single line: remove the line breaks from its arguments');
    }
    if (options.signal?.aborted) throw cancelledError(trimmed);
    const spec = verbSpec(trimmed);
    const replies = options.replies ?? spec.replies;
    const timeoutMs = options.timeoutMs ?? spec.timeoutMs;
    await this.whenUsable(options.signal, trimmed);
    this.stats.requests += 1;
    if (spec.blocking) return this.sideRequest(trimmed, replies, timeoutMs, options.signal);
    const reply = await this.enqueue(trimmed, replies, timeoutMs, options.signal);
    // Whoever asks CAPS refreshes the link's view: the surface follows the mod.
    if (reply.type === 'capabilities' && Array.isArray(reply.capabilities)) {
      if (typeof reply.instance === 'string' && reply.instance) this.instance = reply.instance;
      this.setCaps(normalizeCaps(reply.capabilities), 'caps');
    }
    return reply;
  }

  // ---- connection lifecycle -------------------------------------------------------

  private async runLoop(): Promise<void> {
    while (this.state !== 'stopped') {
      const resolution = resolvePort({
        vantage: this.opts.vantage,
        modPort: this.opts.modPort,
        portFile: this.opts.portFile,
        serverDir: this.opts.serverDir,
        cwd: this.opts.cwd,
        env: this.opts.env,
      });
      this.discovery = resolution;
      if (!resolution.resolved || resolution.port === null) {
        this.setState('discovering');
        this.noteError(resolution.error ?? 'the mod port could not be resolved');
        await this.pause();
        continue;
      }
      this.setState('connecting');
      let session: { closed: Promise<void> };
      try {
        session = await this.connectOnce(resolution.port);
      } catch (err) {
        if (this.isStopped()) break;
        this.noteError(`cannot reach interface mod on ${this.opts.modHost}:${resolution.port}: ${(err as Error).message}`);
        await this.pause();
        continue;
      }
      this.attempt = 0;
      await session.closed;
      if (this.isStopped()) break;
      await this.pause();
    }
  }

  private isStopped(): boolean {
    return this.state === 'stopped';
  }

  /** Connect, read the greeting, negotiate CAPS. Resolves once ready, with a promise of the close. */
  private async connectOnce(port: number): Promise<{ closed: Promise<void> }> {
    let onHello!: (hello: ModMessage) => void;
    let onEarlyClose!: (err: Error) => void;
    const helloArrived = new Promise<ModMessage>((resolve, reject) => {
      onHello = resolve;
      onEarlyClose = reject;
    });
    // A close after we stopped waiting (timeout, stop) rejects it with nobody listening.
    helloArrived.catch(() => {});
    let markClosed!: () => void;
    const closed = new Promise<void>((resolve) => (markClosed = resolve));

    const conn = await ModConnection.open(this.opts.modHost, port, {
      onHello: (hello) => onHello(hello),
      onEvent: (event, line) => this.opts.onEvent(event, line),
      onReply: (reply) => this.onReply(conn, reply),
      onBadLine: (problem) => {
        this.stats.badLines += 1;
        this.opts.log.warn({ port }, `mod sent a bad line: ${problem}`);
      },
      onClose: (err) => {
        onEarlyClose(new Error(err ? `connection closed before the greeting (${err.message})` : 'connection closed before the greeting'));
        if (this.conn === conn) this.onConnectionClosed(port, err);
        markClosed();
      },
    }, { connectTimeoutMs: this.opts.connectTimeoutMs, maxLineBytes: this.opts.maxLineBytes });

    let hello: ModMessage;
    this.opening = conn;
    try {
      if (this.isStopped()) throw new Error('the daemon is stopping');
      hello = await withTimeout(helloArrived, this.opts.helloTimeoutMs, 'the mod did not send its hello greeting');
      if (this.isStopped()) throw new Error('the daemon is stopping');
    } catch (err) {
      conn.close();
      throw err;
    } finally {
      this.opening = null;
    }
    if (replyType(hello) !== 'hello') {
      conn.close();
      throw new Error(`the first line on port ${port} was not a hello greeting: ${JSON.stringify(hello).slice(0, 200)}`);
    }
    const instance = typeof hello.instance === 'string' ? hello.instance : null;
    if (instance !== null && instance !== this.opts.vantage) {
      conn.close();
      throw new Error(
        `the mod on port ${port} is the ${instance} vantage but this daemon drives the ${this.opts.vantage} vantage; ` +
          (instance === 'client' ? 'pass --vantage client to drive a client explicitly' : 'drop --vantage client to drive the server'),
      );
    }

    this.conn = conn;
    this.port = port;
    this.hello = hello;
    this.instance = instance;
    this.stats.connections += 1;
    this.opts.onEvent(hello);
    this.setState('negotiating');
    await this.negotiateCaps(hello);
    if (conn.isClosed) throw new Error('the connection closed during capability negotiation');
    this.lastError = null;
    this.lastLoggedError = null;
    this.connectedAt = Date.now();
    this.setState('ready');
    this.opts.log.info(
      { port, instance: this.instance, caps: this.capsValue ? [...this.capsValue] : null },
      `connected to ${this.instance ?? 'interface'} mod on port ${port}`,
    );
    return { closed };
  }

  private async negotiateCaps(hello: ModMessage): Promise<void> {
    try {
      const reply = await this.enqueue('CAPS', ['capabilities'], this.opts.capsTimeoutMs, undefined);
      if (Array.isArray(reply.capabilities)) {
        if (typeof reply.instance === 'string' && reply.instance) this.instance = reply.instance;
        this.setCaps(normalizeCaps(reply.capabilities), 'caps');
        return;
      }
    } catch (err) {
      this.opts.log.debug({ err: (err as Error).message }, 'CAPS failed; using the capabilities from the hello');
    }
    const fromHello = normalizeCaps(hello.capabilities);
    this.setCaps(fromHello, fromHello ? 'hello' : null);
  }

  private onConnectionClosed(port: number, err: Error | undefined): void {
    const wasReady = this.state === 'ready' || this.state === 'negotiating';
    this.conn = null;
    this.connectedAt = null;
    const reason = `the mod connection on port ${port} closed${err ? ` (${err.message})` : ''}`;
    if (this.inFlight) {
      const job = this.inFlight;
      this.inFlight = null;
      this.settle(job, new McbridgeError('not_connected', `${reason} while waiting for the reply to '${job.line}'`));
    }
    for (const job of this.queue.splice(0)) {
      this.settle(job, new McbridgeError('not_connected', `${reason} before '${job.line}' was sent`));
    }
    if (this.owed) {
      clearTimeout(this.owed.timer);
      this.owed = null;
    }
    if (this.state !== 'stopped') {
      this.setState('connecting');
      if (wasReady) {
        this.noteError(reason);
        this.opts.onEvent({ type: 'bridge_disconnected', text: `mod connection on port ${port} closed` });
      }
    }
  }

  /** Sleep before the next attempt: bounded exponential backoff with jitter; stop wakes it. */
  private pause(): Promise<void> {
    if (this.state === 'stopped') return Promise.resolve();
    let delay: number;
    if (this.reconnectNow) {
      this.reconnectNow = false;
      delay = 0;
    } else {
      const base = Math.min(this.opts.reconnectMaxMs, this.opts.reconnectMinMs * 2 ** this.attempt);
      delay = Math.round(base * (0.8 + Math.random() * 0.4));
      this.attempt += 1;
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, delay);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  private setState(state: LinkState): void {
    if (this.state === state || this.state === 'stopped') return;
    this.state = state;
    if (state !== 'ready' && state !== 'negotiating') {
      this.hello = state === 'stopped' ? this.hello : null;
    }
    this.emit('state', state);
  }

  private setCaps(caps: Caps | null, source: 'caps' | 'hello' | null): void {
    const before = this.capsValue ? [...this.capsValue].sort().join(',') : null;
    const after = caps ? [...caps].sort().join(',') : null;
    this.capsValue = caps;
    this.capsSource = source;
    if (before !== after) this.emit('caps', caps);
  }

  private noteError(message: string): void {
    this.lastError = message;
    if (message !== this.lastLoggedError) {
      this.lastLoggedError = message;
      this.opts.log.warn(message + (this.state === 'stopped' ? '' : '; retrying'));
    }
  }

  private async whenUsable(signal: AbortSignal | undefined, line: string): Promise<void> {
    if (this.state === 'ready') return;
    if (this.state === 'stopped') throw new McbridgeError('unavailable', 'the daemon is shutting down');
    if (this.state === 'negotiating') {
      await waitForState(this, 'ready', this.opts.capsTimeoutMs + 1_000, signal, line);
      return;
    }
    throw this.notConnectedError();
  }

  notConnectedError(): McbridgeError {
    const where = this.discovery?.resolved ? ` on port ${this.discovery.port}` : '';
    return new McbridgeError(
      'not_connected',
      `the interface mod is not connected${where} (last error: ${this.lastError ?? 'none yet; still connecting'}). ` +
        'Start the game (or `mcbridge sim`), or check where the daemon looks with `mcbridge discover`.',
      { state: this.state, lastError: this.lastError },
    );
  }

  // ---- the main connection: one request in flight ----------------------------------

  private enqueue(line: string, replies: readonly string[], timeoutMs: number, signal: AbortSignal | undefined): Promise<ModReply> {
    return new Promise<ModReply>((resolve, reject) => {
      if (signal?.aborted) {
        reject(cancelledError(line));
        return;
      }
      if (this.isStopped()) {
        reject(new McbridgeError('unavailable', `the daemon stopped before '${line}' was sent`));
        return;
      }
      const job: Job = { line, replies, timeoutMs, signal, resolve, reject, settled: false };
      if (signal) {
        const onAbort = () => this.cancel(job);
        signal.addEventListener('abort', onAbort, { once: true });
        job.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(job);
      this.pump();
    });
  }

  private pump(): void {
    const conn = this.conn;
    if (!conn || this.inFlight || this.owed) return;
    if (this.state !== 'ready' && this.state !== 'negotiating') return;
    const job = this.queue.shift();
    if (!job) return;
    this.inFlight = job;
    job.timer = setTimeout(() => this.abandon(job, 'timeout'), job.timeoutMs);
    conn.write(job.line);
  }

  private onReply(conn: ModConnection, reply: ModMessage): void {
    if (conn !== this.conn) return;
    const type = replyType(reply);
    const job = this.inFlight;
    if (job) {
      if (type === 'error' || job.replies.length === 0 || (type !== undefined && job.replies.includes(type))) {
        this.inFlight = null;
        this.settle(job, type === 'error' ? modErrorOf(job.line, reply) : null, reply as ModReply);
        this.pump();
        return;
      }
    } else if (this.owed) {
      const owed = this.owed;
      if (type === 'error' || owed.replies.length === 0 || (type !== undefined && owed.replies.includes(type))) {
        clearTimeout(owed.timer);
        this.owed = null;
        this.stats.lateReplies += 1;
        this.opts.log.info({ request: owed.line, type }, 'discarded the late reply of an abandoned request');
        this.pump();
        return;
      }
    }
    this.stats.strayReplies += 1;
    this.opts.log.warn({ type, inFlight: job?.line ?? null }, 'discarded a reply that matches no request');
  }

  private cancel(job: Job): void {
    if (job.settled) return;
    const index = this.queue.indexOf(job);
    if (index !== -1) {
      this.queue.splice(index, 1);
      this.stats.cancelled += 1;
      this.settle(job, cancelledError(job.line));
      return;
    }
    if (this.inFlight === job) this.abandon(job, 'cancel');
  }

  /** Give up on the in-flight request; its reply is now owed and blocks the next send. */
  private abandon(job: Job, why: 'timeout' | 'cancel'): void {
    if (this.inFlight !== job) return;
    this.inFlight = null;
    const conn = this.conn;
    const timer = setTimeout(() => {
      if (this.owed?.timer !== timer || !conn) return;
      this.opts.log.warn({ request: job.line }, 'an abandoned request stayed unanswered; resetting the mod connection');
      this.reconnectNow = true;
      conn.close();
    }, Math.max(this.opts.owedGraceMs, 1));
    this.owed = { line: job.line, replies: job.replies, timer };
    if (why === 'timeout') {
      this.stats.timeouts += 1;
      this.settle(job, new McbridgeError('timeout', `no response for '${job.line}' within ${(job.timeoutMs / 1000).toFixed(1)}s`, {
        request: job.line,
        timeoutMs: job.timeoutMs,
      }));
    } else {
      this.stats.cancelled += 1;
      this.settle(job, cancelledError(job.line));
    }
  }

  private settle(job: Job, error: McbridgeError | null, reply?: ModReply): void {
    if (job.settled) return;
    job.settled = true;
    if (job.timer) clearTimeout(job.timer);
    job.detach?.();
    if (error) job.reject(error);
    else job.resolve(reply as ModReply);
  }

  // ---- blocking verbs: a connection of their own ----------------------------------

  private async sideRequest(line: string, replies: readonly string[], timeoutMs: number, signal: AbortSignal | undefined): Promise<ModReply> {
    await this.acquireSide(signal, line);
    const port = this.port;
    this.stats.sideRequests += 1;
    try {
      if (port === null) throw this.notConnectedError();
      return await new Promise<ModReply>((resolve, reject) => {
        let conn: ModConnection | null = null;
        let greeted = false;
        let done = false;
        const finish = (err: McbridgeError | null, reply?: ModReply) => {
          if (done) return;
          done = true;
          this.sideAborts.delete(onStop);
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          conn?.close();
          if (err) reject(err);
          else resolve(reply as ModReply);
        };
        const timer = setTimeout(() => {
          this.stats.timeouts += 1;
          finish(new McbridgeError('timeout', `no response for '${line}' within ${(timeoutMs / 1000).toFixed(1)}s`, { request: line, timeoutMs }));
        }, timeoutMs);
        const onAbort = () => {
          this.stats.cancelled += 1;
          finish(cancelledError(line));
        };
        const onStop = () => finish(new McbridgeError('unavailable', `the daemon stopped before '${line}' was answered`));
        this.sideAborts.add(onStop);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted) {
          onAbort();
          return;
        }
        ModConnection.open(this.opts.modHost, port, {
          onHello: () => {
            greeted = true;
            conn?.write(line);
          },
          onEvent: () => {}, // the main connection records every event once
          onReply: (reply) => {
            const type = replyType(reply);
            if (type === 'error') finish(modErrorOf(line, reply));
            else if (replies.length === 0 || (type !== undefined && replies.includes(type))) finish(null, reply as ModReply);
          },
          onBadLine: () => {
            this.stats.badLines += 1;
          },
          onClose: (err) => {
            finish(new McbridgeError('not_connected', `the mod connection for '${line}' closed before its reply${err ? ` (${err.message})` : ''}`));
          },
        }, { connectTimeoutMs: this.opts.connectTimeoutMs, maxLineBytes: this.opts.maxLineBytes }).then(
          (opened) => {
            conn = opened;
            if (done) opened.close();
            else if (greeted) opened.write(line);
          },
          (err: Error) => finish(new McbridgeError('not_connected', `cannot open a connection for '${line}': ${err.message}`)),
        );
      });
    } finally {
      this.releaseSide();
    }
  }

  private async acquireSide(signal: AbortSignal | undefined, line: string): Promise<void> {
    if (signal?.aborted) throw cancelledError(line);
    if (this.sideActive < this.opts.maxSideRequests) {
      this.sideActive += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.sideActive += 1;
        resolve();
      };
      const onAbort = () => {
        this.sideWaiters = this.sideWaiters.filter((w) => w !== grant);
        reject(cancelledError(line));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sideWaiters.push(grant);
    });
  }

  private releaseSide(): void {
    this.sideActive -= 1;
    this.sideWaiters.shift()?.();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

function waitForState(link: ModLink, wanted: LinkState, ms: number, signal: AbortSignal | undefined, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      link.off('state', onState);
      signal?.removeEventListener('abort', onAbort);
    };
    const onState = (state: LinkState) => {
      if (state === wanted) {
        cleanup();
        resolve();
      } else if (state !== 'negotiating') {
        cleanup();
        reject(link.notConnectedError());
      }
    };
    const onAbort = () => {
      cleanup();
      reject(cancelledError(line));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(link.notConnectedError());
    }, ms);
    link.on('state', onState);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

import { EventEmitter } from 'node:events';
import type { AbortLike } from '../cancel.js';
import { McbridgeError } from '../errors.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../util/lines.js';
import type { Logger } from '../../util/log.js';
import { missingCaps, normalizeCaps, type Caps } from './caps.js';
import type { ModConnection, ModMessage } from './connection.js';
import { resolvePort, type PortResolution, type Vantage } from './discovery.js';
import { Backoff } from './backoff.js';
import { openGreeted, untilReady } from './handshake.js';
import { cancelledError, loggable, newLinkStats, type LinkStats, type ModReply } from './replies.js';
import type { Link, LinkState, LinkStatus } from './link.js';
import { RequestQueue } from './request-queue.js';
import { SideRequests, type Deadline } from './side-requests.js';
import { resolveVerb, type ResolvedVerb, type VerbLookup } from './verbs.js';
import { checkRequestId, RequestIds, sendWrite, withWriteOutcome, WriteLedger } from './writes.js';

export type { LinkStats, ModMessage, ModReply };
export type { LinkState, LinkStatus };

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
  /** How long a reply byte-equal to the previous one of its type is kept back as a possible copy (docs/decisions.md). */
  echoWindowMs?: number;
  maxLineBytes?: number;
  /** Concurrent blocking verbs (long WAITs), each on a connection of its own. */
  maxSideRequests?: number;
  /** The verbs plugins declared (the registry's lookup); a verb nobody declared takes any reply. */
  verbs?: VerbLookup;
  /** Where the write ledger outlives the daemon (its state folder, one file per target); without it, memory only. */
  ledgerFile?: string;
  log: Logger;
  /**
   * Mod events, the greeting hello and the link's synthetic events, in arrival order;
   * `line` is the mod's JSON text for an event that came over the wire as one.
   */
  onEvent(event: ModMessage, line?: string): void;
}

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortLike;
  /** Reply types that answer this line, instead of those its verb's declaration names. */
  replies?: readonly string[];
  /**
   * Send it on a short-lived connection of its own, as blocking verbs go, instead of the main
   * connection's queue. For a clean-up that must not wait behind a reply the main connection still
   * owes (a cancelled request the mod never answers holds it up to `owedGraceMs`). Its reply cannot
   * be confused with any other; the price is a connection and a greeting, and no order with
   * requests still out on the main connection: use it only when nothing out there must land first.
   */
  ownConnection?: boolean;
  /** A write's request id, the caller's (to resolve or resend it later); one is made when none is given. */
  requestId?: string;
}

type OptionalSettings = 'modPort' | 'portFile' | 'serverDir' | 'cwd' | 'env' | 'verbs' | 'ledgerFile';

/**
 * The one connection to the mod: discovery, connect, greeting, CAPS negotiation and reconnect
 * with backoff live here. Requests go through the RequestQueue, one at a time except for
 * reader-thread verbs that overtake a slow one (replies carry no ids); blocking verbs (WAIT n > 0) go through SideRequests, on connections of their own. How a
 * verb is answered comes from the plugins that declared it (`verbs`), except for the protocol's
 * own CAPS and PING.
 */
export class ModLink extends EventEmitter implements Link {
  readonly transport = 'legacy' as const;
  /** The legacy socket has no credential: whatever reaches it may do everything. */
  readonly permissions = null;
  private readonly opts: Required<Omit<ModLinkOptions, OptionalSettings>> & Pick<ModLinkOptions, OptionalSettings>;
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
  private readonly backoff: Backoff;
  private loop: Promise<void> | null = null;
  readonly stats: LinkStats = newLinkStats();
  private readonly queue: RequestQueue;
  private readonly side: SideRequests;
  private readonly ids = new RequestIds('lg-');
  readonly writes: WriteLedger;

  constructor(options: ModLinkOptions) {
    super();
    this.writes = new WriteLedger(undefined, options.ledgerFile === undefined ? undefined : { file: options.ledgerFile, log: options.log });
    this.opts = {
      modHost: '127.0.0.1',
      reconnectMinMs: 250,
      reconnectMaxMs: 5_000,
      connectTimeoutMs: 5_000,
      helloTimeoutMs: 5_000,
      capsTimeoutMs: 10_000,
      owedGraceMs: 10_000,
      // Twice Linux's minimum delayed ACK: a copy from a mod that keeps Nagle's algorithm on trails by that much.
      echoWindowMs: 100,
      maxLineBytes: DEFAULT_MAX_LINE_BYTES,
      maxSideRequests: 16,
      ...options,
    };
    this.backoff = new Backoff(this.opts.reconnectMinMs, this.opts.reconnectMaxMs);
    this.queue = new RequestQueue({
      stats: this.stats,
      log: this.opts.log,
      owedGraceMs: this.opts.owedGraceMs,
      echoWindowMs: this.opts.echoWindowMs,
      onOwedExpired: (conn) => {
        this.backoff.skipNextPause();
        conn.close();
      },
    });
    this.side = new SideRequests({
      modHost: this.opts.modHost,
      connectTimeoutMs: this.opts.connectTimeoutMs,
      maxLineBytes: this.opts.maxLineBytes,
      max: this.opts.maxSideRequests,
      stats: this.stats,
    });
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

  retryNow(): void {
    this.backoff.reset();
    this.backoff.interrupt();
  }

  async stop(): Promise<void> {
    this.setState('stopped');
    this.backoff.interrupt();
    this.conn?.close();
    this.opening?.close();
    this.queue.stop();
    this.side.stopAll();
    await this.loop;
    await this.writes.close();
  }

  /** The game folder this link discovers the mod's port in, as configured. */
  get serverDir(): string | null {
    return this.opts.serverDir ?? null;
  }

  status(): LinkStatus {
    return {
      transport: 'legacy',
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
      ...this.queue.status(),
      stats: { ...this.stats },
      writes: this.writes.summary(),
    };
  }

  /**
   * Send one verb line and resolve with its reply. A mod `error` reply rejects with `mod_error`.
   * Not an async function: on a ready link a request is one promise, the queue's (every call
   * makes one, and each async layer was a measurable part of a call); it never throws, it rejects.
   */
  request(line: string, options: RequestOptions = {}): Promise<ModReply> {
    // The timeout counts from here: time spent waiting for the connection or in the queue is part of it.
    const arrivedAt = Date.now();
    try {
      const trimmed = line.trim();
      if (trimmed === '') throw new McbridgeError('invalid_params', 'a mod request needs a verb, e.g. "PING"');
      if (/[\r\n]/.test(trimmed)) {
        throw new McbridgeError('invalid_params', 'a mod request must be a single line: remove the line breaks from its arguments');
      }
      const spec = resolveVerb(trimmed, this.opts.verbs);
      if (spec.write) return this.write(trimmed, spec, options, arrivedAt);
      // The legacy mod keeps no ledger: the daemon's own answers (it outlives a daemon restart).
      if (spec.control?.op === 'request_status') return Promise.resolve(this.writes.statusOf(String(spec.control.params?.requestId)));
      if (options.signal?.aborted) throw cancelledError(trimmed);
      if (!spec.legacy) throw this.controlOnly(trimmed);
      if (this.state === 'ready') return this.send(trimmed, spec, options, arrivedAt);
      return this.whenUsable(options.signal, trimmed).then(() => this.send(trimmed, spec, options, arrivedAt));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** A write: admitted by its request id (the ledger answers an id it has seen); its errors say whether it was sent. */
  private write(line: string, spec: ResolvedVerb, options: RequestOptions, arrivedAt: number): Promise<ModReply> {
    const id = options.requestId === undefined ? this.ids.next() : checkRequestId(options.requestId);
    if (options.signal?.aborted) return Promise.reject(withWriteOutcome(cancelledError(line), false, id));
    if (!spec.legacy) return Promise.reject(withWriteOutcome(this.controlOnly(line), false, id));
    // On a ready link it is enqueued now, in the order it was asked, as any other request.
    const send = () => {
      const go = () => this.send(line, spec, { ...options, requestId: id }, arrivedAt);
      return this.state === 'ready' ? go() : this.whenUsable(options.signal, line).then(go);
    };
    return sendWrite(this.writes, id, line, send, { sentOnError: spec.blocking || options.ownConnection === true });
  }

  private controlOnly(line: string): McbridgeError {
    return new McbridgeError(
      'unsupported_capability',
      `'${line}' exists only in the mod's control protocol, and this target reaches its mod over the legacy loopback link, so nothing was sent. ` +
        'Configure the target with `transport: control` (docs/control.md) to use it.',
      { request: line, transport: 'legacy' },
    );
  }

  /** The request, on a link that is up (or negotiating its CAPS). */
  private send(line: string, spec: ResolvedVerb, options: RequestOptions, arrivedAt: number): Promise<ModReply> {
    const replies = options.replies ?? spec.replies;
    const timeoutMs = options.timeoutMs ?? spec.timeoutMs;
    this.refuseWithoutCaps(line, spec);
    this.stats.requests += 1;
    if (!spec.declared && options.replies === undefined) {
      this.stats.undeclaredVerbs += 1;
      this.opts.log.debug({ request: line }, 'no plugin declares this verb; taking any reply as its answer');
    }
    if (spec.blocking || options.ownConnection) return this.sideRequest(line, replies, { timeoutMs, arrivedAt }, options.signal);
    const pending = this.queue.enqueue(line, { replies, immediate: spec.immediate, requestId: spec.write ? options.requestId : undefined }, timeoutMs, arrivedAt, options.signal);
    // Whoever asks CAPS refreshes the link's view: the surface follows the mod. (No replies named: any may answer.)
    return replies.length === 0 || replies.includes('capabilities') ? pending.then((reply) => this.noteCaps(reply)) : pending;
  }

  private noteCaps(reply: ModReply): ModReply {
    if (reply.type === 'capabilities' && Array.isArray(reply.capabilities)) {
      if (typeof reply.instance === 'string' && reply.instance) this.instance = reply.instance;
      this.setCaps(normalizeCaps(reply.capabilities), 'caps');
    }
    return reply;
  }

  /** A blocking verb on a connection of its own (side-requests.ts), logged at debug like the queue's. */
  private async sideRequest(line: string, replies: readonly string[], deadline: Deadline, signal: AbortLike | undefined): Promise<ModReply> {
    const log = this.opts.log;
    const debug = log.isLevelEnabled('debug');
    const shown = debug ? loggable(line) : '';
    if (debug) log.debug({ request: shown, side: true }, `sent ${shown} on a connection of its own`);
    try {
      const reply = await this.side.request(
        () => this.port,
        () => this.notConnectedError(),
        line,
        replies,
        deadline,
        signal,
      );
      if (debug) log.debug({ request: shown, type: reply.type, ms: Date.now() - deadline.arrivedAt }, `mod replied ${String(reply.type)} to ${shown}`);
      return reply;
    } catch (err) {
      if (debug) {
        const code = (err as McbridgeError).code;
        log.debug({ request: shown, code, ms: Date.now() - deadline.arrivedAt }, code === 'cancelled' ? `cancelled ${shown}` : `${shown} failed: ${loggable((err as Error).message)}`);
      }
      throw err;
    }
  }

  /** A verb whose declared CAPS the connected mod does not advertise is not sent at all. */
  private refuseWithoutCaps(line: string, spec: ResolvedVerb): void {
    const missing = missingCaps(this.capsValue, spec.requires);
    if (missing.length === 0) return;
    const list = missing.map((m) => `'${m}'`).join(', ');
    throw new McbridgeError(
      'unsupported_capability',
      `'${line}' needs ${list}, which the connected ${this.instance ?? this.opts.vantage} mod does not advertise, so nothing was sent. ` + 'Run `mcbridge tools` for what this mod supports.',
      { request: line, missing, vantage: this.opts.vantage, instance: this.instance },
    );
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
      if (this.opts.log.isLevelEnabled('debug')) {
        this.opts.log.debug({ host: this.opts.modHost, port: resolution.port, source: resolution.source }, `connecting to the mod on ${this.opts.modHost}:${resolution.port} (${resolution.source})`);
      }
      let session: { closed: Promise<void> };
      try {
        session = await this.connectOnce(resolution.port);
      } catch (err) {
        if (this.isStopped()) break;
        this.noteError(`cannot reach interface mod on ${this.opts.modHost}:${resolution.port}: ${(err as Error).message}`);
        await this.pause();
        continue;
      }
      this.backoff.reset();
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
    const { conn, hello, instance, closed } = await openGreeted(
      port,
      {
        host: this.opts.modHost,
        vantage: this.opts.vantage,
        connectTimeoutMs: this.opts.connectTimeoutMs,
        helloTimeoutMs: this.opts.helloTimeoutMs,
        maxLineBytes: this.opts.maxLineBytes,
        isStopped: () => this.isStopped(),
        opening: (opening) => (this.opening = opening),
      },
      {
        onEvent: (event, line) => this.opts.onEvent(event, line),
        onReply: (from, reply, line) => this.queue.onReply(from, reply, line),
        onBadLine: (problem) => {
          this.stats.badLines += 1;
          this.opts.log.warn({ port }, `mod sent a bad line: ${problem}`);
        },
        onClose: (from, err) => {
          if (this.conn === from) this.onConnectionClosed(port, err);
        },
      },
    );
    this.conn = conn;
    this.port = port;
    this.hello = hello;
    this.instance = instance;
    this.stats.connections += 1;
    this.opts.onEvent(hello);
    this.queue.attach(conn);
    this.setState('negotiating');
    await this.negotiateCaps(hello);
    if (conn.isClosed) throw new Error('the connection closed during capability negotiation');
    this.lastError = null;
    this.lastLoggedError = null;
    this.connectedAt = Date.now();
    this.setState('ready');
    this.opts.log.info({ port, instance: this.instance, caps: this.capsValue ? [...this.capsValue] : null }, `connected to ${this.instance ?? 'interface'} mod on port ${port}`);
    return { closed };
  }

  private async negotiateCaps(hello: ModMessage): Promise<void> {
    try {
      const caps = resolveVerb('CAPS', undefined);
      const reply = await this.queue.enqueue('CAPS', caps, this.opts.capsTimeoutMs, Date.now(), undefined);
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
    this.queue.detach(reason);
    if (this.state !== 'stopped') {
      this.setState('connecting');
      if (wasReady) {
        this.noteError(reason);
        this.opts.onEvent({ type: 'bridge_disconnected', text: `mod connection on port ${port} closed` });
      }
    }
  }

  private pause(): Promise<void> {
    return this.isStopped() ? Promise.resolve() : this.backoff.pause();
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

  private async whenUsable(signal: AbortLike | undefined, line: string): Promise<void> {
    if (this.state === 'ready') return;
    if (this.state === 'stopped') throw new McbridgeError('unavailable', 'the daemon is shutting down');
    if (this.state === 'negotiating') {
      await untilReady(this, this.opts.capsTimeoutMs + 1_000, signal, line, () => this.notConnectedError());
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
}

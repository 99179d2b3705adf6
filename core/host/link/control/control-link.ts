/**
 * The mod link over control protocol 1 (docs/control.md): TLS to the game port, the server
 * verified by pin or CA, a credential, many requests in flight matched by id, sequenced events
 * replayed after a reconnect, and writes whose lost answers the server's ledger resolves.
 */
import { EventEmitter } from 'node:events';
import type tls from 'node:tls';
import { McbridgeError } from '../../errors.js';
import type { Logger } from '../../../util/log.js';
import { Backoff } from '../backoff.js';
import { missingCaps, normalizeCaps, type Caps } from '../caps.js';
import type { ModMessage } from '../connection.js';
import type { Vantage } from '../discovery.js';
import type { Link, LinkState, LinkStatus } from '../link.js';
import type { RequestOptions } from '../mod-link.js';
import { cancelledError, newLinkStats, type LinkStats, type ModReply } from '../replies.js';
import { resolveVerb, type ResolvedVerb, type VerbLookup } from '../verbs.js';
import { checkRequestId, RequestIds, sendWrite, WriteLedger } from '../writes.js';
import { credentialSource, readCredential, type CredentialSettings } from './credential.js';
import { EventStream } from './event-stream.js';
import { DEFAULT_MAX_FRAME_BYTES, encodeFrame, type FrameReader } from './frames.js';
import { boundLimits, type SessionLimits } from './limits.js';
import { livenessOf, type Liveness, Watchdog } from './liveness.js';
import { DEFAULT_FRAMES_PER_TURN, readFrames } from './reading.js';
import { checkStatusReply, ControlRequests, replyError, resultOf, wireName, type ControlRequest } from './requests.js';
import { fatalMessage, openSession, type Welcome } from './session.js';
import type { TrustSettings } from './trust.js';

export interface ControlLinkOptions extends TrustSettings, CredentialSettings {
  vantage: Vantage;
  /** `host:port` of the game port (IPv6 as `[::1]:25565`). */
  address: string;
  env?: NodeJS.ProcessEnv;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  connectTimeoutMs?: number;
  /** TLS and hello → welcome. */
  helloTimeoutMs?: number;
  maxFrameBytes?: number;
  /** Requests that may wait here while the server's pending limit is reached. */
  maxQueued?: number;
  verbs?: VerbLookup;
  /** Where the write ledger outlives the daemon (its state folder, one file per target); without it, memory only. */
  ledgerFile?: string;
  /** Internal (tests): the silence before a ping and before the session is declared dead, instead of the idle-derived ones. */
  liveness?: Partial<Liveness>;
  /** Internal: frames handled per turn of the event loop before the socket is paused for the others. */
  framesPerTurn?: number;
  log: Logger;
  onEvent(event: ModMessage, line?: string): void;
}

/** `host:port`, `[v6]:port`; null when it is neither. */
export function parseAddress(address: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]/]+)):(\d{1,5})$/.exec(address.trim());
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: m[1] ?? m[2]!, port };
}

export class ControlLink extends EventEmitter implements Link {
  readonly transport = 'control' as const;
  readonly stats: LinkStats = newLinkStats();
  readonly writes: WriteLedger;
  private readonly opts: ControlLinkOptions & { host: string; port: number };
  private state: LinkState = 'idle';
  private socket: tls.TLSSocket | null = null;
  private opening: tls.TLSSocket | null = null;
  private welcome: Welcome | null = null;
  private capsValue: Caps | null = null;
  private lastError: string | null = null;
  private lastLoggedError: string | null = null;
  private connectedAt: number | null = null;
  private limits: SessionLimits = boundLimits(undefined);
  private liveness: Liveness = livenessOf(this.limits);
  private readonly watch = new Watchdog({
    // Sent as the link's own request: no permission or plugin gates it, and it counts for nothing.
    ping: (timeoutMs) => this.requests.enqueue({ id: this.ids.next(), op: 'ping', params: {}, line: 'ping', timeoutMs, arrivedAt: Date.now(), write: false }),
    dead: (silentMs) => {
      this.noteError(`the server at ${this.opts.address} sent nothing for ${(silentMs / 1000).toFixed(1)} s, a ping unanswered: the session is dead; reconnecting`);
      this.socket?.destroy();
    },
  });
  private loop: Promise<void> | null = null;
  private readonly backoff: Backoff;
  private readonly ids = new RequestIds();
  private readonly requests: ControlRequests;
  private readonly stream: EventStream;

  constructor(options: ControlLinkOptions) {
    super();
    const at = parseAddress(options.address);
    if (!at) throw new McbridgeError('invalid_params', `address '${options.address}' is not host:port (e.g. mc.example.org:25565, or [::1]:25565)`);
    if (options.pin === undefined && options.caFile === undefined && options.serverDir === undefined) {
      throw new McbridgeError('invalid_params', 'a control target needs the server verified: give pin (sha256:…), caFile, or serverDir (whose control/fingerprint.txt is read)');
    }
    if (credentialSource(options) === null) throw new McbridgeError('invalid_params', 'a control target needs a credential: tokenFile or tokenEnv');
    this.opts = { ...options, ...at };
    this.writes = new WriteLedger(undefined, options.ledgerFile === undefined ? undefined : { file: options.ledgerFile, log: options.log });
    this.backoff = new Backoff(options.reconnectMinMs ?? 250, options.reconnectMaxMs ?? 5_000);
    this.requests = new ControlRequests(
      options.maxQueued ?? 4096,
      (id, reply, error) => this.lateAnswer(id, reply, error),
      (sent) => {
        this.stats.timeouts += 1;
        if (!sent) this.stats.queueTimeouts += 1;
      },
    );
    this.stream = new EventStream((event) => this.opts.onEvent(event));
  }

  get vantage(): Vantage {
    return this.opts.vantage;
  }

  get caps(): Caps | null {
    return this.capsValue;
  }

  get connected(): boolean {
    return this.state === 'ready';
  }

  get serverDir(): string | null {
    return this.opts.serverDir ?? null;
  }

  get permissions(): readonly string[] | null {
    return this.welcome?.permissions ?? null;
  }

  capsInfo(): { connected: boolean; capsSource: 'caps' | 'hello' | null; instance: string | null; minecraft: string | null } {
    return { connected: this.connected, capsSource: this.capsValue ? 'hello' : null, instance: this.welcome ? this.opts.vantage : null, minecraft: this.welcome?.minecraft ?? null };
  }

  start(): void {
    if (!this.loop) this.loop = this.runLoop();
  }

  retryNow(): void {
    this.backoff.reset();
    this.backoff.interrupt();
  }

  async stop(): Promise<void> {
    this.setState('stopped');
    this.backoff.interrupt();
    this.socket?.destroy();
    this.opening?.destroy();
    this.requests.detach('the daemon stopped');
    await this.loop;
    await this.writes.close();
  }

  request(line: string, options: RequestOptions = {}): Promise<ModReply> {
    const arrivedAt = Date.now();
    try {
      const trimmed = line.trim();
      if (trimmed === '') throw new McbridgeError('invalid_params', 'a mod request needs a verb, e.g. "PING"');
      if (/[\r\n]/.test(trimmed)) throw new McbridgeError('invalid_params', 'a mod request must be a single line: remove the line breaks from its arguments');
      const spec = resolveVerb(trimmed, this.opts.verbs);
      if (spec.control?.op === 'request_status') {
        return this.send(trimmed, spec, this.ids.next(), options, arrivedAt).then((status) => this.fromStatus(spec.control?.params?.requestId, status));
      }
      if (!spec.write) return this.send(trimmed, spec, this.ids.next(), options, arrivedAt);
      const id = options.requestId === undefined ? this.ids.next() : checkRequestId(options.requestId);
      return sendWrite(this.writes, id, trimmed, () => this.send(trimmed, spec, id, options, arrivedAt), { resendUnknown: true });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private send(line: string, spec: ResolvedVerb, id: string, options: RequestOptions, arrivedAt: number): Promise<ModReply> {
    if (options.signal?.aborted) return Promise.reject(cancelledError(line));
    if (spec.control === null) return Promise.reject(this.noControlForm(line));
    if (this.requests.has(id)) return Promise.reject(new McbridgeError('busy', `request ${id} is already in flight; wait for its answer`, { requestId: id }));
    const params = spec.control.params ?? {};
    const request: ControlRequest = {
      id,
      op: spec.control.op,
      params,
      line: wireName(spec.control.op, params),
      timeoutMs: options.timeoutMs ?? spec.timeoutMs,
      arrivedAt,
      write: spec.write,
    };
    if (options.signal) request.signal = options.signal;
    if (this.state !== 'ready') return Promise.reject(this.unusableError());
    this.refuse(line, spec);
    this.stats.requests += 1;
    const answer = this.requests.enqueue(request);
    return request.op === 'request_status' ? answer.then((reply) => checkStatusReply(reply, params.requestId, request.line)) : answer;
  }

  /** Refused before anything is sent: the credential's permissions, the server's CAPS. */
  private refuse(line: string, spec: ResolvedVerb): void {
    const need = spec.write ? 'write' : 'read';
    const permissions = this.permissions ?? [];
    if (!permissions.includes(need)) {
      throw new McbridgeError(
        'forbidden',
        `'${line}' needs the ${need} permission, and this target's credential (${credentialSource(this.opts)}) has ${permissions.join(', ') || 'none'}; nothing was sent. ` +
          `Mint one with ${need} on the server console (/mcagent control token add <label> read+write)`,
        { request: line, permissions: [...permissions] },
      );
    }
    const missing = missingCaps(this.capsValue, spec.requires);
    if (missing.length > 0) {
      throw new McbridgeError('unsupported_capability', `'${line}' needs ${missing.map((m) => `'${m}'`).join(', ')}, which the server does not advertise, so nothing was sent`, {
        request: line,
        missing,
      });
    }
  }

  private noControlForm(line: string): McbridgeError {
    return new McbridgeError(
      'unsupported_capability',
      `'${line}' has no form in the mod's control protocol (it needs the legacy link, or the world's disk), so nothing was sent to the server at ${this.opts.address}`,
      { request: line, transport: 'control' },
    );
  }

  // ---- sessions ---------------------------------------------------------------------

  private async runLoop(): Promise<void> {
    while (this.state !== 'stopped') {
      this.setState('connecting');
      let closed: Promise<void>;
      try {
        ({ closed } = await this.connectOnce());
      } catch (err) {
        if (this.isStopped()) break;
        this.noteError((err as Error).message);
        await this.backoff.pause();
        continue;
      }
      this.backoff.reset();
      await closed;
      if (this.isStopped()) break;
      await this.backoff.pause();
    }
  }

  private async connectOnce(): Promise<{ closed: Promise<void> }> {
    const credential = readCredential(this.opts, this.opts.env);
    const position = this.stream.position();
    const session = await openSession({
      host: this.opts.host,
      port: this.opts.port,
      trust: this.opts,
      credential,
      lastSeq: position.lastSeq,
      runId: position.runId,
      maxFrameBytes: this.opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
      connectTimeoutMs: this.opts.connectTimeoutMs ?? 5_000,
      handshakeTimeoutMs: this.opts.helloTimeoutMs ?? 10_000,
      opening: (socket) => (this.opening = socket),
    });
    this.opening = null;
    const { socket, welcome, reader, early } = session;
    if (this.isStopped()) {
      socket.destroy();
      throw new Error('stopped');
    }
    const previousRun = position.runId;
    this.socket = socket;
    this.welcome = welcome;
    this.limits = boundLimits(welcome.limits);
    this.liveness = livenessOf(this.limits, this.opts.liveness);
    this.stats.connections += 1;
    this.stream.welcome(welcome);
    this.setCaps(normalizeCaps(welcome.capabilities));
    const closed: Promise<void> = this.attach(socket, reader, welcome);
    for (const frame of early) this.onFrame(socket, frame);
    this.lastError = null;
    this.lastLoggedError = null;
    this.connectedAt = Date.now();
    this.setState('ready');
    this.opts.log.info(
      { address: this.opts.address, runId: welcome.runId, permissions: welcome.permissions, credential: credential.id },
      `connected to the control listener on ${this.opts.address} (run ${welcome.runId}, ${welcome.permissions.join('+') || 'no'} permissions)`,
    );
    void this.reconcile(previousRun, welcome.runId);
    return { closed };
  }

  /** Take the socket over: frames in, keep-alive out, and the close that ends the session. */
  private attach(socket: tls.TLSSocket, reader: FrameReader, _welcome: Welcome): Promise<void> {
    this.requests.attach((job) => this.write(socket, { type: 'request', id: job.id, op: job.op, params: job.params, timeoutMillis: job.timeoutMs }), this.limits.maxPendingRequests);
    this.watch.start(this.liveness);
    readFrames(socket, reader, this.opts.framesPerTurn ?? DEFAULT_FRAMES_PER_TURN, {
      heard: () => this.watch.heard(),
      frame: (frame) => this.onFrame(socket, frame),
      bad: (err) => {
        this.noteError(`the server at ${this.opts.address} sent a bad frame (${err.message}); reconnecting`);
        socket.destroy();
      },
    });
    return new Promise((resolve) => {
      socket.on('error', (err) => this.noteError(`the control session with ${this.opts.address} failed: ${err.message}`));
      socket.on('close', () => {
        this.onClosed(socket);
        resolve();
      });
    });
  }

  private onFrame(socket: tls.TLSSocket, frame: Record<string, unknown>): void {
    if (socket !== this.socket) return;
    switch (frame.type) {
      case 'reply':
        if (!this.requests.onReply(frame)) this.stats.strayReplies += 1;
        return;
      case 'event':
        if (!this.stream.envelope(frame)) this.stats.badLines += 1;
        return;
      case 'error': {
        const fatal = fatalMessage(frame);
        this.noteError(fatal.message);
        socket.destroy();
        return;
      }
      default:
        // A second welcome, or a frame type protocol 1 does not have: the session cannot be trusted.
        this.noteError(`the server at ${this.opts.address} sent an unexpected '${String(frame.type).slice(0, 40)}' frame; reconnecting`);
        this.stats.badLines += 1;
        socket.destroy();
    }
  }

  private write(socket: tls.TLSSocket, frame: Record<string, unknown>): void {
    const bytes = encodeFrame(frame);
    const max = this.limits.maxFrameBytes;
    if (bytes.length - 4 > max) {
      // Settle it as the server would, without sending: a frame over the limit ends the session.
      this.requests.onReply({
        type: 'reply',
        ok: false,
        id: frame.id,
        error: { code: 'frame_too_large', message: `the request is ${bytes.length - 4} bytes, over the server's ${max}-byte frame limit; nothing was sent`, retryable: false, resultUnknown: false },
      });
      return;
    }
    this.watch.sent();
    socket.write(bytes);
  }

  private onClosed(socket: tls.TLSSocket): void {
    if (socket !== this.socket) return;
    this.socket = null;
    this.connectedAt = null;
    this.watch.stop();
    const reason = `the control session with ${this.opts.address} closed`;
    this.requests.detach(reason);
    if (this.state !== 'stopped') {
      this.setState('connecting');
      this.noteError(this.lastError ?? reason);
      this.opts.onEvent({ type: 'bridge_disconnected', text: reason });
    }
  }

  /**
   * Writes whose answer never came, resolved by the server's ledger after a reconnect. On a new
   * run its ledger is gone: they stay unresolved, said in an event, never sent again.
   */
  private async reconcile(previousRun: string | null, runId: string): Promise<void> {
    for (const id of this.writes.unknownIds().slice(0, 64)) {
      if (previousRun !== null && previousRun !== runId) {
        this.opts.onEvent({
          type: 'bridge_request_resolved',
          requestId: id,
          state: 'unresolved',
          text: `the game restarted before request ${id} could be checked: its result stays unknown; do not retry blindly`,
        });
        continue;
      }
      try {
        const status = this.fromStatus(id, await this.ledgerStatus(id));
        const state = typeof status.state === 'string' ? status.state : 'unknown';
        if (state === 'completed' || state === 'failed' || state === 'unknown') {
          this.opts.onEvent({ type: 'bridge_request_resolved', requestId: id, state, text: `request ${id}: the server says ${state}` });
        }
      } catch {
        return; // the link went again; the next session tries again
      }
    }
  }

  /** The link's own question to the server's ledger: no plugin needs to be loaded for it. */
  private ledgerStatus(id: string): Promise<ModReply> {
    const line = `request_status ${id}`;
    const spec: ResolvedVerb = { ...resolveVerb(line, undefined), control: { op: 'request_status', params: { requestId: id } }, timeoutMs: 10_000 };
    return this.send(line, spec, this.ids.next(), {}, Date.now());
  }

  private lateAnswer(id: string, reply: ModReply | null, error: unknown): void {
    this.stats.lateReplies += 1;
    if (!this.writes.isUnknown(id)) return;
    const failure = reply === null ? replyError({ id, line: id }, error, true) : null;
    this.writes.settle(id, reply, failure);
    // A late `resultUnknown` (the server's own deadline passed) leaves it unknown: request_status resolves it.
    const state = failure === null ? 'completed' : failure.outcome?.resultUnknown ? 'unknown' : 'failed';
    this.opts.onEvent({ type: 'bridge_request_resolved', requestId: id, state, text: `the answer to request ${id} came after its caller stopped waiting: ${state}` });
  }

  /** What the server's ledger says of a write this daemon lost the answer of becomes the daemon's record too. */
  private fromStatus(id: unknown, status: ModReply): ModReply {
    if (typeof id !== 'string' || (status.requestId !== undefined && status.requestId !== id) || !this.writes.isUnknown(id)) return status;
    if (status.state === 'completed') this.writes.settle(id, resultOf(status), null);
    if (status.state === 'failed') this.writes.settle(id, null, replyError({ id, line: id }, status.error, false).withOutcome({ retryable: false, resultUnknown: false, requestId: id }));
    return status;
  }

  // ---- state ------------------------------------------------------------------------

  /** A session is ready once its welcome came: there is no 'negotiating' to wait for, so a request not ready is refused at once. */
  private unusableError(): McbridgeError {
    return this.state === 'stopped' ? new McbridgeError('unavailable', 'the daemon is shutting down') : this.notConnectedError();
  }

  notConnectedError(): McbridgeError {
    return new McbridgeError(
      'not_connected',
      `the control listener on ${this.opts.address} is not connected (last error: ${this.lastError ?? 'none yet; still connecting'}). Check it with \`mcbridge status\``,
      { state: this.state, lastError: this.lastError },
    );
  }

  /** Read through a method: a stop() can come at any await. */
  private isStopped(): boolean {
    return this.state === 'stopped';
  }

  private setState(state: LinkState): void {
    if (this.state === state || this.state === 'stopped') return;
    this.state = state;
    this.emit('state', state);
  }

  private setCaps(caps: Caps | null): void {
    const key = (c: Caps | null) => (c ? [...c].sort().join(',') : null);
    const changed = key(caps) !== key(this.capsValue);
    this.capsValue = caps;
    if (changed) this.emit('caps', caps);
  }

  private noteError(message: string): void {
    this.lastError = message;
    if (message !== this.lastLoggedError) {
      this.lastLoggedError = message;
      this.opts.log.warn(message + (this.state === 'stopped' ? '' : '; retrying'));
    }
  }

  status(): LinkStatus {
    const w = this.welcome;
    return {
      transport: 'control',
      state: this.state,
      connected: this.connected,
      vantage: this.opts.vantage,
      instance: w ? this.opts.vantage : null,
      mod: { host: this.opts.host, port: this.opts.port, portSource: 'address' },
      discovery: null,
      hello: w,
      capabilities: this.capsValue ? [...this.capsValue].sort() : null,
      capsSource: this.capsValue ? 'hello' : null,
      lastError: this.lastError,
      connectedAt: this.connectedAt,
      ...this.requests.status(),
      owed: [],
      doubleAnswering: false,
      stats: { ...this.stats },
      control: {
        address: this.opts.address,
        trust: this.opts.caFile !== undefined ? `caFile ${this.opts.caFile}` : this.opts.pin !== undefined ? 'pin' : `pin from ${this.opts.serverDir}`,
        credential: credentialSource(this.opts),
        permissions: w?.permissions ?? null,
        instanceId: w?.instanceId ?? null,
        runId: w?.runId ?? null,
        sessionId: w?.sessionId ?? null,
        limits: w ? { ...this.limits } : null,
        liveness: this.watch.status(this.liveness),
        lastSeq: this.stream.position().lastSeq,
        events: { ...this.stream.stats },
        writes: this.writes.summary(),
      },
    };
  }
}

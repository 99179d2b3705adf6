import net from 'node:net';
import { McbridgeError, toMcbridgeError } from '../host/errors.js';
import type { RecordedEvent } from '../host/events/event-log.js';
import { Cancellation } from '../host/cancel.js';
import { replyText } from '../host/link/reply-text.js';
import { ActivityLog, type Caller } from './activity-log.js';
import { EventFrameEncoder } from './event-frames.js';
import { Host, describeZodError, type CallOptions } from '../host/host.js';
import type { RegisteredTool } from '../host/registry/registry.js';
import { fanOut, namesSeveral } from './fan-out.js';
import { Targets } from './targets.js';
import { linksSection, listTargets, ping, targetsManifest } from './target-views.js';
import { subscribe, takesEverything, targetAdded, targetRemoved, wants, type Connection, type EventBatch } from './subscriptions.js';
import { DEFAULT_MAX_LINE_BYTES } from '../util/lines.js';
import type { Logger } from '../util/log.js';
import { isLoopback } from '../util/net.js';
import { checkTokenStrength, ConnectionGuard, peerAddress, type GuardLimits, type PreAuth } from './connection-guard.js';
import { cancelParams, encodeFrame, errorFrame, SUBSCRIPTION_TOPICS, type GapFrame, type RequestFrame, type ServerFrame } from './frames.js';
import { parseRequestLine, type RequestId } from './request-line.js';
import { RequestReader } from './request-reader.js';
import { DEFAULT_API_HOST, DEFAULT_API_PORT } from './address.js';

export { DEFAULT_API_HOST, DEFAULT_API_PORT };

/**
 * A connection this far behind gets no more pushes until it drains (then a `gap` frame),
 * and no more of its request lines are read until then.
 */
export const DEFAULT_PUSH_BUFFER_BYTES = 8 * 1024 * 1024;
/**
 * Room past the push buffer for responses already owed when reading stopped (requests in
 * flight answer later); a connection whose unsent output passes both is closed.
 */
export const RESPONSE_OVERSHOOT_BYTES = 64 * 1024 * 1024;

export interface LocalApiOptions {
  host?: string;
  port?: number;
  /** Required on every request when set; required to bind a non-loopback address. */
  token?: string;
  /** Bind a non-loopback address (the API runs console commands). */
  allowRemote?: boolean;
  maxLineBytes?: number;
  /** Bytes a connection may have unread before it skips events (and gets a `gap` frame) and its requests wait. */
  pushBufferBytes?: number;
  /** Unsent bytes at which a connection is closed; default the push buffer plus `RESPONSE_OVERSHOOT_BYTES`. */
  maxOutputBytes?: number;
  /** Limits before the token arrives (only with a token); the defaults are documented in connection-guard.ts. */
  guard?: Partial<GuardLimits>;
  log: Logger;
  /** `stop` was called by a client. */
  onStop?: () => void;
  /** Where the activity log also goes, beside the process log: `--activity-log FILE`. */
  activityLog?: { file?: string; maxBytes?: number; keep?: number };
}

/**
 * The local JSON-lines API: one request object per line in, response, progress, event
 * and gap frames out. Requests on one connection run concurrently; `cancel` aborts one.
 */
export class LocalApiServer {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();
  readonly targets: Targets;
  /** Per attached host: what undoes the attaching. */
  private readonly attached = new Map<Host, () => void>();
  private readonly onTargetsChange: (change: { added?: Host; removed?: Host }) => void;
  /** Counts surface changes of every target, and targets coming and going: the merged manifest's revision. */
  private surfaceRevision = 0;
  private boundPort: number | null = null;
  private readonly bindHost: string;
  /** Events recorded in this tick, pushed to subscribers on the next one (see `deliver`). */
  private batch: EventBatch | null = null;
  private readonly encoder: EventFrameEncoder;
  private readonly pushBufferBytes: number;
  private readonly maxOutputBytes: number;
  private readonly guard: ConnectionGuard | null;
  private readonly activity: ActivityLog;
  private accepted = 0;

  constructor(
    hostOrTargets: Host | Targets,
    private readonly options: LocalApiOptions,
  ) {
    this.targets = hostOrTargets instanceof Host ? Targets.of(hostOrTargets) : hostOrTargets;
    this.bindHost = options.host ?? DEFAULT_API_HOST;
    this.server = net.createServer((socket) => this.accept(socket));
    this.encoder = new EventFrameEncoder((event) => (this.targets.get(event.target ?? '') ?? this.targets.hostsList()[0]!).events);
    this.pushBufferBytes = options.pushBufferBytes ?? DEFAULT_PUSH_BUFFER_BYTES;
    this.maxOutputBytes = options.maxOutputBytes ?? this.pushBufferBytes + RESPONSE_OVERSHOOT_BYTES;
    this.guard = options.token ? new ConnectionGuard(options.token, options.guard, options.log) : null;
    // The API's own logger: its lines say part "api" and carry the record under `activity`.
    this.activity = new ActivityLog({ ...options.activityLog, log: options.log });
    for (const host of this.targets.hostsList()) this.attach(host);
    this.onTargetsChange = ({ added, removed }) => {
      if (added) this.attach(added);
      if (removed) this.detach(removed);
      this.followTargets(added, removed);
      this.surfaceChanged();
    };
    this.targets.on('change', this.onTargetsChange);
  }

  /** Push a target's events and surface changes, and show the API (and every link) in its `status`. */
  private attach(host: Host): void {
    const unsubscribe = host.events.subscribe((event) => this.push(event));
    const onSurface = () => this.surfaceChanged();
    host.on('surface', onSurface);
    host.addStatusSection('api', () => this.apiStatus());
    if (this.targets.size > 1 || this.targets.defaultTarget !== null) host.addStatusSection('targets', () => linksSection(this.targets));
    this.attached.set(host, () => {
      unsubscribe();
      host.off('surface', onSurface);
    });
  }

  private detach(host: Host): void {
    this.attached.get(host)?.();
    this.attached.delete(host);
  }

  /**
   * Subscriptions follow a target's name: one removed is said in a `target` event and parked, a
   * target added takes its name's topics and those of `*`, and is said with its new stream.
   */
  private followTargets(added: Host | undefined, removed: Host | undefined): void {
    for (const conn of this.connections) {
      this.catchUp(conn); // the removed target's last events go out before the word that it went
      const host = (added ?? removed)!;
      if (!(added ? targetAdded(conn, host.target) : targetRemoved(conn, host.target))) continue;
      const data = { type: added ? 'target_added' : 'target_removed', target: host.target, streamId: host.events.streamId, subscribed: [...(conn.topics.get(host.target) ?? [])].sort() };
      this.send(conn, { type: 'event', event: 'target', data });
    }
  }

  private apiStatus(): Record<string, unknown> {
    const options = this.options;
    return {
      host: this.bindHost,
      port: this.boundPort,
      clients: this.connections.size,
      subscribers: [...this.connections].filter((c) => c.topics.size > 0).length,
      auth: options.token ? 'token' : 'none',
      pushBufferBytes: this.pushBufferBytes,
      /** Connections not being read because their unsent output is over the push buffer. */
      paused: [...this.connections].filter((c) => c.reader.paused).length,
      pendingAuth: this.guard?.pending ?? 0,
      ...(this.activity.status() ? { activityLog: this.activity.status() } : {}),
    };
  }

  /** Bind; refuses a short token, and a non-loopback address unless allowed and protected by a token. */
  async listen(): Promise<{ host: string; port: number }> {
    checkTokenStrength(this.options.token);
    if (!isLoopback(this.bindHost)) {
      if (!this.options.allowRemote) {
        throw new McbridgeError(
          'invalid_params',
          `refusing to bind the local API to ${this.bindHost}: it runs console commands. ` + 'Bind 127.0.0.1, or pass --allow-remote together with --api-token <secret> to expose it deliberately.',
        );
      }
      if (!this.options.token) {
        throw new McbridgeError('invalid_params', `refusing to bind the local API to ${this.bindHost} without a token: pass --api-token <secret> (or set MCBRIDGE_API_TOKEN).`);
      }
    }
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host: this.bindHost, port: this.options.port ?? DEFAULT_API_PORT }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address() as net.AddressInfo;
    this.boundPort = address.port;
    return { host: this.bindHost, port: address.port };
  }

  get port(): number | null {
    return this.boundPort;
  }

  async close(): Promise<void> {
    this.targets.off('change', this.onTargetsChange);
    for (const host of [...this.attached.keys()]) this.detach(host);
    for (const conn of this.connections) {
      for (const cancel of conn.inFlight.values()) cancel.abort();
      conn.socket.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.activity.close();
  }

  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    socket.on('error', () => {});
    const address = peerAddress(socket.remoteAddress);
    let preAuth: PreAuth | null = null;
    if (this.guard) {
      const admitted = this.guard.admit(address, (error) => this.refuse(conn, error));
      if (admitted instanceof McbridgeError) {
        socket.end(JSON.stringify(errorFrame(null, admitted)) + '\n');
        socket.destroy();
        return;
      }
      preAuth = admitted;
    }
    const maxLineBytes = this.options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    const conn: Connection = {
      n: ++this.accepted,
      socket,
      address,
      reader: new RequestReader(socket, {
        maxLineBytes,
        pauseAboveBytes: this.pushBufferBytes,
        preAuth,
        onLine: (line) => this.onLine(conn, line),
        onOverflow: (bytes) => this.send(conn, errorFrame(null, new McbridgeError('invalid_request', `request line of ${bytes} bytes exceeds the ${maxLineBytes}-byte limit; send smaller params`))),
        onAllowanceSpent: () =>
          this.refuse(conn, new McbridgeError('unauthorized', `no request carrying the token within the first ${this.guard!.limits.preAuthBytes} bytes; send "auth" with the first request`)),
      }),
      topics: new Map(),
      everyTarget: new Set(),
      parked: new Map(),
      inFlight: new Map(),
      gaps: new Map(),
      batch: null,
      delivered: 0,
    };
    this.connections.add(conn);
    socket.on('data', (chunk: Buffer) => conn.reader.read(chunk));
    socket.on('drain', () => {
      this.flushGap(conn);
      conn.reader.pump();
    });
    socket.on('close', () => {
      this.connections.delete(conn);
      conn.reader.closed();
      // A client that goes away cancels what it asked for (its WAITs stop).
      for (const cancel of conn.inFlight.values()) cancel.abort();
    });
  }

  /**
   * Close a connection that did not send the token in time or within its bytes, with one
   * answer saying why. What it sends meanwhile is read and dropped: closing with unread
   * input would reset the connection and could lose the answer.
   */
  private refuse(conn: Connection, error: McbridgeError): void {
    if (conn.socket.destroyed || conn.socket.writableEnded) return;
    this.options.log.debug({ address: conn.address, code: error.code }, `closing an API connection: ${error.message}`);
    conn.reader.stop();
    conn.socket.resume();
    conn.socket.end(JSON.stringify(errorFrame(null, error)) + '\n', () => conn.socket.destroy());
  }

  private onLine(conn: Connection, line: string): void {
    if (line.trim() === '') return;
    const request = parseRequestLine(line);
    if (!request.ok) {
      this.send(conn, errorFrame(request.id, request.error));
      return;
    }
    const { id, frame } = request;
    if (this.guard) {
      const refusal = !conn.reader.authenticated
        ? this.guard.authenticate(frame.auth, conn.address)
        : this.guard.matches(frame.auth)
          ? null
          : new McbridgeError('unauthorized', 'the token in "auth" is missing or wrong: send the one the daemon was started with in every request');
      if (refusal) {
        this.send(conn, errorFrame(id, refusal));
        return;
      }
      conn.reader.authenticate();
    }
    this.dispatch(conn, id, frame);
  }

  private dispatch(conn: Connection, id: RequestId, frame: RequestFrame): void {
    const params = frame.params ?? {};
    try {
      switch (frame.method) {
        case 'ping':
          return this.reply(conn, id, ping(this.targets));
        case 'subscribe':
        case 'unsubscribe':
          return this.reply(
            conn,
            id,
            subscribe(this.targets, conn, frame.method, params, () => this.catchUp(conn)),
          );
        case 'tools':
          return this.reply(conn, id, targetsManifest(this.targets, this.surfaceRevision));
        case 'targets':
          return this.reply(conn, id, listTargets(this.targets));
        case 'cancel':
          return this.reply(conn, id, this.cancel(conn, params));
        case 'stop':
          this.reply(conn, id, { stopping: true });
          setTimeout(() => this.options.onStop?.(), 50);
          return;
        default:
          // It answers for itself, failure included: no promise for the caller to watch.
          void this.callTool(conn, id, frame, params);
          return;
      }
    } catch (err) {
      this.send(conn, errorFrame(id, toMcbridgeError(err)));
    }
  }

  private async callTool(conn: Connection, id: RequestId, frame: RequestFrame, params: Record<string, unknown>): Promise<void> {
    const key = id ?? null;
    if (conn.inFlight.has(key)) {
      this.send(conn, errorFrame(id, new McbridgeError('invalid_request', `a request with id ${JSON.stringify(key)} is already in flight on this connection; use a new id`)));
      return;
    }
    const cancel = new Cancellation();
    conn.inFlight.set(key, cancel);
    const caller: Caller = { frontend: frame.caller?.frontend ?? 'api', conn: conn.n, remote: conn.address };
    if (frame.caller?.session) caller.session = frame.caller.session;
    let call: (options: CallOptions & { signal: Cancellation }) => Promise<unknown>;
    let tool: RegisteredTool | undefined;
    const several = namesSeveral(params.target);
    try {
      if (several) {
        call = (options) => fanOut(this.targets, frame.method, params, options);
      } else {
        const routed = this.targets.route(frame.method, params);
        tool = routed.host.registry.get(frame.method);
        call = (options) => routed.host.call(frame.method, routed.params, options).catch((err: unknown) => Promise.reject(this.targets.named(err, routed.host)));
      }
    } catch (err) {
      conn.inFlight.delete(key);
      this.send(conn, errorFrame(id, toMcbridgeError(err)));
      return;
    }
    // A call across several targets is read-only or refused; its args keep `target`: the log says which game a call went to.
    const mutating = !several && tool?.annotations.readOnly !== true;
    const ended = this.activity.begin({ id, tool: frame.method, caller, mutating, args: params });
    // A tool may report progress from a timer that outlives it: nothing may follow the response.
    let settled = false;
    try {
      const result = await call({
        signal: cancel,
        // The predecessor's clients sent null and numbers as text; MCP clients were shown the strict schema.
        lenientParams: caller.frontend !== 'mcp',
        onProgress: frame.progress ? (p) => settled || this.send(conn, { type: 'progress', id, ...p }) : undefined,
      });
      settled = true;
      ended('ok');
      const modText = tool?.spec.passthrough === true ? replyText(result) : undefined;
      if (modText === undefined) this.reply(conn, id, result);
      else this.send(conn, `{"type":"response","id":${JSON.stringify(id)},"ok":true,"result":${modText}}`);
    } catch (err) {
      const error = toMcbridgeError(err);
      ended(error.code);
      this.send(conn, errorFrame(id, error));
    } finally {
      settled = true;
      conn.inFlight.delete(key);
    }
  }

  private cancel(conn: Connection, params: Record<string, unknown>): { cancelled: boolean } {
    const parsed = cancelParams.safeParse(params);
    if (!parsed.success) throw new McbridgeError('invalid_params', `invalid params for 'cancel': ${describeZodError(parsed.error)}`);
    const cancel = conn.inFlight.get(parsed.data.id as RequestId);
    if (!cancel) return { cancelled: false };
    cancel.abort();
    return { cancelled: true };
  }

  /** Always with `result`: JSON has no undefined, and a key JSON.stringify would drop is a missing answer. */
  private reply(conn: Connection, id: RequestId, result: unknown): void {
    const answer = result === undefined || typeof result === 'function' || typeof result === 'symbol' ? null : result;
    this.send(conn, { type: 'response', id, ok: true, result: answer });
  }

  /** `frame` as text is one already encoded: a passthrough answer spliced around the mod's own reply. */
  private send(conn: Connection, frame: ServerFrame | string): void {
    if (conn.socket.destroyed) return;
    this.catchUp(conn); // keep the order: events recorded before this frame go first
    if (this.overflowed(conn)) return;
    const text = typeof frame === 'string' ? frame : encodeFrame(frame);
    if (text === null) {
      this.options.log.warn({ id: (frame as { id?: unknown }).id }, 'dropped a progress frame that could not be sent as JSON');
      return;
    }
    conn.socket.write(text + '\n');
  }

  /**
   * Past the hard bound (its reading paused long ago, yet answers owed keep coming), the
   * connection is closed: one client that does not read must not take the daemon's memory.
   */
  private overflowed(conn: Connection): boolean {
    const unsent = conn.socket.writableLength;
    if (unsent <= this.maxOutputBytes) return false;
    this.options.log.warn(
      { address: conn.address, unsentBytes: unsent, limit: this.maxOutputBytes },
      `closing an API connection that does not read its answers: ${unsent} bytes unsent, past the ${this.maxOutputBytes}-byte limit`,
    );
    conn.socket.destroy();
    return true;
  }

  // ---- pushes --------------------------------------------------------------------

  /**
   * Events recorded in one synchronous run (all those parsed from one read of the mod
   * socket) are pushed together on the next tick: encoded once for every subscriber that
   * takes them all, and written as one buffer per subscriber rather than one frame at a
   * time. Any other write to a connection first brings it up to date with the batch, so
   * a response never overtakes an event recorded before it.
   */
  private push(event: RecordedEvent): void {
    if (this.batch === null) {
      this.batch = [];
      process.nextTick(this.flushBatch);
    }
    this.batch.push(event);
  }

  private readonly flushBatch = (): void => {
    const batch = this.batch;
    this.batch = null;
    if (batch === null) return;
    let all: Buffer | null = null;
    for (const conn of this.connections) this.deliver(conn, batch, () => (all ??= this.encoder.encode(batch)));
  };

  private catchUp(conn: Connection): void {
    if (this.batch !== null) this.deliver(conn, this.batch, null);
  }

  /**
   * Write the batch's events this connection has not had yet and subscribes to. A
   * subscriber over the high-water mark gets none of them: it is never allowed to hold up
   * the link or the other subscribers, and learns what it missed from a `gap` frame.
   */
  private deliver(conn: Connection, batch: EventBatch, encodedAll: (() => Buffer) | null): void {
    const from = conn.batch === batch ? conn.delivered : 0;
    conn.batch = batch;
    conn.delivered = batch.length;
    if (conn.topics.size === 0 || from >= batch.length || conn.socket.destroyed) return;
    const everything = takesEverything(conn, this.targets);
    const events = everything && from === 0 && encodedAll ? batch : batch.slice(from).filter((e) => everything || wants(conn, e));
    if (events.length === 0) return;
    if (conn.gaps.size > 0 || conn.socket.writableLength > this.pushBufferBytes) {
      for (const event of events) {
        const target = event.target ?? '';
        const gap = conn.gaps.get(target);
        if (gap) {
          gap.dropped += 1;
          gap.toSeq = event.seq;
        } else {
          conn.gaps.set(target, { dropped: 1, fromSeq: event.seq, toSeq: event.seq });
        }
      }
      return;
    }
    conn.socket.write(events === batch ? encodedAll!() : this.encoder.encode(events));
  }

  /** One gap frame per target that lost events, naming it on a daemon of several. */
  private flushGap(conn: Connection): void {
    if (conn.gaps.size === 0) return;
    const gaps = [...conn.gaps];
    conn.gaps.clear();
    for (const [target, gap] of gaps) {
      const host = this.targets.get(target);
      if (!host) continue;
      const frame: GapFrame = { type: 'gap', ...gap, streamId: host.events.streamId };
      if (this.targets.size > 1) frame.target = target;
      this.send(conn, frame);
    }
  }

  private surfaceChanged(): void {
    this.surfaceRevision += 1;
    this.pushSurface();
  }

  private pushSurface(): void {
    let line: string | undefined;
    for (const conn of this.connections) {
      if (![...conn.topics.values()].some((topics) => topics.has('surface') || topics.has('*'))) continue;
      line ??= JSON.stringify({ type: 'event', event: 'surface', data: targetsManifest(this.targets, this.surfaceRevision) }) + '\n';
      if (conn.socket.destroyed) continue;
      this.catchUp(conn);
      if (!this.overflowed(conn)) conn.socket.write(line);
    }
  }
}

export { SUBSCRIPTION_TOPICS };

/**
 * The MCP front-end's one connection to the daemon's local API. It keeps the current
 * manifest (pushed on every surface change), reconnects when the daemon restarts, and
 * forwards tool calls with cancellation and progress. While no daemon answers it holds the
 * default surface, so a client's first `tools/list` always has an answer.
 */
import { EventEmitter } from 'node:events';
import { ApiClient, type ClientCallOptions } from '../../api/client.js';
import { DEFAULT_API_HOST, DEFAULT_API_PORT } from '../../api/address.js';
import type { EventFrame, GapFrame } from '../../api/frames.js';
import { EVENT_CATEGORIES } from '../../host/events/categories.js';
import { McbridgeError } from '../../host/errors.js';
import type { Vantage } from '../../host/link/discovery.js';
import type { Logger } from '../../util/log.js';
import type { Manifest } from '../../host/plugin-api.js';
import { unreachableError, type DaemonAddress } from '../../daemon/unreachable.js';
import { ALL_TARGETS } from '../../api/targets.js';
import { withTarget } from '../target-param.js';

export interface UpstreamOptions {
  api?: { host?: string; port?: number; token?: string };
  /** Vantage of the default surface served while no daemon answers. */
  vantage?: Vantage;
  /** How long the first `tools/list` may wait for the daemon's surface. */
  startupWaitMs?: number;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  connectTimeoutMs?: number;
  log: Logger;
  /**
   * Called after a failed connection attempt; may bring a daemon up (embedded mode) and
   * return its address, which is then tried at once.
   */
  onUnreachable?: () => Promise<DaemonAddress | null>;
  /** The target a call that names none goes to (`mcbridge mcp --target`); without it, the daemon's default. */
  target?: string;
}

/** Where the surface being served came from. */
export type SurfaceOrigin = 'daemon' | 'last-known' | 'default';

export const DEFAULT_STARTUP_WAIT_MS = 3_000;
const ATTACH_TIMEOUT_MS = 5_000;

/**
 * Connection to the daemon, with the surface to serve. Emits `surface` (Manifest) when the
 * daemon's manifest arrives or changes, and `attempt` after each connection attempt.
 */
export class DaemonUpstream extends EventEmitter {
  private address: DaemonAddress;
  private client: ApiClient | null = null;
  /** The daemon's manifest, once one arrived. */
  private current: Manifest | null = null;
  /**
   * The default surface (every built-in plugin, against the released CAPS), loaded only when no
   * daemon answers: in front of a running daemon it is never needed, and loading and building it
   * took longer than the daemon takes to send its own (docs/decisions.md, "The first tools/list").
   */
  private fallback: Manifest | null = null;
  private fallbackLoading: Promise<void> | null = null;
  private origin: SurfaceOrigin = 'default';
  /** An embedded daemon is being started (`onUnreachable`). */
  private embedding = false;
  private error = 'not connected yet';
  private closed = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private deadline = 0;
  private wasSettled = false;
  private readonly vantage: Vantage;
  /** Game events are wanted (an MCP client subscribed to a resource): emitted as `game-event`. */
  private eventsWanted = false;

  constructor(private readonly options: UpstreamOptions) {
    super();
    this.address = { host: options.api?.host ?? DEFAULT_API_HOST, port: options.api?.port ?? DEFAULT_API_PORT };
    this.vantage = options.vantage ?? 'server';
  }

  /** Start connecting; the startup wait counts from here. */
  start(): void {
    if (this.loop) return;
    this.deadline = Date.now() + (this.options.startupWaitMs ?? DEFAULT_STARTUP_WAIT_MS);
    this.loop = this.run();
  }

  /** The daemon's manifest; before one arrives, the default surface (empty until it is loaded: see `settled`). */
  get manifest(): Manifest {
    return this.current ?? this.fallback ?? { revision: 0, vantage: this.vantage, capsSource: 'default', connected: false, tools: [] };
  }

  /** The surface to serve at once, without the startup wait: the daemon's, or else the default one. */
  async surfaceNow(): Promise<Manifest> {
    if (!this.current) await this.loadFallback();
    return this.manifest;
  }

  /** Load the default surface, once; `settled` waits for it when it answers without the daemon. */
  private loadFallback(): Promise<void> {
    this.fallbackLoading ??= import('../../daemon/default-surface.js').then(({ defaultSurface }) => {
      this.fallback = defaultSurface(this.vantage).manifest;
    });
    return this.fallbackLoading;
  }

  get surfaceOrigin(): SurfaceOrigin {
    return this.origin;
  }

  get reachable(): boolean {
    return this.client !== null && !this.client.closed;
  }

  get daemonAddress(): DaemonAddress {
    return { ...this.address };
  }

  /** Why the daemon is not reachable (the last connection error). */
  get lastError(): string {
    return this.error;
  }

  get defaultVantage(): Vantage {
    return this.vantage;
  }

  /**
   * Resolves once the surface is worth answering with: the daemon's manifest after its mod
   * was seen (live, last known or legacy), or when the startup wait is over. Immediate after.
   */
  settled(): Promise<void> {
    // Settled without the daemon's manifest: the default surface is what there is to serve.
    const ready = () => (this.current ? Promise.resolve() : this.loadFallback());
    if (this.isSettled()) return ready();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.off('surface', check);
        this.off('attempt', check);
        resolve(ready());
      };
      let timer: NodeJS.Timeout;
      const check = () => {
        if (this.isSettled()) return done();
        // A timer may fire a millisecond before Date.now() reaches the deadline: wait again then.
        clearTimeout(timer);
        if (!this.embedding && !this.closed) timer = setTimeout(check, Math.max(1, this.deadline - Date.now()));
      };
      timer = setTimeout(check, Math.max(0, this.deadline - Date.now()));
      this.on('surface', check);
      this.on('attempt', check);
    });
  }

  private isSettled(): boolean {
    if (!this.wasSettled) {
      // An embedded daemon that is still starting (loading its config) extends the wait: its
      // surface, plugins and composites included, is the one worth answering with.
      const waitedEnough = Date.now() >= this.deadline && !this.embedding;
      this.wasSettled = this.closed || waitedEnough || (this.origin !== 'default' && this.current !== null && this.current.capsSource !== 'default');
    }
    return this.wasSettled;
  }

  /** This server's own target (`mcbridge mcp --target`), if it has one. */
  get target(): string | undefined {
    return this.options.target;
  }

  /** One tool call through the daemon, on this server's target when the params name none; fails with `unavailable` when no daemon answers. */
  async call(method: string, params: Record<string, unknown>, options: ClientCallOptions = {}): Promise<unknown> {
    let client = this.liveClient();
    if (!client) {
      // A daemon that just came back is tried now rather than at the next backoff step.
      await this.attemptNow();
      client = this.liveClient();
    }
    if (!client) throw unreachableError(this.address, this.error);
    // A signal that fired while we waited for the daemon would never send `cancel`
    // (an aborted signal fires no more events): the daemon would run the call to its end.
    if (options.signal?.aborted) throw new McbridgeError('cancelled', `the call to '${method}' was cancelled`);
    return client.call(method, withTarget(params, this.options.target), options);
  }

  /**
   * Receive the daemon's game events (emitted as `game-event`, a missed range as `game-gap`),
   * or stop; kept across reconnects. Only while some MCP client watches a resource, so an
   * unwatched front-end is not sent every event.
   */
  async followEvents(on: boolean): Promise<void> {
    if (this.eventsWanted === on) return;
    this.eventsWanted = on;
    const client = this.liveClient();
    if (client) await client.call(on ? 'subscribe' : 'unsubscribe', { events: [...EVENT_CATEGORIES], target: ALL_TARGETS }, { timeoutMs: ATTACH_TIMEOUT_MS }).catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    this.client?.close();
    this.wake?.();
    await this.loop;
  }

  private liveClient(): ApiClient | null {
    return this.client && !this.client.closed ? this.client : null;
  }

  /** Skip the backoff and wait for the next connection attempt (bounded; during start-up as long as `tools/list` would wait). */
  private attemptNow(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const bound = Math.max(this.deadline - Date.now(), (this.options.connectTimeoutMs ?? 1_000) + 500);
    return new Promise((resolve) => {
      const timer = setTimeout(finish, bound);
      const self = this;
      function finish() {
        clearTimeout(timer);
        self.off('attempt', finish);
        resolve();
      }
      this.on('attempt', finish);
      this.wake?.();
    });
  }

  private async run(): Promise<void> {
    const min = this.options.reconnectMinMs ?? 100;
    const max = this.options.reconnectMaxMs ?? 2_000;
    let delay = min;
    while (!this.closed) {
      let client: ApiClient | null = null;
      try {
        client = await ApiClient.connect({ ...this.address, token: this.options.api?.token, connectTimeoutMs: this.options.connectTimeoutMs ?? 1_000, frontend: 'mcp' });
      } catch (err) {
        this.error = (err as McbridgeError).details?.reason === 'daemon_unreachable' ? String((err as Error).message.match(/\(([^)]*)\)/)?.[1] ?? (err as Error).message) : (err as Error).message;
      }
      if (this.closed) {
        client?.close();
        break;
      }
      if (client) {
        delay = min;
        const lost = new Promise<void>((resolve) => client!.once('close', () => resolve()));
        await this.attach(client);
        this.emit('attempt');
        await lost;
        this.client = null;
        if (this.closed) break;
        this.error = 'the connection to the daemon closed';
        this.options.log.warn({ daemon: this.address }, 'lost the mcbridge daemon; serving the last known tool list and reconnecting');
        if (this.origin === 'daemon') this.origin = 'last-known';
        continue;
      }
      this.embedding = this.options.onUnreachable !== undefined;
      const started = await this.options.onUnreachable?.().catch((err: Error) => {
        this.options.log.error({ err: err.message }, 'could not start an embedded daemon');
        return null;
      });
      this.embedding = false;
      if (started) {
        this.address = started;
        continue;
      }
      // No daemon (yet): have the default surface ready for the startup wait's end.
      void this.loadFallback();
      this.emit('attempt');
      await this.sleep(delay);
      delay = Math.min(max, delay * 2);
    }
  }

  /** Subscribe to surface pushes, then read the manifest (pushes cannot be missed in between). */
  private async attach(client: ApiClient): Promise<void> {
    this.client = client;
    // A push read from the same chunk as the `tools` response is handled before that response's
    // continuation runs: never let an older manifest replace a newer one.
    let newest = -Infinity;
    const take = (manifest: Manifest) => {
      if (client !== this.client || !(manifest?.revision >= newest)) return;
      newest = manifest.revision;
      this.setManifest(manifest);
    };
    client.on('event', (frame: EventFrame) => {
      if (frame.event === 'surface') take(frame.data as Manifest);
      else if (client === this.client) this.emit('game-event', frame);
    });
    client.on('gap', (frame: GapFrame) => this.emit('game-gap', frame));
    try {
      // Bounded: something on the port that is not a daemon must not hold the front-end up.
      // Every target's: the surface is the daemon's, and a resource may be any target's events.
      await client.call('subscribe', { events: this.eventsWanted ? ['surface', ...EVENT_CATEGORIES] : ['surface'], target: ALL_TARGETS }, { timeoutMs: ATTACH_TIMEOUT_MS });
      const manifest = (await client.call('tools', {}, { timeoutMs: ATTACH_TIMEOUT_MS })) as Manifest;
      take(manifest);
      this.options.log.info({ daemon: this.address, revision: manifest.revision, capsSource: manifest.capsSource }, 'connected to the mcbridge daemon');
    } catch (err) {
      // An older daemon without `tools`/`surface`, or a token mismatch: calls still go
      // through and fail with the daemon's own code.
      if (!client.closed) this.options.log.warn({ err: (err as Error).message }, 'the daemon did not serve its tool manifest; serving the default surface');
    }
  }

  private setManifest(manifest: Manifest): void {
    if (!manifest || !Array.isArray(manifest.tools)) return;
    this.current = manifest;
    this.origin = 'daemon';
    this.emit('surface', manifest);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

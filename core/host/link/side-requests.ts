import { McbridgeError } from '../errors.js';
import type { AbortLike } from '../cancel.js';
import { ModConnection } from './connection.js';
import { cancelledError, matchesReply, modErrorOf, queueTimeoutError, replyType, timeoutError, type LinkStats, type ModReply } from './replies.js';

export interface SideRequestsOptions {
  modHost: string;
  connectTimeoutMs: number;
  maxLineBytes: number;
  /** Side connections open at once; more wait their turn. */
  max: number;
  stats: LinkStats;
}

interface SideCall {
  port: number;
  line: string;
  replies: readonly string[];
  timeoutMs: number;
  /** When the caller asked; the timeout counts from here, a wait for a free slot included. */
  arrivedAt: number;
  signal: AbortLike | undefined;
}

export interface Deadline {
  timeoutMs: number;
  arrivedAt: number;
}

/**
 * Blocking verbs (WAIT n > 0), and requests sent with `ownConnection`, run on short-lived
 * connections of their own, so they hold up nothing on the main connection and nothing there
 * holds them up. A cancelled one is simply closed: its late reply can reach
 * no one.
 */
export class SideRequests {
  private active = 0;
  private waiters: Array<() => void> = [];
  /** Ends each side connection in use; stopAll() calls them all. */
  private readonly aborts = new Set<() => void>();

  constructor(private readonly opts: SideRequestsOptions) {}

  /** `port` is read once a slot is free: the mod may have moved meanwhile. */
  async request(
    port: () => number | null,
    notConnected: () => McbridgeError,
    line: string,
    replies: readonly string[],
    { timeoutMs, arrivedAt }: Deadline,
    signal: AbortLike | undefined,
  ): Promise<ModReply> {
    await this.acquire(signal, line, arrivedAt + timeoutMs, timeoutMs);
    const current = port();
    this.opts.stats.sideRequests += 1;
    try {
      if (current === null) throw notConnected();
      return await this.run({ port: current, line, replies, timeoutMs, arrivedAt, signal });
    } finally {
      this.release();
    }
  }

  stopAll(): void {
    for (const abort of [...this.aborts]) abort();
  }

  private run({ port, line, replies, timeoutMs, arrivedAt, signal }: SideCall): Promise<ModReply> {
    return new Promise<ModReply>((resolve, reject) => {
      let conn: ModConnection | null = null;
      let greeted = false;
      let done = false;
      const finish = (err: McbridgeError | null, reply?: ModReply) => {
        if (done) return;
        done = true;
        this.aborts.delete(onStop);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        conn?.close();
        if (err) reject(err);
        else resolve(reply as ModReply);
      };
      const sentAt = Date.now();
      const timer = setTimeout(
        () => {
          this.opts.stats.timeouts += 1;
          finish(timeoutError(line, timeoutMs, sentAt - arrivedAt));
        },
        Math.max(0, arrivedAt + timeoutMs - sentAt),
      );
      const onAbort = () => {
        this.opts.stats.cancelled += 1;
        finish(cancelledError(line));
      };
      const onStop = () => finish(new McbridgeError('unavailable', `the daemon stopped before '${line}' was answered`));
      this.aborts.add(onStop);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) {
        onAbort();
        return;
      }
      ModConnection.open(
        this.opts.modHost,
        port,
        {
          onHello: () => {
            greeted = true;
            conn?.write(line);
          },
          onEvent: () => {}, // the main connection records every event once
          onReply: (reply) => {
            const type = replyType(reply);
            if (!matchesReply(replies, type)) return;
            finish(type === 'error' ? modErrorOf(line, reply) : null, reply as ModReply);
          },
          onBadLine: () => {
            this.opts.stats.badLines += 1;
          },
          onClose: (err) => {
            finish(new McbridgeError('not_connected', `the mod connection for '${line}' closed before its reply${err ? ` (${err.message})` : ''}`));
          },
        },
        { connectTimeoutMs: this.opts.connectTimeoutMs, maxLineBytes: this.opts.maxLineBytes },
      ).then(
        (opened) => {
          conn = opened;
          if (done) opened.close();
          else if (greeted) opened.write(line);
        },
        (err: Error) => finish(new McbridgeError('not_connected', `cannot open a connection for '${line}': ${err.message}`)),
      );
    });
  }

  /** A free side connection, or an error once `deadline` passes or the caller cancels. */
  private async acquire(signal: AbortLike | undefined, line: string, deadline: number, timeoutMs: number): Promise<void> {
    if (signal?.aborted) throw cancelledError(line);
    if (this.active < this.opts.max) {
      this.active += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters = this.waiters.filter((w) => w !== grant);
      };
      const grant = () => {
        done();
        this.active += 1;
        resolve();
      };
      const onAbort = () => {
        done();
        reject(cancelledError(line));
      };
      const timer = setTimeout(
        () => {
          done();
          this.opts.stats.timeouts += 1;
          this.opts.stats.queueTimeouts += 1;
          reject(queueTimeoutError(line, timeoutMs, { inFlight: [], queued: this.active + this.waiters.length }));
        },
        Math.max(0, deadline - Date.now()),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  private release(): void {
    this.active -= 1;
    this.waiters.shift()?.();
  }
}

/**
 * The keep-alive and the read deadline of one control session in one watch: a ping after `pingMs`
 * without a word either way (which also keeps the server's idle timer away), and a session silent
 * for `deadMs` is dead — a frozen server, or a frame whose body never ends (docs/control.md).
 */
import type { SessionLimits } from './limits.js';

export interface Liveness {
  /** Nothing heard for this long: a ping goes out (it also keeps the server's idle timer away). */
  pingMs: number;
  /** Nothing heard for this long: the session is dead, closed and opened again. */
  deadMs: number;
}

/**
 * A third of the server's idle time between pings, within 0.25-15 s, and 10 s more for an answer:
 * 25 s of silence at the default 300 s idle, as long as the legacy link waits for its mod.
 */
export function livenessOf(limits: SessionLimits, override?: Partial<Liveness>): Liveness {
  const pingMs = override?.pingMs ?? Math.min(15_000, Math.max(250, (limits.idleSeconds * 1000) / 3));
  return { pingMs, deadMs: override?.deadMs ?? pingMs + 10_000 };
}

export interface WatchHooks {
  /** Send the link's own ping, answered or failed within `timeoutMs`. */
  ping(timeoutMs: number): Promise<unknown>;
  /** The session fell silent for `silentMs`: close it. */
  dead(silentMs: number): void;
}

export class Watchdog {
  private lastHeardAt = 0;
  private lastSentAt = 0;
  private pinging = false;
  private timer: NodeJS.Timeout | null = null;
  /** Sessions closed because the server fell silent. */
  private silentSessions = 0;
  private pings = 0;
  private current: Liveness | null = null;

  constructor(private readonly hooks: WatchHooks) {}

  /** A session began: its deadlines, from now. */
  start(liveness: Liveness): void {
    this.stop();
    this.current = liveness;
    this.lastHeardAt = Date.now();
    this.pinging = false;
    this.timer = setInterval(() => this.check(), Math.max(10, Math.min(liveness.pingMs, liveness.deadMs - liveness.pingMs) / 2));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.current = null;
  }

  heard(): void {
    this.lastHeardAt = Date.now();
  }

  sent(): void {
    this.lastSentAt = Date.now();
  }

  status(liveness: Liveness): Record<string, unknown> {
    return { ...liveness, silentSessions: this.silentSessions, pings: this.pings, silentMs: this.current ? Date.now() - this.lastHeardAt : null };
  }

  private check(): void {
    const l = this.current;
    if (!l) return;
    const now = Date.now();
    const silentMs = now - this.lastHeardAt;
    if (silentMs >= l.deadMs) {
      this.silentSessions += 1;
      this.stop();
      this.hooks.dead(silentMs);
      return;
    }
    if (this.pinging || (silentMs < l.pingMs && now - this.lastSentAt < l.pingMs)) return;
    this.pinging = true;
    this.pings += 1;
    this.hooks
      .ping(l.deadMs)
      .catch(() => {})
      .finally(() => (this.pinging = false));
  }
}

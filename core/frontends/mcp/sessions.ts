/**
 * The HTTP front-end's session table: which client opened each session, whether it is in use,
 * and which session gives way when a source or the server is at its cap. A session in use (a
 * request or stream open, or a request within the grace period) never gives way: a new session
 * is refused instead (docs/decisions.md). A session whose client is gone (its SSE stream, once
 * open, has closed and nothing else is open) is not in use, grace or not.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { McpSession } from './protocol.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ClientId } from './http-guard.js';

export const MAX_SESSIONS = 64;
export const MAX_SESSIONS_PER_CLIENT = 16;

export interface Session {
  readonly id: string;
  /** The credential that opened it: the only one it answers. */
  readonly client: ClientId;
  /** Whose share of the caps it takes: the client, or the local user behind it (http.ts). */
  readonly source: ClientId;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpSession;
  /** When a request last started or ended (for the idle sweep). */
  lastSeen: number;
  /** Requests (and SSE streams) of this session still open: a session with any is busy. */
  open: number;
  /** Its standalone SSE streams (GET) open now, and whether it ever had one. */
  streams: number;
  streamed: boolean;
}

export type Admission =
  | { admitted: true; evicted: Array<{ session: Session; reason: 'client cap' | 'server cap' }> }
  | { admitted: false; status: 429 | 503; message: string; retryAfterSeconds?: number };

/** Enough of a session id to follow it through the log, not enough to use it. */
export function shortId(id: string): string {
  return `${id.slice(0, 8)}…`;
}

function sameClient(a: ClientId, b: ClientId): boolean {
  return timingSafeEqual(a.key, b.key);
}

export class SessionTable {
  /** In least recently used order: a session moves to the end whenever a request starts or ends. */
  private readonly sessions = new Map<string, Session>();
  private readonly perSource = new Map<string, number>();

  /** `graceMs`: how long after its last request a session still counts as in use. */
  constructor(private readonly graceMs: number) {}

  get size(): number {
    return this.sessions.size;
  }

  countOf(source: ClientId): number {
    return this.perSource.get(source.key.toString('hex')) ?? 0;
  }

  /**
   * The session `id` when `client` opened it. `foreign` when it exists but another credential
   * opened it: the caller answers exactly as for an unknown id, so an id learnt elsewhere
   * neither works nor is confirmed.
   */
  find(id: string, client: ClientId): Session | 'foreign' | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    return sameClient(session.client, client) ? session : 'foreign';
  }

  /**
   * Make room for a new session of `source`: first its own least recently used session not in
   * use when it is at its cap (else 429), then the server's when the server is full (else 503).
   * The evicted sessions are already out of the table; the caller closes them.
   */
  admit(source: ClientId, now = Date.now()): Admission {
    const evicted: Array<{ session: Session; reason: 'client cap' | 'server cap' }> = [];
    const inUse = this.graceMs > 0 ? `(a request or SSE stream open, or a request in the last ${Math.ceil(this.graceMs / 1000)} s)` : '(a request or SSE stream open)';
    if (this.countOf(source) >= MAX_SESSIONS_PER_CLIENT) {
      const own = (s: Session) => sameClient(s.source, source);
      const victim = this.leastRecentlyUsedFree(own, now);
      if (!victim) {
        return this.refusal(
          429,
          `this client already has ${MAX_SESSIONS_PER_CLIENT} MCP sessions in use ${inUse}; ` + 'close one you no longer need (HTTP DELETE with its mcp-session-id) or reuse an open session',
          own,
          now,
        );
      }
      this.remove(victim.id);
      evicted.push({ session: victim, reason: 'client cap' });
    }
    if (this.sessions.size >= MAX_SESSIONS) {
      const victim = this.leastRecentlyUsedFree(() => true, now);
      if (!victim) {
        return this.refusal(
          503,
          `the server holds its maximum of ${MAX_SESSIONS} MCP sessions and every one is in use ${inUse}; ` + 'close (HTTP DELETE) sessions you no longer need',
          () => true,
          now,
        );
      }
      this.remove(victim.id);
      evicted.push({ session: victim, reason: 'server cap' });
    }
    return { admitted: true, evicted };
  }

  add(session: Session): void {
    this.sessions.set(session.id, session);
    const key = session.source.key.toString('hex');
    this.perSource.set(key, (this.perSource.get(key) ?? 0) + 1);
  }

  /** False when the session was not in the table (already removed). */
  remove(id: string): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    const key = session.source.key.toString('hex');
    const left = (this.perSource.get(key) ?? 1) - 1;
    if (left > 0) this.perSource.set(key, left);
    else this.perSource.delete(key);
    return true;
  }

  /**
   * Count a request against its session until its response ends (or its connection drops).
   * `stream`: the session's standalone SSE stream (GET), which a connected SDK client keeps open.
   */
  track(session: Session, res: ServerResponse, stream = false): void {
    session.open += 1;
    if (stream) {
      session.streams += 1;
      session.streamed = true;
    }
    this.touch(session);
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      session.open -= 1;
      if (stream) session.streams -= 1;
      this.touch(session);
    };
    // 'finish' comes as soon as the last byte is handed on, before the client can act on it.
    res.once('finish', end);
    res.once('close', end);
  }

  /**
   * Remove and return the sessions with nothing open and no request for `idleMs`, and those whose
   * client is gone (stream closed) for the grace period: a client that lost its stream to a
   * network blip has reopened it by then.
   */
  takeIdle(idleMs: number, now = Date.now()): Session[] {
    const idle = [...this.sessions.values()].filter((s) => s.open === 0 && now - s.lastSeen >= (s.streamed ? Math.min(idleMs, this.graceMs) : idleMs));
    for (const session of idle) this.remove(session.id);
    return idle;
  }

  /** Empty the table and return what was in it. */
  takeAll(): Session[] {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    this.perSource.clear();
    return all;
  }

  private touch(session: Session): void {
    session.lastSeen = Date.now();
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }

  /**
   * Not in use: nothing open, and no request for the grace period, or its client gone: a client
   * that held an SSE stream holds it as long as it is connected (an SDK client reopens a dropped
   * one at once), so a stream closed with nothing else open means its client closed or exited.
   */
  private free(session: Session, now: number): boolean {
    if (session.open !== 0) return false;
    return session.streamed || now - session.lastSeen >= this.graceMs;
  }

  private leastRecentlyUsedFree(match: (s: Session) => boolean, now: number): Session | undefined {
    for (const session of this.sessions.values()) if (match(session) && this.free(session, now)) return session;
    return undefined;
  }

  /**
   * A refusal, with when the first matching session leaves its grace period (Retry-After);
   * none when every matching session has something open, since that ends when its client says.
   */
  private refusal(status: 429 | 503, message: string, match: (s: Session) => boolean, now: number): Admission {
    let soonest = Number.POSITIVE_INFINITY;
    for (const session of this.sessions.values()) {
      if (match(session) && session.open === 0) soonest = Math.min(soonest, session.lastSeen + this.graceMs - now);
    }
    if (!Number.isFinite(soonest)) return { admitted: false, status, message: `${message}, then retry once one is closed` };
    const retryAfterSeconds = Math.max(1, Math.ceil(soonest / 1000));
    return { admitted: false, status, message: `${message}, or retry in ${retryAfterSeconds} s (Retry-After)`, retryAfterSeconds };
  }
}

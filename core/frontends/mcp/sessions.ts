/**
 * The HTTP front-end's session table: which client opened each session, whether it is busy,
 * and which session gives way when a client or the server is at its cap. A client at its cap
 * loses its own least recently used idle session, never someone else's (docs/decisions.md).
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
  readonly client: ClientId;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpSession;
  /** When a request last started or ended (for the idle sweep). */
  lastSeen: number;
  /** Requests (and SSE streams) of this session still open: a session with any is busy. */
  open: number;
}

export type Admission = { admitted: true; evicted: Array<{ session: Session; reason: 'client cap' | 'server cap' }> } | { admitted: false; status: 429 | 503; message: string };

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
  private readonly perClient = new Map<string, number>();

  get size(): number {
    return this.sessions.size;
  }

  countOf(client: ClientId): number {
    return this.perClient.get(client.key.toString('hex')) ?? 0;
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
   * Make room for a new session of `client`: first its own least recently used idle session
   * when it is at its cap (429 when all of its sessions are busy), then the server's least
   * recently used idle one when the server is full (503 when every session is busy). The
   * evicted sessions are already out of the table; the caller closes them.
   */
  admit(client: ClientId): Admission {
    const evicted: Array<{ session: Session; reason: 'client cap' | 'server cap' }> = [];
    if (this.countOf(client) >= MAX_SESSIONS_PER_CLIENT) {
      const own = this.leastRecentlyUsedIdle((s) => sameClient(s.client, client));
      if (!own) {
        return {
          admitted: false,
          status: 429,
          message:
            `this client already has ${MAX_SESSIONS_PER_CLIENT} MCP sessions and each has a request or an SSE stream open; ` +
            'close one you no longer need (HTTP DELETE with its mcp-session-id) or reuse an open session, then retry',
        };
      }
      this.remove(own.id);
      evicted.push({ session: own, reason: 'client cap' });
    }
    if (this.sessions.size >= MAX_SESSIONS) {
      const any = this.leastRecentlyUsedIdle(() => true);
      if (!any) {
        return {
          admitted: false,
          status: 503,
          message: `the server holds its maximum of ${MAX_SESSIONS} MCP sessions and each has a request or an SSE stream open; retry later`,
        };
      }
      this.remove(any.id);
      evicted.push({ session: any, reason: 'server cap' });
    }
    return { admitted: true, evicted };
  }

  add(session: Session): void {
    this.sessions.set(session.id, session);
    const key = session.client.key.toString('hex');
    this.perClient.set(key, (this.perClient.get(key) ?? 0) + 1);
  }

  /** False when the session was not in the table (already removed). */
  remove(id: string): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    const key = session.client.key.toString('hex');
    const left = (this.perClient.get(key) ?? 1) - 1;
    if (left > 0) this.perClient.set(key, left);
    else this.perClient.delete(key);
    return true;
  }

  /** Count a request against its session until its response ends (or its connection drops). */
  track(session: Session, res: ServerResponse): void {
    session.open += 1;
    this.touch(session);
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      session.open -= 1;
      this.touch(session);
    };
    // 'finish' comes as soon as the last byte is handed on, before the client can act on it.
    res.once('finish', end);
    res.once('close', end);
  }

  /** Remove and return the sessions with nothing open and no request for `idleMs`. */
  takeIdle(idleMs: number, now = Date.now()): Session[] {
    const idle = [...this.sessions.values()].filter((s) => s.open === 0 && now - s.lastSeen >= idleMs);
    for (const session of idle) this.remove(session.id);
    return idle;
  }

  /** Empty the table and return what was in it. */
  takeAll(): Session[] {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    this.perClient.clear();
    return all;
  }

  private touch(session: Session): void {
    session.lastSeen = Date.now();
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }

  private leastRecentlyUsedIdle(match: (s: Session) => boolean): Session | undefined {
    for (const session of this.sessions.values()) if (session.open === 0 && match(session)) return session;
    return undefined;
  }
}

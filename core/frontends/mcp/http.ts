/**
 * Streamable HTTP: one MCP session (transport + server) per client session, on `/mcp`.
 * Every request first passes the guard (Host, Origin, bearer token); a session answers only
 * the credential that opened it, and caps are per client first (sessions.ts).
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { McbridgeError } from '../../host/errors.js';
import type { Logger } from '../../util/log.js';
import { isLoopback } from '../../util/net.js';
import { errorResponse, RPC } from './jsonrpc.js';
import { batchRefusal } from './protocol.js';
import { parseMessage } from './message-text.js';
import type { McpFrontend } from './frontend.js';
import { HttpGuard, tokenlessBindRefusal, userSource, type ClientId } from './http-guard.js';
import { peerUid } from '../../util/peer-uid.js';
import { SessionTable, shortId, type Session } from './sessions.js';

export const MCP_HTTP_PATH = '/mcp';
export const DEFAULT_MCP_HTTP_PORT = 8766;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A session with no request for this long, and none open, is closed (clients that vanished without DELETE). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/**
 * After its last request a session stays in use this long: a client between two calls is not
 * pushed out by a cap (a client holding its SSE stream open is in use throughout).
 */
export const DEFAULT_SESSION_GRACE_MS = 60_000;

export interface HttpOptions {
  host?: string;
  port?: number;
  token?: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** Close sessions idle this long (no request, no open stream). Default 30 minutes. */
  sessionIdleMs?: number;
  /** How long after its last request a session cannot be closed to make room. Default 60 s (at most the idle time). */
  sessionGraceMs?: number;
  log: Logger;
}

export interface McpHttpServer {
  url: string;
  host: string;
  port: number;
  sessions(): number;
  close(): Promise<void>;
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code = -32000): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(errorResponse(null, code, message)));
}

const BODY_FAILED = Symbol('body failed');

/** The JSON body, or BODY_FAILED after answering 400/413 itself. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      sendError(res, 413, `request body over ${MAX_BODY_BYTES} bytes`);
      return BODY_FAILED;
    }
    chunks.push(chunk as Buffer);
  }
  const parsed = parseMessage(Buffer.concat(chunks).toString('utf8'));
  if ('error' in parsed) {
    if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' });
    res.end(parsed.error);
    return BODY_FAILED;
  }
  return parsed.message;
}

function startsSession(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/** Bind and serve; refuses a non-loopback bind without a token. */
export async function startHttp(frontend: McpFrontend, options: HttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const refusal = tokenlessBindRefusal(host, options.token);
  if (refusal) throw new McbridgeError('invalid_params', refusal);
  const guard = new HttpGuard({ bindHost: host, token: options.token, allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins });
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const graceMs = Math.min(options.sessionGraceMs ?? DEFAULT_SESSION_GRACE_MS, idleMs);
  const table = new SessionTable(graceMs);
  const log = options.log;
  const counts = (source: ClientId) => ({ client: source.label, clientSessions: table.countOf(source), sessions: table.size });
  const ownUid = process.getuid?.() ?? null;
  /**
   * Whose share a new session takes: without a token, a loopback client of another local user
   * counts as that user, whatever 127.x address it uses, so it can neither fill nor empty the
   * shares of this user's clients. This user's own processes can read its token file anyway, so
   * they stay told apart by address, as with a token by the token.
   */
  const sourceOf = async (req: IncomingMessage, client: ClientId): Promise<ClientId> => {
    if (options.token || ownUid === null || !isLoopback(req.socket.remoteAddress ?? '')) return client;
    const uid = await peerUid(req.socket);
    return uid === null || uid === ownUid ? client : userSource(uid);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const verdict = guard.check(req);
    if ('refusal' in verdict) {
      const { refusal } = verdict;
      log.warn({ status: refusal.status, method: req.method, host: req.headers.host, origin: req.headers.origin }, `refused an MCP HTTP request: ${refusal.message}`);
      return sendError(res, refusal.status, refusal.message, refusal.headers);
    }
    const { client } = verdict;
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== MCP_HTTP_PATH) return sendError(res, 404, `not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
    const sessionId = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readJson(req, res) : undefined;
    if (body === BODY_FAILED) return;
    if (typeof sessionId === 'string') {
      const session = table.find(sessionId, client);
      if (session === 'foreign') {
        log.warn({ session: shortId(sessionId), method: req.method, client: client.label }, 'an MCP session id came with another credential than the one that opened it; answered as unknown');
      }
      // 404 tells a client its session is gone and it should initialize again.
      if (session === undefined || session === 'foreign') return sendError(res, 404, 'unknown or closed MCP session; initialize a new one');
      const batch = Array.isArray(body) ? batchRefusal(body, session.server.protocolVersion) : null;
      if (batch) return sendError(res, 400, batch, {}, RPC.invalidRequest);
      table.track(session, res, req.method === 'GET');
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !startsSession(body)) {
      return sendError(res, 400, 'no mcp-session-id: start a session with an initialize request (POST)');
    }
    if (Array.isArray(body)) return sendError(res, 400, batchRefusal(body, undefined)!, {}, RPC.invalidRequest);
    const source = await sourceOf(req, client);
    const admission = table.admit(source);
    if (!admission.admitted) {
      log.warn({ status: admission.status, ...counts(source) }, `refused a new MCP HTTP session: ${admission.message}`);
      const retry: Record<string, string> = admission.retryAfterSeconds ? { 'retry-after': String(admission.retryAfterSeconds) } : {};
      return sendError(res, admission.status, admission.message, retry);
    }
    for (const { session, reason } of admission.evicted) {
      log.info({ session: shortId(session.id), reason, ...counts(session.source) }, 'closed the least recently used MCP HTTP session not in use to make room');
      void session.server.close().catch(() => {});
    }
    await openSession(client, source, req, res, body);
  };

  /** Reserve the slot before any await, so concurrent initializes cannot overshoot a cap. */
  const openSession = async (client: ClientId, source: ClientId, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const id = randomUUID();
    const server = frontend.createServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => log.info({ session: shortId(id), ...counts(source) }, 'MCP HTTP session started'),
    });
    const session: Session = { id, client, source, transport, server, lastSeen: Date.now(), open: 0, streams: 0, streamed: false };
    table.add(session);
    table.track(session, res);
    transport.onclose = () => {
      if (table.remove(id)) log.info({ session: shortId(id), ...counts(source) }, 'MCP HTTP session closed');
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // The SDK refused the initialize (bad Accept, a batch, ...): give the slot back quietly.
      if (transport.sessionId === undefined && table.remove(id)) void server.close().catch(() => {});
    }
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      log.error({ err: err.message }, 'MCP HTTP request failed');
      sendError(res, 500, 'internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen({ host, port: options.port ?? DEFAULT_MCP_HTTP_PORT }, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port;
  const sweep = setInterval(
    () => {
      for (const session of table.takeIdle(idleMs)) {
        log.info({ session: shortId(session.id), idleMs, gone: session.streamed, ...counts(session.source) }, 'closed an idle MCP HTTP session');
        void session.server.close().catch(() => {});
      }
    },
    // Often enough to close idle sessions near their time, and gone clients' near the grace's.
    Math.max(10, Math.min(idleMs / 4, graceMs > 0 ? graceMs / 4 : 60_000, 60_000)),
  );
  sweep.unref();
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${MCP_HTTP_PATH}`,
    host,
    port,
    sessions: () => table.size,
    async close() {
      clearInterval(sweep);
      await Promise.all(table.takeAll().map(({ server }) => server.close().catch(() => {})));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

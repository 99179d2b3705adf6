/**
 * Streamable HTTP: one MCP session (transport + server) per client session, on `/mcp`.
 * Every request first passes the guard (Host, Origin, bearer token).
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McbridgeError } from '../../host/errors.js';
import type { Logger } from '../../util/log.js';
import { isLoopback } from '../../util/net.js';
import type { McpFrontend } from './frontend.js';
import { HttpGuard } from './http-guard.js';

export const MCP_HTTP_PATH = '/mcp';
export const DEFAULT_MCP_HTTP_PORT = 8766;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_SESSIONS = 64;
/** A session with no request for this long, and none open, is closed (clients that vanished without DELETE). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

export interface HttpOptions {
  host?: string;
  port?: number;
  token?: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** Close sessions idle this long (no request, no open stream). Default 30 minutes. */
  sessionIdleMs?: number;
  log: Logger;
}

export interface McpHttpServer {
  url: string;
  host: string;
  port: number;
  sessions(): number;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
  /** Requests (and SSE streams) of this session still open. */
  open: number;
}

/** Count a request against its session until its response closes. */
function track(session: Session, res: ServerResponse): void {
  session.open += 1;
  session.lastSeen = Date.now();
  res.once('close', () => {
    session.open -= 1;
    session.lastSeen = Date.now();
  });
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code = -32000): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
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
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    sendError(res, 400, `parse error: ${(err as Error).message}`, {}, -32700);
    return BODY_FAILED;
  }
}

function startsSession(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/** Bind and serve; refuses a non-loopback bind without a token. */
export async function startHttp(frontend: McpFrontend, options: HttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host) && !options.token) {
    throw new McbridgeError('invalid_params', `refusing to serve MCP on ${host} without a token: anyone who reaches it can run console commands. ` +
      'Pass --token auto (generates one and stores it) or --token <secret>, or bind 127.0.0.1.');
  }
  const guard = new HttpGuard({ bindHost: host, token: options.token, allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins });
  const sessions = new Map<string, Session>();
  const log = options.log;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refusal = guard.check(req);
    if (refusal) {
      log.warn({ status: refusal.status, method: req.method, host: req.headers.host, origin: req.headers.origin }, `refused an MCP HTTP request: ${refusal.message}`);
      return sendError(res, refusal.status, refusal.message, refusal.headers);
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== MCP_HTTP_PATH) return sendError(res, 404, `not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
    const sessionId = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readJson(req, res) : undefined;
    if (body === BODY_FAILED) return;
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      // 404 tells a client its session is gone and it should initialize again.
      if (!session) return sendError(res, 404, 'unknown or closed MCP session; initialize a new one');
      track(session, res);
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !startsSession(body)) {
      return sendError(res, 400, 'no mcp-session-id: start a session with an initialize request (POST)');
    }
    if (sessions.size >= MAX_SESSIONS) return sendError(res, 503, `too many MCP sessions (${MAX_SESSIONS}); close some (DELETE) and retry`);
    const server = frontend.createServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: Session = { transport, server, lastSeen: Date.now(), open: 0 };
        track(session, res);
        sessions.set(id, session);
        log.info({ session: id, sessions: sessions.size }, 'MCP HTTP session started');
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && sessions.delete(id)) log.info({ session: id, sessions: sessions.size }, 'MCP HTTP session closed');
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
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
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (session.open > 0 || now - session.lastSeen < idleMs) continue;
      log.info({ session: id, idleMs }, 'closing an idle MCP HTTP session');
      sessions.delete(id);
      void session.server.close().catch(() => {});
    }
  }, Math.max(10, Math.min(idleMs / 4, 60_000)));
  sweep.unref();
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${MCP_HTTP_PATH}`,
    host,
    port,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map(({ server }) => server.close().catch(() => {})));
      sessions.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../core/util/log.js';
import { McpFrontend } from '../../../../core/frontends/mcp/frontend.js';
import { startHttp, type HttpOptions, type McpHttpServer } from '../../../../core/frontends/mcp/http.js';
import { MAX_SESSIONS, MAX_SESSIONS_PER_CLIENT, shortId } from '../../../../core/frontends/mcp/sessions.js';
import { freePort } from '../../../support/helpers.js';
import { waitUntil } from '../../../support/wait-until.js';
import { cleanupsAfterEach, fetchFrom, holdStream, INITIALIZE, raw, type RawOptions } from '../../../support/mcp.js';

// Clients without a token are told apart by source address; all of 127.0.0.0/8 is loopback.
const A = '127.0.0.1';
const B = '127.0.0.2';
const TOKEN = 'sessions-token-0123456789abcdef';
const defer = cleanupsAfterEach();

/**
 * No daemon behind it: initialize and ping are answered by the front-end alone. No grace period
 * unless a test asks: a session is in use only while something is open, so the caps' order shows.
 */
async function serve(options: Partial<HttpOptions> = {}): Promise<McpHttpServer> {
  const log = options.log ?? silentLogger();
  const frontend = new McpFrontend({ api: { port: await freePort() }, log, reconnectMinMs: 20, reconnectMaxMs: 200, startupWaitMs: 100 });
  frontend.start();
  defer(() => frontend.close());
  const server = await startHttp(frontend, { port: 0, sessionGraceMs: 0, ...options, log });
  defer(() => server.close());
  return server;
}

/** A new session by a raw initialize, idle once answered; its id. */
async function open(server: McpHttpServer, options: RawOptions = {}): Promise<string> {
  const res = await raw(server.port, { ...options, body: INITIALIZE });
  expect(res.status, res.body).toBe(200);
  return String(res.headers['mcp-session-id']);
}

/** The status a ping on `sessionId` gets. */
async function ping(server: McpHttpServer, sessionId: string, options: RawOptions = {}): Promise<number> {
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18', ...options.headers };
  return (await raw(server.port, { ...options, headers, body: { jsonrpc: '2.0', id: 2, method: 'ping' } })).status;
}

/** Keep a session busy with an open SSE stream until the test ends. */
async function hold(server: McpHttpServer, sessionId: string, options: RawOptions = {}): Promise<() => void> {
  const stream = await holdStream(server.port, sessionId, options);
  expect(stream.status).toBe(200);
  defer(stream.close);
  return stream.close;
}

/** The real SDK client, from a chosen source address. */
async function sdkClient(server: McpHttpServer, from: string, token?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    fetch: fetchFrom(from),
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  const client = new Client({ name: 'mcbridge-sessions-test', version: '1.0.0' });
  await client.connect(transport);
  defer(() => client.close());
  return { client, transport };
}

function rpcError(body: string): string {
  return (JSON.parse(body) as { error: { message: string } }).error.message;
}

describe('MCP HTTP sessions: per-client caps and binding', { timeout: 60_000 }, () => {
  it('one client opening more sessions than the whole server holds does not lock another out', async () => {
    const server = await serve();
    const ids: string[] = [];
    for (let i = 0; i < MAX_SESSIONS + 8; i++) ids.push(await open(server, { from: A }));
    expect(server.sessions()).toBe(MAX_SESSIONS_PER_CLIENT);

    const b = await sdkClient(server, B);
    await b.client.ping();
    expect(server.sessions()).toBe(MAX_SESSIONS_PER_CLIENT + 1);
    expect(await ping(server, ids.at(-1)!, { from: A })).toBe(200);
  });

  it('at its cap a client loses its least recently used idle session and keeps its busy ones; 429 only when all are busy', async () => {
    const server = await serve();
    const ids: string[] = [];
    for (let i = 0; i < MAX_SESSIONS_PER_CLIENT; i++) ids.push(await open(server, { from: A }));
    const busy = ids.slice(0, 4);
    for (const id of busy) await hold(server, id, { from: A });
    // The oldest sessions are busy, so the oldest idle one is the fifth.
    const next = await open(server, { from: A });
    expect(await ping(server, ids[4]!, { from: A })).toBe(404);
    expect(server.sessions()).toBe(MAX_SESSIONS_PER_CLIENT);
    for (const id of [...busy, ids[5]!, next]) expect(await ping(server, id, { from: A })).toBe(200);

    // Every session of A busy: A is refused with 429 and told what to do; B is not affected.
    for (const id of [...ids.slice(5), next]) await hold(server, id, { from: A });
    const refused = await raw(server.port, { from: A, body: INITIALIZE });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    expect(rpcError(refused.body)).toMatch(/already has 16 MCP sessions .*open.*DELETE/);
    expect(await open(server, { from: B })).toBeTruthy();

    // Closing one (DELETE) makes room again.
    const deleted = await raw(server.port, { from: A, method: 'DELETE', headers: { 'mcp-session-id': busy[0]! } });
    expect(deleted.status).toBe(200);
    expect(await open(server, { from: A })).toBeTruthy();
  });

  it('when the server is full, the least recently used idle session of any client gives way; 503 only when all are busy', async () => {
    const server = await serve();
    const clients = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'];
    const ids = new Map<string, string[]>();
    for (const from of clients) {
      ids.set(from, []);
      for (let i = 0; i < MAX_SESSIONS_PER_CLIENT; i++) ids.get(from)!.push(await open(server, { from }));
    }
    expect(server.sessions()).toBe(MAX_SESSIONS);
    const first = ids.get(clients[0]!)!;
    await hold(server, first[0]!, { from: clients[0] });

    // A fifth client gets a session: the first client's oldest idle one made room.
    const fifth = await open(server, { from: '127.0.0.5' });
    expect(await ping(server, first[1]!, { from: clients[0] })).toBe(404);
    expect(await ping(server, first[0]!, { from: clients[0] })).toBe(200);
    expect(await ping(server, ids.get(clients[1]!)![0]!, { from: clients[1] })).toBe(200);
    expect(server.sessions()).toBe(MAX_SESSIONS);

    // Every session busy: 503, and nothing was closed for it.
    for (const from of clients) {
      for (const id of ids.get(from)!) if (id !== first[0] && id !== first[1]) await hold(server, id, { from });
    }
    await hold(server, fifth, { from: '127.0.0.5' });
    const refused = await raw(server.port, { from: '127.0.0.6', body: INITIALIZE });
    expect(refused.status).toBe(503);
    expect(rpcError(refused.body)).toMatch(/maximum of 64 MCP sessions.*in use.*DELETE.*retry once one is closed/);
    expect(refused.headers['retry-after']).toBeUndefined();
    expect(server.sessions()).toBe(MAX_SESSIONS);
  });

  it('a session answers only the credential that opened it: 404 for POST, GET and DELETE from another, as for an unknown id', async () => {
    const server = await serve();
    const a = await sdkClient(server, A);
    const id = a.transport.sessionId!;
    expect(id).toBeTruthy();
    const unknown = await raw(server.port, { from: B, headers: { 'mcp-session-id': 'no-such-session' }, body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
    expect(unknown.status).toBe(404);

    const post = await raw(server.port, { from: B, headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
    const get = await raw(server.port, { from: B, method: 'GET', headers: { 'mcp-session-id': id, accept: 'text/event-stream' } });
    const del = await raw(server.port, { from: B, method: 'DELETE', headers: { 'mcp-session-id': id } });
    for (const res of [post, get, del]) {
      expect(res.status).toBe(404);
      expect(res.body).toBe(unknown.body);
      expect(res.headers['mcp-session-id']).toBeUndefined();
    }

    expect(server.sessions()).toBe(1);
    await a.client.ping();
    await a.transport.terminateSession();
    expect(server.sessions()).toBe(0);
  });

  it('with a token, the token is the credential: its holders share a session from any address, and count as one client', async () => {
    const server = await serve({ token: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const a = await sdkClient(server, A, TOKEN);
    expect(await ping(server, a.transport.sessionId!, { from: B, headers: auth })).toBe(200);
    expect(await ping(server, a.transport.sessionId!, { from: B, headers: { authorization: 'Bearer not-the-token-at-all' } })).toBe(401);
    for (let i = 0; i < MAX_SESSIONS_PER_CLIENT + 4; i++) await open(server, { from: i % 2 ? A : B, headers: auth });
    expect(server.sessions()).toBe(MAX_SESSIONS_PER_CLIENT);
  });

  it('logs per-client session counts, and a session id used with another credential at warn, but never the token or a full session id', async () => {
    const lines: string[] = [];
    const log: Logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const ids: string[] = [];

    // With a token: a session by the SDK client (ended by DELETE), more raw ones than the cap, a wrong token.
    const withToken = await serve({ token: TOKEN, log });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const a = await sdkClient(withToken, A, TOKEN);
    ids.push(a.transport.sessionId!);
    await a.transport.terminateSession();
    for (let i = 0; i < MAX_SESSIONS_PER_CLIENT + 1; i++) ids.push(await open(withToken, { from: A, headers: auth }));
    expect((await raw(withToken.port, { from: A, headers: { authorization: `Bearer ${TOKEN}x` }, body: INITIALIZE })).status).toBe(401);

    // Without one: B presents A's session id.
    const noToken = await serve({ log });
    const owned = await open(noToken, { from: A });
    ids.push(owned);
    expect(await ping(noToken, owned, { from: B })).toBe(404);
    expect((await raw(noToken.port, { from: A, method: 'DELETE', headers: { 'mcp-session-id': owned } })).status).toBe(200);

    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.some((r) => r.msg === 'MCP HTTP session started' && r.client === 'token' && typeof r.clientSessions === 'number')).toBe(true);
    expect(records.some((r) => r.reason === 'client cap' && r.clientSessions === MAX_SESSIONS_PER_CLIENT - 1)).toBe(true);
    const foreign = records.find((r) => r.level === 40 && /another credential/.test(String(r.msg)));
    expect(foreign).toMatchObject({ session: shortId(owned), client: B, method: 'POST' });
    for (const line of lines) {
      expect(line).not.toContain(TOKEN);
      for (const id of ids) expect(line).not.toContain(id);
    }
  });
});

/**
 * Without a token every local process reaches the server, and most come from 127.0.0.1: the caps
 * must not let one of them push out a session another client is still using (issue 24, N16).
 */
describe('MCP HTTP sessions in use are never closed to make room', { timeout: 60_000 }, () => {
  it('a session used within the grace period outlasts a process filling its address: 429 with Retry-After, and room once that has passed', async () => {
    const server = await serve({ sessionGraceMs: 3_000 });
    // A client between two calls: no request and no stream open.
    const user = await open(server, { from: A });
    expect(await ping(server, user, { from: A })).toBe(200);
    const others: string[] = [];
    for (let i = 1; i < MAX_SESSIONS_PER_CLIENT; i++) others.push(await open(server, { from: A }));

    const refused = await raw(server.port, { from: A, body: INITIALIZE });
    expect(refused.status).toBe(429);
    expect(rpcError(refused.body)).toMatch(/16 MCP sessions in use .*in the last 3 s.*DELETE.*retry in \d s \(Retry-After\)/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3);
    expect(await ping(server, user, { from: A })).toBe(200);

    // Retry-After is honest: then the least recently used session not in use gives way, not the user's.
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 50));
    expect(await open(server, { from: A })).toBeTruthy();
    expect(await ping(server, others[0]!, { from: A })).toBe(404);
    expect(await ping(server, user, { from: A })).toBe(200);
  });

  it('a full server refuses a new session with 503 and what to do, and closes none: the SDK client and a recently used session stay', async () => {
    const server = await serve({ sessionGraceMs: 10_000 });
    const sdk = await sdkClient(server, '127.0.0.9');
    const recent = await open(server, { from: '127.0.0.8' });
    const filler: Record<string, string[]> = {};
    for (const [from, count] of [
      ['127.0.0.1', 16],
      ['127.0.0.2', 16],
      ['127.0.0.3', 16],
      ['127.0.0.4', 14],
    ] as const) {
      filler[from] = [];
      for (let i = 0; i < count; i++) filler[from].push(await open(server, { from }));
    }
    expect(server.sessions()).toBe(MAX_SESSIONS);

    const refused = await raw(server.port, { from: '127.0.0.6', body: INITIALIZE });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(rpcError(refused.body)).toMatch(/maximum of 64 MCP sessions and every one is in use .*in the last 10 s.*DELETE.*retry in \d+ s/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(server.sessions()).toBe(MAX_SESSIONS);
    await sdk.client.ping();
    expect(await ping(server, recent, { from: '127.0.0.8' })).toBe(200);

    // Closing a session, as the message says, makes room at once.
    const closed = filler['127.0.0.1']![0]!;
    expect((await raw(server.port, { from: '127.0.0.1', method: 'DELETE', headers: { 'mcp-session-id': closed } })).status).toBe(200);
    expect(await open(server, { from: '127.0.0.6' })).toBeTruthy();
    expect(await ping(server, recent, { from: '127.0.0.8' })).toBe(200);
  });
});

/** `fetchFrom(from)`, and a promise that settles once the SDK client's SSE stream (GET) is answered. */
function watchingStream(from: string): { fetch: ReturnType<typeof fetchFrom>; streamOpen: Promise<void> } {
  const inner = fetchFrom(from);
  let opened!: () => void;
  const streamOpen = new Promise<void>((resolve) => (opened = resolve));
  const fetch: ReturnType<typeof fetchFrom> = async (url, init) => {
    const res = await inner(url, init);
    if ((init?.method ?? 'GET') === 'GET' && res.status === 200) opened();
    return res;
  };
  return { fetch, streamOpen };
}

/** A client that has gone (closed, exited) must not hold its slot through the grace period (issue 35, item 21). */
describe('MCP HTTP sessions whose client is gone are reclaimed', { timeout: 60_000 }, () => {
  it('40 short-lived SDK clients in a row from one address, none sending DELETE, are each served under the 60 s grace', async () => {
    const server = await serve({ sessionGraceMs: 60_000 });
    for (let i = 0; i < 40; i++) {
      const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch: fetchFrom(A) });
      const client = new Client({ name: `short-lived-${i}`, version: '1.0.0' });
      await client.connect(transport);
      await client.ping();
      // close() ends the SSE stream and sends no DELETE, as the Inspector CLI does when it exits.
      await client.close();
    }
    expect(server.sessions()).toBeLessThanOrEqual(MAX_SESSIONS_PER_CLIENT);
  });

  it('a client between two calls (no stream ever opened) keeps its grace: a gone SDK client gives way first', async () => {
    const server = await serve({ sessionGraceMs: 60_000 });
    const between = await open(server, { from: A });
    const gone = new Client({ name: 'gone', version: '1.0.0' });
    const { fetch, streamOpen } = watchingStream(A);
    await gone.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch }));
    const goneId = (gone.transport as StreamableHTTPClientTransport).sessionId!;
    // Its SSE stream is open once the server counts it: until then it is not gone, only new.
    await streamOpen;
    await gone.close();
    for (let i = 2; i < MAX_SESSIONS_PER_CLIENT; i++) await open(server, { from: A });
    expect(server.sessions()).toBe(MAX_SESSIONS_PER_CLIENT);

    expect(await open(server, { from: A })).toBeTruthy();
    expect(await ping(server, goneId, { from: A })).toBe(404);
    expect(await ping(server, between, { from: A })).toBe(200);
    // No gone client left and every other session within its grace: 429 as before.
    expect((await raw(server.port, { from: A, body: INITIALIZE })).status).toBe(429);
  });

  it("the sweep closes a gone client's session once the grace has passed, long before the idle time", async () => {
    const server = await serve({ sessionGraceMs: 200, sessionIdleMs: 60_000 });
    const kept = await open(server, { from: A });
    const client = new Client({ name: 'gone', version: '1.0.0' });
    const { fetch, streamOpen } = watchingStream(A);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch }));
    const id = (client.transport as StreamableHTTPClientTransport).sessionId!;
    await streamOpen;
    await client.close();
    await waitUntil(() => server.sessions() === 1);
    expect(await ping(server, id, { from: A })).toBe(404);
    expect(await ping(server, kept, { from: A })).toBe(200);
  });
});

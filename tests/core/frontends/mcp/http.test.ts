import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../core/util/log.js';
import { McpFrontend } from '../../../../core/frontends/mcp/frontend.js';
import { startHttp, type HttpOptions, type McpHttpServer } from '../../../../core/frontends/mcp/http.js';
import { freePort, type startStack, waitUntil, type Stack } from '../../../support/helpers.js';
import { assertTableMatches, assertWaitCancels, cleanupsAfterEach, INITIALIZE, probeStack, raw, runNode, TABLE_CAPS, text } from '../../../support/mcp.js';
import { BIN } from '../../../support/cli-process.js';

const TOKEN = 'test-token-0123456789abcdef';
const defer = cleanupsAfterEach();
const stack = (options: Parameters<typeof startStack>[0] = {}): Promise<Stack> => probeStack(defer, options);

async function serve(apiPort: number, options: Partial<HttpOptions> = {}): Promise<{ frontend: McpFrontend; server: McpHttpServer }> {
  const frontend = new McpFrontend({ api: { port: apiPort }, log: silentLogger(), reconnectMinMs: 20, reconnectMaxMs: 200, startupWaitMs: 500 });
  frontend.start();
  defer(() => frontend.close());
  const server = await startHttp(frontend, { port: 0, log: silentLogger(), ...options });
  defer(() => server.close());
  return { frontend, server };
}

async function connect(url: string, token?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport; listChanges: () => number }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {});
  const client = new Client({ name: 'mcbridge-http-test', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes += 1;
  });
  await client.connect(transport);
  defer(() => client.close());
  return { client, transport, listChanges: () => changes };
}

describe('mcbridge mcp over streamable HTTP', { timeout: 60_000 }, () => {
  it('serves the CAPS-filtered list and the call table like the local API, with structured results', async () => {
    const s = await stack({ sim: { capabilities: TABLE_CAPS } });
    const { server } = await serve(s.daemon.apiAddress.port);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { client } = await connect(server.url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('mc_state');
    expect(names).not.toContain('mc_mark');
    await assertTableMatches(client, s.client);
  });

  it('one MCP session per client session; each hears list_changed; DELETE ends a session', async () => {
    const s = await stack();
    const { server } = await serve(s.daemon.apiAddress.port);
    const a = await connect(server.url);
    const b = await connect(server.url);
    expect(a.transport.sessionId).toBeTruthy();
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    await waitUntil(() => server.sessions() === 2, 5_000, 'two sessions');
    for (const c of [a, b]) expect((await c.client.listTools()).tools.map((t) => t.name)).toContain('mc_command');

    s.sim.setCapabilities(['state', 'entities']);
    s.sim.hangUp();
    await waitUntil(() => a.listChanges() > 0 && b.listChanges() > 0, 5_000, 'list_changed on both sessions');
    await waitUntil(() => s.daemon.host.link.connected, 5_000, 'the reconnect');
    expect((await b.client.listTools()).tools.map((t) => t.name)).not.toContain('mc_command');

    await a.transport.terminateSession();
    await waitUntil(() => server.sessions() === 1, 5_000, 'the DELETEd session to close');
    expect(JSON.parse(text(await b.client.callTool({ name: 'mc_state', arguments: {} })))).toMatchObject({ type: 'state' });
  });

  it('closes a session that went idle without DELETE, and keeps one that still has a stream open', async () => {
    const s = await stack();
    const { server } = await serve(s.daemon.apiAddress.port, { sessionIdleMs: 300 });
    const live = await connect(server.url); // the SDK client keeps its SSE stream open
    const init = await raw(server.port, { headers: { authorization: '' }, body: INITIALIZE });
    expect(init.status).toBe(200);
    const abandoned = String(init.headers['mcp-session-id']);
    await waitUntil(() => server.sessions() === 2, 5_000, 'two sessions');
    await waitUntil(() => server.sessions() === 1, 5_000, 'the idle session to be closed');
    const gone = await raw(server.port, {
      headers: { 'mcp-session-id': abandoned, 'mcp-protocol-version': '2025-06-18' },
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    });
    expect(gone.status).toBe(404);
    expect(JSON.parse(text(await live.client.callTool({ name: 'mc_state', arguments: {} })))).toMatchObject({ type: 'state' });
  });

  it('answers a batch only in a 2025-03-26 session, as stdio does; never an initialize batch', async () => {
    const s = await stack();
    const { server } = await serve(s.daemon.apiAddress.port);
    const batch = [
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
    ];
    const answers: Record<string, unknown> = {};
    for (const version of ['2025-06-18', '2025-03-26']) {
      const init = await raw(server.port, { body: { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } } });
      const headers = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': version, accept: 'application/json, text/event-stream' };
      await raw(server.port, { headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
      const answer = await raw(server.port, { headers, body: batch });
      answers[version] = { status: answer.status, body: answer.body };
    }
    expect(answers['2025-06-18']).toMatchObject({ status: 400, body: expect.stringContaining('a batch (JSON array) is only answered in MCP 2025-03-26; this session negotiated 2025-06-18') });
    expect(answers['2025-03-26']).toMatchObject({ status: 200, body: expect.stringMatching(/"id":2[\s\S]*"id":3/) });
    const initBatch = await raw(server.port, { body: [INITIALIZE] });
    expect(initBatch.status).toBe(400);
    expect(initBatch.body).toContain('this session is not initialized');
  });

  it('cancels mc_wait over HTTP: the daemon stops waiting', async () => {
    const s = await stack();
    const { server } = await serve(s.daemon.apiAddress.port);
    const { client } = await connect(server.url);
    await assertWaitCancels(client, s);
  });

  describe('security', () => {
    it('with a token, refuses requests without it (401) or with a wrong one, and serves the right one', async () => {
      const { server } = await serve(await freePort(), { token: TOKEN });
      const none = await raw(server.port, { body: INITIALIZE });
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(JSON.parse(none.body).error.message).toMatch(/bearer token/);
      const wrong = await raw(server.port, { body: INITIALIZE, headers: { authorization: 'Bearer not-the-token-at-all' } });
      expect(wrong.status).toBe(401);
      const sse = await raw(server.port, { method: 'GET', headers: { accept: 'text/event-stream' } });
      expect(sse.status).toBe(401);
      const right = await raw(server.port, { body: INITIALIZE, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(right.status).toBe(200);
      expect(right.body).toMatch(/"serverInfo":\{"name":"mcbridge"/);
      expect(right.body).toContain(`"version":"${JSON.parse(fs.readFileSync('package.json', 'utf8')).version}"`);
      // The SDK client with the token works end to end.
      const { client } = await connect(server.url, TOKEN);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await expect(connect(server.url, 'wrong-token-0123456789')).rejects.toThrow();
    });

    it('refuses a foreign Origin (403) and accepts a loopback one', async () => {
      const { server } = await serve(await freePort());
      const foreign = await raw(server.port, { body: INITIALIZE, headers: { origin: 'https://evil.example' } });
      expect(foreign.status).toBe(403);
      expect(JSON.parse(foreign.body).error.message).toMatch(/Origin 'https:\/\/evil\.example' is not allowed/);
      const local = await raw(server.port, { body: INITIALIZE, headers: { origin: 'http://localhost:6274' } });
      expect(local.status).toBe(200);
    });

    it('refuses a foreign Host (403), even with the right token', async () => {
      const { server } = await serve(await freePort(), { token: TOKEN });
      const rebound = await raw(server.port, { body: INITIALIZE, headers: { host: `attacker.example:${server.port}`, authorization: `Bearer ${TOKEN}` } });
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.body).error.message).toMatch(/Host 'attacker\.example:\d+' is not allowed/);
      const localhost = await raw(server.port, { body: INITIALIZE, headers: { host: `localhost:${server.port}`, authorization: `Bearer ${TOKEN}` } });
      expect(localhost.status).toBe(200);
    });

    it('answers 404 off the endpoint and for unknown sessions, 400 without a session', async () => {
      const { server } = await serve(await freePort());
      expect((await raw(server.port, { path: '/', body: INITIALIZE })).status).toBe(404);
      expect((await raw(server.port, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers: { 'mcp-session-id': 'no-such-session' } })).status).toBe(404);
      expect((await raw(server.port, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } })).status).toBe(400);
      expect((await raw(server.port, { method: 'GET', headers: { accept: 'text/event-stream' } })).status).toBe(400);
      const garbage = await new Promise<number>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{not json');
      });
      expect(garbage).toBe(400);
    });

    it('refuses a body over 4 MiB (413) and goes on serving', async () => {
      const { server } = await serve(await freePort());
      const big = await raw(server.port, { body: { ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: { pad: 'x'.repeat(4 * 1024 * 1024) } } } });
      expect(big.status).toBe(413);
      expect(JSON.parse(big.body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `request body over ${4 * 1024 * 1024} bytes` } });
      expect((await raw(server.port, { body: INITIALIZE })).status).toBe(200);
    });

    it('refuses a message nesting deeper than 64 levels before parsing it (400, with its id), and takes one at the bound', async () => {
      const { server } = await serve(await freePort());
      const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
      // The envelope and params are two levels: capabilities 62 deep make a message 64 deep.
      const message = (depth: number) => ({ ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: nested(depth) } });
      const deep = await raw(server.port, { body: message(63) });
      expect(deep.status).toBe(400);
      expect(JSON.parse(deep.body)).toEqual({
        jsonrpc: '2.0',
        id: INITIALIZE.id,
        error: { code: -32600, message: 'a message nesting deeper than 64 levels was dropped: tool arguments nest a few levels at most' },
      });
      expect((await raw(server.port, { body: message(62) })).status).toBe(200);
    });

    it('refuses to bind a non-loopback address without a token; with one, binds and requires it', async () => {
      const frontend = new McpFrontend({ api: { port: await freePort() }, log: silentLogger(), startupWaitMs: 100 });
      defer(() => frontend.close());
      await expect(startHttp(frontend, { host: '0.0.0.0', port: 0, log: silentLogger() })).rejects.toThrow(/refusing to serve MCP on 0\.0\.0\.0 without a token/);
      const open = await startHttp(frontend, { host: '0.0.0.0', port: 0, token: TOKEN, log: silentLogger() });
      defer(() => open.close());
      expect((await raw(open.port, { body: INITIALIZE })).status).toBe(401);
      expect((await raw(open.port, { body: INITIALIZE, headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    });

    it('--token auto generates a token, prints it once, stores it 0600 and reuses it', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-token-'));
      defer(() => fs.rmSync(dir, { recursive: true, force: true }));
      const tokenFile = path.join(dir, 'nested', 'mcp-token');
      const apiPort = String(await freePort());
      const start = async () => {
        const child = spawn(process.execPath, [BIN, 'mcp', '--transport', 'http', '--port', '0', '--token', 'auto', '--token-file', tokenFile, '--api-port', apiPort, '--startup-wait', '0.1']);
        const out = { stdout: '', stderr: '' };
        child.stdout.on('data', (d) => (out.stdout += d));
        child.stderr.on('data', (d) => (out.stderr += d));
        defer(async () => {
          if (child.exitCode === null) {
            child.kill('SIGTERM');
            await new Promise((r) => child.once('exit', r));
          }
        });
        await waitUntil(() => out.stdout.includes('\n'), 10_000, 'the endpoint line');
        return { child, out, endpoint: JSON.parse(out.stdout.split('\n')[0]!) as { url: string; port: number; auth: string } };
      };
      const first = await start();
      expect(first.endpoint.auth).toBe('bearer');
      const token = fs.readFileSync(tokenFile, 'utf8').trim();
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
      expect(first.out.stderr.split(token).length - 1).toBe(1);
      expect(first.out.stdout).not.toContain(token);
      expect((await raw(first.endpoint.port, { body: INITIALIZE })).status).toBe(401);
      expect((await raw(first.endpoint.port, { body: INITIALIZE, headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      first.child.kill('SIGTERM');
      expect(await new Promise((r) => first.child.once('exit', r))).toBe(0);

      const second = await start();
      expect(second.out.stderr).not.toContain(token);
      expect((await raw(second.endpoint.port, { body: INITIALIZE, headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    });

    it('the CLI refuses a non-loopback bind without a token: a usage error (exit 2)', async () => {
      const { code, stderr } = await runNode([BIN, 'mcp', '--transport', 'http', '--host', '0.0.0.0', '--port', '0', '--api-port', String(await freePort())], { env: { MCBRIDGE_MCP_TOKEN: '' } });
      expect(code).toBe(2);
      expect(stderr).toMatch(/refusing to serve MCP on 0\.0\.0\.0 without a token.*Pass --token auto/);
    });
  });
});

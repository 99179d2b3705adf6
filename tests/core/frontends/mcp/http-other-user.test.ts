/**
 * Without a token every local process reaches the MCP HTTP server from 127.x. A process of
 * another user must not fill the server or push this user's clients out, whatever loopback
 * addresses it uses (issue 35, item 15): its sessions count as that user's share.
 * The hog is a real process running as `nobody`; the test needs root to start it so.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { MAX_SESSIONS_PER_CLIENT } from '../../../../core/frontends/mcp/sessions.js';
import { cleanupsAfterEach, fetchFrom, httpFrontOf, INITIALIZE, probeStack, raw } from '../../../support/mcp.js';

const defer = cleanupsAfterEach();
const NOBODY = 65534;

/** Opens every session it can from 127.0.0.1-4, holds an SSE stream on each, prints its counts, waits. */
const HOG = `
const http = require('node:http');
const port = Number(process.argv[2]);
const init = ${JSON.stringify(JSON.stringify(INITIALIZE))};
const headers = { host: '127.0.0.1:' + port, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
function post(from) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, localAddress: from, method: 'POST', path: '/mcp', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, id: res.headers['mcp-session-id'] }));
    });
    req.on('error', reject);
    req.end(init);
  });
}
function hold(from, id) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, localAddress: from, method: 'GET', path: '/mcp', agent: false,
      headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18', accept: 'text/event-stream' } }, (res) => resolve(res.statusCode));
    req.on('error', reject);
    req.end();
  });
}
(async () => {
  const counts = { sessions: 0, streams: 0, refused: {} };
  for (const from of ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4']) {
    for (let i = 0; i < 20; i++) {
      const { status, id } = await post(from);
      if (status !== 200) { counts.refused[status] = (counts.refused[status] || 0) + 1; continue; }
      counts.sessions += 1;
      if ((await hold(from, id)) === 200) counts.streams += 1;
    }
  }
  process.stdout.write(JSON.stringify(counts) + '\\n');
})();
`;

interface HogCounts {
  sessions: number;
  streams: number;
  refused: Record<string, number>;
}

async function startHog(port: number): Promise<HogCounts> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mcbridge-hog-'));
  await chmod(dir, 0o755);
  const script = path.join(dir, 'hog.cjs');
  await writeFile(script, HOG, { mode: 0o644 });
  const child = spawn(process.execPath, [script, String(port)], { uid: NOBODY, gid: NOBODY, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  defer(() => child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(JSON.parse(out) as HogCounts);
    });
    child.on('exit', (code) => reject(new Error(`the hog exited (${code}) before its counts: ${err}`)));
  });
}

describe('MCP HTTP without a token: another local user cannot hog the server', { timeout: 60_000 }, () => {
  it('is run as root, so that it can start a process as nobody', () => {
    // Said out loud rather than skipped: the test below is the point of this file.
    expect(process.getuid?.(), 'run the suite as root (as CI does) for the other-user test').toBe(0);
  });

  it('a process of another user on four loopback addresses gets one share; this user still connects, calls a tool, and keeps its idle session', async () => {
    const s = await probeStack(defer);
    const server = await httpFrontOf(defer, s);

    // A session of this user's, between two calls (no stream open), from the hog's own address.
    const mine = await raw(server.port, { from: '127.0.0.1', body: INITIALIZE });
    expect(mine.status).toBe(200);
    const mineId = String(mine.headers['mcp-session-id']);

    const hog = await startHog(server.port);
    expect(hog).toEqual({ sessions: MAX_SESSIONS_PER_CLIENT, streams: MAX_SESSIONS_PER_CLIENT, refused: { 429: 80 - MAX_SESSIONS_PER_CLIENT } });
    expect(server.sessions()).toBe(MAX_SESSIONS_PER_CLIENT + 1);

    const ping = await raw(server.port, { from: '127.0.0.1', headers: { 'mcp-session-id': mineId, 'mcp-protocol-version': '2025-06-18' }, body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
    expect(ping.status).toBe(200);

    const client = new Client({ name: 'after-the-hog', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch: fetchFrom('127.0.0.1') }));
    defer(() => client.close());
    const state = await client.callTool({ name: 'mc_state', arguments: {} });
    expect(state.isError).not.toBe(true);
    expect(state.structuredContent).toMatchObject({ type: 'state' });
  });
});

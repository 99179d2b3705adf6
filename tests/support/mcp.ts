import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ApiClient } from '../../core/api/client.js';
import type { Manifest } from '../../core/host/plugin-api.js';
import { definePlugin, defineTool, HOST_API_VERSION, type McbridgeError } from '../../core/index.js';
import { silentLogger } from '../../core/util/log.js';
import { McpFrontend, type McpFrontendOptions } from '../../core/frontends/mcp/frontend.js';
import { parseErrorResult } from '../../core/frontends/mcp/projection.js';
import { startHttp, type HttpOptions, type McpHttpServer } from '../../core/frontends/mcp/http.js';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { Readable } from 'node:stream';
import { afterEach, expect } from 'vitest';
import { startStack, waitUntil, type Stack } from './helpers.js';

/**
 * A third-party-style plugin: a tool with an output schema (structured results) and a
 * composite that chains other tools, as an npm plugin or a config composite would.
 */
export const probePlugin = definePlugin({
  name: 'mcbridge-plugin-probe',
  version: '1.0.0',
  apiVersion: HOST_API_VERSION,
  tools: [
    defineTool({
      name: 'probe',
      description: 'Echo a word with its length (structured). Calls `state` never; see `events` for history.',
      input: z.object({ word: z.string().min(1) }).strict(),
      output: z.object({ word: z.string(), length: z.number().int() }),
      annotations: { readOnly: true, idempotent: true },
      run: async ({ word }) => ({ word, length: word.length }),
    }),
    defineTool({
      name: 'state_census',
      description: 'Composite: read the state, then count the entities the instance ticks, in one call.',
      input: z.object({ label: z.string().min(1) }).strict(),
      requires: ['state', 'entities'],
      annotations: { readOnly: true },
      run: async ({ label }, ctx) => {
        const state = (await ctx.call('state')) as { type: string };
        const entities = (await ctx.call('entities')) as { entities: unknown[] };
        return { label, state: state.type, entities: entities.entities.length };
      },
    }),
    defineTool({
      name: 'patient_state',
      description: 'Composite: let N ticks pass, then read the state. Cancelling it stops the wait inside.',
      input: z.object({ ticks: z.number().int().min(0) }).strict(),
      requires: ['wait', 'state'],
      annotations: { readOnly: true },
      run: async ({ ticks }, ctx) => {
        await ctx.call('wait', { ticks });
        return ctx.call('state');
      },
    }),
  ],
});

/** Registers cleanups for the running test; they run newest first after it. */
export function cleanupsAfterEach(): (fn: () => unknown) => void {
  const list: Array<() => unknown> = [];
  afterEach(async () => {
    for (const fn of list.splice(0).reverse()) await fn();
  });
  return (fn) => void list.push(fn);
}

/** Sim + daemon (with the probe plugin loaded like an npm plugin), closed after the test. */
/** The MCP front-end over streamable HTTP in this process, in front of `stack`'s daemon; closed after the test. */
export async function httpFrontOf(defer: (fn: () => unknown) => void, stack: Stack, options: Partial<HttpOptions> = {}): Promise<McpHttpServer> {
  const frontend = new McpFrontend({ api: { port: stack.daemon.apiAddress.port }, log: silentLogger() });
  frontend.start();
  defer(() => frontend.close());
  const server = await startHttp(frontend, { port: 0, log: silentLogger(), ...options });
  defer(() => server.close());
  return server;
}

export async function probeStack(defer: (fn: () => unknown) => void, options: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  const s = await startStack({ ...options, daemon: { plugins: [{ plugin: probePlugin, source: 'npm' }], ...options.daemon } });
  defer(() => s.close());
  return s;
}

/** Run `node <args>` to completion: exit code and output. */
export function runNode(args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...options.env } });
    const out = { stdout: '', stderr: '' };
    child.stdout.on('data', (d) => (out.stdout += d));
    child.stderr.on('data', (d) => (out.stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${args.join(' ')} did not finish; stderr: ${out.stderr}`));
    }, options.timeoutMs ?? 45_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, ...out });
    });
  });
}

export interface Connected {
  client: Client;
  /** Every message the server sent to this client, in order. */
  sent: JSONRPCMessage[];
  /** Every message the client sent to the server, in order. */
  requests: JSONRPCMessage[];
  listChanges: () => number;
  close(): Promise<void>;
}

/** A real SDK client wired to a session of the front-end through the in-memory transport. */
export async function connectInMemory(frontend: McpFrontend): Promise<Connected> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = serverTransport.send.bind(serverTransport);
  (serverTransport as Transport).send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  const requests: JSONRPCMessage[] = [];
  const clientSend = clientTransport.send.bind(clientTransport);
  (clientTransport as Transport).send = (message, options) => {
    requests.push(message);
    return clientSend(message, options);
  };
  await frontend.createServer().connect(serverTransport);
  const client = new Client({ name: 'mcbridge-test', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes += 1;
  });
  await client.connect(clientTransport);
  return { client, sent, requests, listChanges: () => changes, close: () => client.close() };
}

export function frontendFor(port: number, options: Partial<McpFrontendOptions> = {}): McpFrontend {
  const frontend = new McpFrontend({ api: { port }, log: silentLogger(), reconnectMinMs: 20, reconnectMaxMs: 200, ...options });
  frontend.start();
  return frontend;
}

export function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  const first = content[0];
  if (first?.type !== 'text') throw new Error('expected a text block first');
  return first.text;
}

export function errorOf(result: unknown): { code: string; error: string } | null {
  return parseErrorResult(result as CallToolResult);
}

// ---- one table of calls, every front-end ---------------------------------------------

export interface TableRow {
  tool: string;
  args: Record<string, unknown>;
  /** The outcome the local API gives: a result `type`, or an error code. */
  expect: { type?: string; code?: string };
}

/** Calls across the tool families, with outcomes that do not depend on timing. */
export const CALL_TABLE: TableRow[] = [
  { tool: 'status', args: {}, expect: {} },
  { tool: 'capabilities', args: {}, expect: { type: 'capabilities' } },
  { tool: 'state', args: {}, expect: { type: 'state' } },
  { tool: 'entities', args: { radius: 8 }, expect: { type: 'entities_summary' } },
  { tool: 'entities', args: { radius: 8, summary: false }, expect: { type: 'entities' } },
  { tool: 'command', args: { command: 'time query daytime' }, expect: { type: 'cmd_ack' } },
  { tool: 'events', args: { since: 0, limit: 1 }, expect: {} },
  { tool: 'wait', args: { ticks: 1 }, expect: { type: 'wait_ack' } },
  { tool: 'command_output', args: { command: 'time query daytime' }, expect: {} },
  { tool: 'events_summary', args: {}, expect: {} },
  { tool: 'save', args: {}, expect: {} },
  { tool: 'wait_for', args: { match: { state: { path: 'players', gte: 0 } } }, expect: {} },
  { tool: 'probe', args: { word: 'creeper' }, expect: {} },
  { tool: 'state_census', args: { label: 'table' }, expect: {} },
  // Refusals: same code (and message) as the local API.
  { tool: 'entities', args: { radius: 'far' }, expect: { code: 'invalid_params' } },
  { tool: 'state', args: { verbose: true }, expect: { code: 'invalid_params' } },
  { tool: 'command', args: {}, expect: { code: 'invalid_params' } },
  { tool: 'wait', args: { ticks: -1 }, expect: { code: 'invalid_params' } },
  { tool: 'mark', args: { text: 'not advertised' }, expect: { code: 'unsupported_capability' } },
  { tool: 'frobnicate', args: {}, expect: { code: 'unknown_method' } },
];

/** CAPS for the table's stack: everything the server mod has except `mark`. */
export const TABLE_CAPS = ['state', 'entities', 'command', 'wait', 'snapshot', 'events:game', 'events:chat'];

type Outcome = { ok: true; keys: string[]; type?: unknown; result: Record<string, unknown> } | { ok: false; code: string; error: string };

function outcomeOfValue(value: unknown): Outcome {
  const result = (value ?? {}) as Record<string, unknown>;
  return { ok: true, keys: Object.keys(result).sort(), type: result.type, result };
}

export async function viaApi(api: ApiClient, row: TableRow): Promise<Outcome> {
  try {
    return outcomeOfValue(await api.call(row.tool, row.args));
  } catch (err) {
    return { ok: false, code: (err as McbridgeError).code, error: (err as McbridgeError).message };
  }
}

export async function viaMcp(client: Client, row: TableRow): Promise<Outcome & { structured?: unknown }> {
  const result = await client.callTool({ name: `mc_${row.tool}`, arguments: row.args });
  const error = errorOf(result);
  if (result.isError) {
    if (!error) throw new Error(`error result without {code, error}: ${JSON.stringify(result)}`);
    return { ok: false, code: error.code, error: error.error };
  }
  const parsed = JSON.parse(text(result));
  return { ...outcomeOfValue(parsed), structured: result.structuredContent };
}

/**
 * Run the table through MCP and through the local API: same outcome kind, same result
 * shape and type, same error code, and the same message (but for the tool's name).
 */
export async function assertTableMatches(client: Client, api: ApiClient): Promise<void> {
  const tools = (await client.listTools()).tools;
  // Every tool has an output schema; those that declare no object shape answer under `result`.
  expect(tools.filter((t) => !t.outputSchema)).toEqual([]);
  const wrapped = new Set(tools.filter((t) => (t.outputSchema?.required as string[] | undefined)?.includes('result') && Object.keys(t.outputSchema?.properties ?? {}).length === 1).map((t) => t.name));
  // A tool's MCP defaults (mc_entities summarises) are what the local API gets asked for explicitly.
  const manifest = (await api.call('tools', {})) as Manifest;
  const mcpDefaults = new Map(manifest.tools.map((t) => [t.name, t.mcpDefaults ?? {}]));
  for (const row of CALL_TABLE) {
    const label = `${row.tool} ${JSON.stringify(row.args)}`;
    const direct = await viaApi(api, { ...row, args: { ...mcpDefaults.get(row.tool), ...row.args } });
    const mcp = await viaMcp(client, row);
    if (row.expect.code) {
      expect(direct, label).toMatchObject({ ok: false, code: row.expect.code });
      expect(mcp, label).toMatchObject({ ok: false, code: row.expect.code });
      if (row.expect.code !== 'unknown_method') expect((mcp as { error: string }).error, label).toBe((direct as { error: string }).error);
    } else {
      expect(direct.ok, label).toBe(true);
      expect(mcp.ok, label).toBe(true);
      if (direct.ok && mcp.ok) {
        expect(mcp.keys, label).toEqual(direct.keys);
        expect(mcp.type, label).toEqual(direct.type);
        if (row.expect.type) expect(mcp.type, label).toBe(row.expect.type);
        // structuredContent always, equal to the text rendering (under `result` for an undeclared shape).
        if (wrapped.has(`mc_${row.tool}`)) expect(mcp.structured, label).toEqual({ result: mcp.result });
        else expect(mcp.structured, label).toEqual(mcp.result);
      }
    }
  }
  // Structured results for the tool with an output schema, identical to the text rendering.
  const probe = await client.callTool({ name: 'mc_probe', arguments: { word: 'creeper' } });
  expect(probe.structuredContent).toEqual({ word: 'creeper', length: 7 });
  expect(JSON.parse(text(probe))).toEqual(probe.structuredContent);
  expect(await api.call('probe', { word: 'creeper' })).toEqual(probe.structuredContent);
}

/**
 * Cancel a call that waits 3000 ticks (`mc_wait`, or a composite around it) mid-wait: the
 * client's call ends, and the daemon stops waiting (its WAIT connection to the mod closes).
 */
export async function assertWaitCancels(client: Client, s: Stack, tool = 'mc_wait'): Promise<void> {
  const controller = new AbortController();
  const outcome = client.callTool({ name: tool, arguments: { ticks: 3000 } }, undefined, { signal: controller.signal }).then(
    () => 'resolved',
    (err: Error) => err.message,
  );
  await waitUntil(() => s.sim.received.includes('WAIT 3000'), 5_000, 'the WAIT to reach the mod');
  const during = s.sim.connections;
  controller.abort();
  expect(await outcome).not.toBe('resolved');
  await waitUntil(() => s.sim.connections === during - 1, 5_000, 'the WAIT connection to close');
}

// ---- MCP over HTTP from a chosen loopback address -------------------------------------

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RawOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The source address (any of 127.0.0.0/8 on Linux): another address is another client without a token. */
  from?: string;
}

export const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

function rawRequest(port: number, options: RawOptions, onResponse: (res: http.IncomingMessage) => void): http.ClientRequest {
  const req = http.request(
    {
      host: '127.0.0.1',
      port,
      localAddress: options.from,
      method: options.method ?? 'POST',
      path: options.path ?? '/mcp',
      headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...options.headers },
    },
    onResponse,
  );
  req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  return req;
}

/** A raw request, so Host, Origin, Authorization and the source address are exactly what the test says. */
export function raw(port: number, options: RawOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    rawRequest(port, options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    }).on('error', reject);
  });
}

/**
 * Open a session's SSE stream (GET) and keep it open: the session is busy until `close`.
 * Resolves once the server has answered, so it has counted the stream.
 */
export function holdStream(port: number, sessionId: string, options: RawOptions = {}): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = rawRequest(port, { ...options, method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, ...options.headers } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

/** `fetch` for the SDK's StreamableHTTPClientTransport, from a chosen source address (SSE streams included). */
export function fetchFrom(localAddress: string): FetchLike {
  return (url, init = {}) =>
    new Promise((resolve, reject) => {
      const req = http.request(url, { method: init.method ?? 'GET', localAddress, headers: Object.fromEntries(new Headers(init.headers)), signal: init.signal ?? undefined }, (res) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
        const status = res.statusCode ?? 0;
        const empty = [204, 205, 304].includes(status);
        if (empty) res.resume();
        resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, headers }));
      });
      req.on('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
}

/**
 * The front-end's own MCP protocol layer (core/frontends/mcp/protocol.ts), driven with raw
 * JSON-RPC through the SDK's in-memory transport pair, and the SDK's own client where a real
 * client's view matters.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION as SDK_LATEST, SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION, RPC, RpcError, SUPPORTED_PROTOCOL_VERSIONS } from '../../../../core/frontends/mcp/jsonrpc.js';
import { McpSession, type RequestExtra } from '../../../../core/frontends/mcp/protocol.js';
import { waitUntil } from '../../../support/helpers.js';

interface Wire {
  session: McpSession;
  /** What the server sent, in order, with the options it sent each with. */
  out: Array<{ message: Record<string, unknown>; options?: TransportSendOptions }>;
  send(message: unknown): Promise<void>;
  /** The next message the server sends after the ones already seen. */
  next(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

const open: Wire[] = [];
afterEach(async () => {
  for (const wire of open.splice(0)) await wire.close();
});

async function wire(setup: (session: McpSession) => void = () => {}): Promise<Wire> {
  const session = new McpSession({ name: 'test', version: '1.2.3' }, {
    capabilities: { tools: { listChanged: true } },
    instructions: 'be kind',
    debouncedNotificationMethods: ['notifications/tools/list_changed'],
  });
  setup(session);
  const [client, server] = InMemoryTransport.createLinkedPair();
  const out: Wire['out'] = [];
  const send = server.send.bind(server);
  server.send = (message: JSONRPCMessage, options?: TransportSendOptions) => {
    out.push({ message: message as unknown as Record<string, unknown>, options });
    return send(message, options);
  };
  await session.connect(server);
  await client.start();
  let seen = 0;
  const w: Wire = {
    session,
    out,
    send: (message) => client.send(message as JSONRPCMessage),
    next: async () => {
      await waitUntil(() => out.length > seen, 2_000, 'a message from the server');
      return out[seen++]!.message;
    },
    close: () => client.close(),
  };
  open.push(w);
  return w;
}

const initialize = (id: number, protocolVersion: unknown) =>
  ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } } });

describe('the MCP protocol layer', () => {
  it('speaks the protocol versions the SDK does, newest first', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_SUPPORTED);
    expect(LATEST_PROTOCOL_VERSION).toBe(SDK_LATEST);
  });

  it('initialize: echoes a supported version, offers the newest for another, and refuses a missing one', async () => {
    const w = await wire();
    await w.send(initialize(1, '2025-06-18'));
    expect(await w.next()).toEqual({
      jsonrpc: '2.0', id: 1,
      result: { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'test', version: '1.2.3' }, instructions: 'be kind' },
    });
    await w.send(initialize(2, '1999-01-01'));
    expect(((await w.next()).result as { protocolVersion: string }).protocolVersion).toBe(SDK_LATEST);
    await w.send(initialize(3, 7));
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: RPC.invalidParams, message: 'initialize: params.protocolVersion must be a string, got a number' } });
  });

  it('answers ping, refuses an unknown method, and passes an RpcError on with its code and data', async () => {
    const w = await wire((s) => {
      s.setRequestHandler('boom', () => {
        throw new RpcError(RPC.resourceNotFound, 'no such thing', { uri: 'x' });
      });
      s.setRequestHandler('crash', () => {
        throw new TypeError('it broke');
      });
      s.setRequestHandler('echo', (params) => ({ got: params }));
    });
    await w.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    await w.send({ jsonrpc: '2.0', id: 2, method: 'tools/nope' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 2, error: { code: RPC.methodNotFound, message: 'Method not found' } });
    await w.send({ jsonrpc: '2.0', id: 3, method: 'boom' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32002, message: 'no such thing', data: { uri: 'x' } } });
    await w.send({ jsonrpc: '2.0', id: 4, method: 'crash' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 4, error: { code: RPC.internalError, message: 'it broke' } });
    await w.send({ jsonrpc: '2.0', id: 5, method: 'echo', params: { a: [1] } });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 5, result: { got: { a: [1] } } });
  });

  it('refuses what is not a request with a clear error, and ignores responses and unknown notifications', async () => {
    const w = await wire((s) => s.setRequestHandler('echo', (params) => params));
    await w.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(await w.next()).toMatchObject({ id: null, error: { code: RPC.invalidRequest, message: expect.stringContaining('batches') } });
    await w.send({ id: 2, method: 'ping' });
    expect(await w.next()).toMatchObject({ id: 2, error: { code: RPC.invalidRequest, message: expect.stringContaining('"jsonrpc": "2.0"') } });
    await w.send({ jsonrpc: '2.0', id: 3, method: 'echo', params: [1, 2] });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: RPC.invalidParams, message: 'echo: params must be an object' } });
    await w.send({ jsonrpc: '2.0', id: { no: 1 }, method: 'echo' });
    expect(await w.next()).toMatchObject({ id: null, error: { code: RPC.invalidRequest, message: expect.stringContaining('string or a number') } });
    await w.send({ jsonrpc: '2.0', id: 4 });
    expect(await w.next()).toMatchObject({ id: 4, error: { code: RPC.invalidRequest, message: expect.stringContaining('"method"') } });
    // None of these is answered; the request after them is, and comes next.
    await w.send({ jsonrpc: '2.0', id: 9, result: {} });
    await w.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    await w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'none' } });
    await w.send({ jsonrpc: '2.0', id: 5, method: 'echo', params: { x: 1 } });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 5, result: { x: 1 } });
  });

  it('a cancelled request aborts its handler and is never answered; the next one is', async () => {
    let seen: RequestExtra | undefined;
    const w = await wire((s) => {
      s.setRequestHandler('slow', (_params, extra) => {
        seen = extra;
        return new Promise((resolve) => extra.signal.addEventListener('abort', () => resolve({ late: true })));
      });
    });
    await w.send({ jsonrpc: '2.0', id: 7, method: 'slow', params: { _meta: { progressToken: 'tok' } } });
    await waitUntil(() => seen !== undefined, 2_000, 'the handler to start');
    expect(seen!.requestId).toBe(7);
    expect(seen!._meta).toEqual({ progressToken: 'tok' });
    await w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } });
    await waitUntil(() => seen!.signal.aborted, 2_000, 'the abort');
    expect(seen!.signal.reason).toBe('user');
    await w.send({ jsonrpc: '2.0', id: 8, method: 'ping' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
    expect(w.out.map((o) => o.message.id)).toEqual([8]);
  });

  it('a notification about a request goes with its id; list changes in one turn go out once; none after close', async () => {
    let release!: () => void;
    const w = await wire((s) => {
      s.setRequestHandler('work', async (_params, extra) => {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
        await new Promise<void>((resolve) => (release = resolve));
        return { done: true };
      });
    });
    await w.send({ jsonrpc: '2.0', id: 'w', method: 'work' });
    expect(await w.next()).toMatchObject({ method: 'notifications/progress', params: { progress: 1 } });
    expect(w.out[0]!.options).toEqual({ relatedRequestId: 'w' });

    await Promise.all([w.session.sendToolListChanged(), w.session.sendToolListChanged(), w.session.sendToolListChanged()]);
    expect(await w.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await w.session.sendResourceUpdated({ uri: 'mcbridge://events' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mcbridge://events' } });
    expect(w.out).toHaveLength(3);

    // Closing aborts the handler still running; its answer is never sent.
    let closed = 0;
    w.session.onclose = () => (closed += 1);
    await w.session.close();
    release();
    await w.session.sendToolListChanged();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(1);
    expect(w.out).toHaveLength(3);
  });

  it('the SDK client initializes against it and hears initialized', async () => {
    const session = new McpSession({ name: 'test', version: '1.2.3' }, { capabilities: { tools: {} } });
    let initialized = 0;
    session.oninitialized = () => (initialized += 1);
    session.setRequestHandler('tools/list', () => ({ tools: [{ name: 't', inputSchema: { type: 'object' } }] }));
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await session.connect(serverTransport);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientTransport);
    try {
      expect(client.getServerVersion()).toEqual({ name: 'test', version: '1.2.3' });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['t']);
      await client.ping();
      expect(initialized).toBe(1);
      await expect(session.connect(serverTransport)).rejects.toThrow(/already connected/);
    } finally {
      await client.close();
    }
  });
});

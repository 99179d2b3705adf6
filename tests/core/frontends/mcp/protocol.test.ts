/**
 * The front-end's own MCP protocol layer (core/frontends/mcp/protocol.ts), driven with raw
 * JSON-RPC through the SDK's in-memory transport pair, and the SDK's own client where a real
 * client's view matters.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION as SDK_LATEST, SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION, objectParam, RPC, RpcError, stringParam, SUPPORTED_PROTOCOL_VERSIONS } from '../../../../core/frontends/mcp/jsonrpc.js';
import { isObject } from '../../../../core/kit/values.js';
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

/** A session on an in-memory pair; initialized first (its answer not kept) unless `initialized: false`. */
async function wire(setup: (session: McpSession) => void = () => {}, { initialized = true, protocolVersion = '2025-06-18' } = {}): Promise<Wire> {
  const session = new McpSession(
    { name: 'test', version: '1.2.3' },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: 'be kind',
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
    },
  );
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
  if (initialized) {
    await w.send(initialize('init', protocolVersion));
    await w.next();
    out.length = 0;
    seen = 0;
  }
  return w;
}

const initialize = (id: number | string, protocolVersion: unknown) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});

describe('the MCP protocol layer', () => {
  it('speaks the protocol versions the SDK does, newest first', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_SUPPORTED);
    expect(LATEST_PROTOCOL_VERSION).toBe(SDK_LATEST);
  });

  it('initialize: echoes a supported version, offers the newest for another, and refuses a missing one', async () => {
    const w = await wire(undefined, { initialized: false });
    await w.send(initialize(1, '2025-06-18'));
    expect(await w.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
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

  it('before initialize answers ping and refuses every other request, naming what to send first', async () => {
    let called = 0;
    const w = await wire((s) => s.setRequestHandler('tools/call', () => (called += 1)), { initialized: false });
    await w.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: RPC.invalidRequest, message: 'tools/call before initialize: send "initialize" first (then "notifications/initialized")' } });
    await w.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(w.session.protocolVersion).toBeUndefined();
    await w.send(initialize(3, '2025-06-18'));
    await w.next();
    await w.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'x' } });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 4, result: 1 as unknown as Record<string, unknown> });
    expect(called).toBe(1);
  });

  it('answers a batch as one array in order in a 2025-03-26 session only; never an initialize batch or an empty one', async () => {
    const w = await wire(
      (s) =>
        s.setRequestHandler('echo', async (params) => {
          await new Promise((resolve) => setTimeout(resolve, Number(params.wait ?? 0)));
          return params;
        }),
      { protocolVersion: '2025-03-26' },
    );
    await w.send([
      { jsonrpc: '2.0', id: 'slow', method: 'echo', params: { wait: 30 } },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 2, method: 'nope' },
      { jsonrpc: '2.0', id: 3, method: 'echo', params: { n: 3 } },
    ]);
    expect(await w.next()).toEqual([
      { jsonrpc: '2.0', id: 'slow', result: { wait: 30 } },
      { jsonrpc: '2.0', id: 2, error: { code: RPC.methodNotFound, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 3, result: { n: 3 } },
    ]);
    await w.send([]);
    expect(await w.next()).toMatchObject({ id: null, error: { code: RPC.invalidRequest, message: 'an empty batch: send at least one message' } });
    // Only notifications: nothing to answer.
    await w.send([{ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }]);
    await w.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 9, result: {} });

    const fresh = await wire(undefined, { initialized: false });
    await fresh.send([initialize(1, '2025-03-26')]);
    expect(await fresh.next()).toMatchObject({ id: null, error: { code: RPC.invalidRequest, message: expect.stringContaining('this session is not initialized') } });
  });

  it('refuses what is not a request with a clear error, and ignores responses and unknown notifications', async () => {
    const w = await wire((s) => s.setRequestHandler('echo', (params) => params));
    await w.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(await w.next()).toMatchObject({
      id: null,
      error: { code: RPC.invalidRequest, message: expect.stringContaining('a batch (JSON array) is only answered in MCP 2025-03-26; this session negotiated 2025-06-18') },
    });
    await w.send('a string');
    expect(await w.next()).toMatchObject({ id: null, error: { code: RPC.invalidRequest, message: expect.stringContaining('not a JSON-RPC 2.0 message') } });
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

  it('a request id in use again: the earlier one ending leaves the later one cancellable; a finished one is not cancelled', async () => {
    const started: RequestExtra[] = [];
    let releaseFirst!: () => void;
    const w = await wire((s) => {
      s.setRequestHandler('first', (_params, extra) => {
        started.push(extra);
        return new Promise((resolve) => (releaseFirst = () => resolve({ first: true })));
      });
      s.setRequestHandler('second', (_params, extra) => {
        started.push(extra);
        return new Promise((resolve) => extra.signal.addEventListener('abort', () => resolve({})));
      });
      s.setRequestHandler('quick', (_params, extra) => {
        started.push(extra);
        return { quick: true };
      });
    });
    await w.send({ jsonrpc: '2.0', id: 'x', method: 'first' });
    await w.send({ jsonrpc: '2.0', id: 'x', method: 'second' });
    await waitUntil(() => started.length === 2, 2_000, 'both handlers');
    releaseFirst();
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 'x', result: { first: true } });
    await w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x' } });
    await waitUntil(() => started[1]!.signal.aborted, 2_000, 'the second to be cancelled');

    await w.send({ jsonrpc: '2.0', id: 3, method: 'quick' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 3, result: { quick: true } });
    await w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } });
    await w.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(await w.next()).toMatchObject({ id: 4 });
    expect(started[2]!.signal.aborted).toBe(false);
  });

  it('only notifications/cancelled cancels; a cancelled handler sends no progress; an error response from the client is ignored', async () => {
    let extra: RequestExtra | undefined;
    const w = await wire((s) => {
      s.setRequestHandler('slow', (_params, e) => {
        extra = e;
        return new Promise(() => {});
      });
    });
    await w.send({ jsonrpc: '2.0', id: 'slow-1', method: 'slow' });
    await waitUntil(() => extra !== undefined, 2_000, 'the handler');
    await w.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { requestId: 'slow-1', progressToken: 1, progress: 1 } });
    await w.send({ jsonrpc: '2.0', method: 'notifications/initialized' }); // no oninitialized set: nothing happens
    await w.send({ jsonrpc: '2.0', method: 'notifications/other', params: [1] }); // bad params on a notification: no answer
    await w.send({ jsonrpc: '2.0', id: 77, error: { code: -1, message: 'from the client' } });
    await w.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    expect(extra!.signal.aborted).toBe(false);
    await w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow-1' } });
    await waitUntil(() => extra!.signal.aborted, 2_000, 'the cancel');
    await extra!.sendNotification({ method: 'notifications/progress', params: { progressToken: 1, progress: 2 } });
    await w.send({ jsonrpc: '2.0', id: 'q', method: 'ping' });
    expect(await w.next()).toEqual({ jsonrpc: '2.0', id: 'q', result: {} });
    expect(w.out).toHaveLength(2);
  });

  it('debounces only the methods it was told, only without params or a request; a notification about a request goes with it', async () => {
    let extra: RequestExtra | undefined;
    const w = await wire((s) => {
      s.setRequestHandler('hold', (_params, e) => {
        extra = e;
        return new Promise(() => {});
      });
    });
    await Promise.all([1, 2, 3].map(() => w.session.notification({ method: 'notifications/prompts/list_changed' })));
    await Promise.all([1, 2].map(() => w.session.sendResourceUpdated({ uri: 'mcbridge://events' })));
    await Promise.all([1, 2].map((n) => w.session.notification({ method: 'notifications/tools/list_changed', params: { n } })));
    await w.send({ jsonrpc: '2.0', id: 'h', method: 'hold' });
    await waitUntil(() => extra !== undefined, 2_000, 'the handler');
    await Promise.all([1, 2].map(() => extra!.sendNotification({ method: 'notifications/tools/list_changed' })));
    await waitUntil(() => w.out.length === 9, 2_000, 'nine notifications');
    expect(w.out.map((o) => [o.message.method, o.options])).toEqual([
      ['notifications/prompts/list_changed', undefined],
      ['notifications/prompts/list_changed', undefined],
      ['notifications/prompts/list_changed', undefined],
      ['notifications/resources/updated', undefined],
      ['notifications/resources/updated', undefined],
      ['notifications/tools/list_changed', undefined],
      ['notifications/tools/list_changed', undefined],
      ['notifications/tools/list_changed', { relatedRequestId: 'h' }],
      ['notifications/tools/list_changed', { relatedRequestId: 'h' }],
    ]);
  });

  it('says nothing before it is connected or once closed, and handles nothing its transport delivers after', async () => {
    const session = new McpSession({ name: 'test', version: '1' }, { capabilities: {}, debouncedNotificationMethods: ['notifications/tools/list_changed'] });
    await session.sendToolListChanged();
    await session.close();
    // A transport that goes on delivering after it closed.
    const sent: unknown[] = [];
    const transport: Transport = {
      start: async () => {},
      send: async (message) => void sent.push(message),
      close: async () => transport.onclose?.(),
    };
    await session.connect(transport);
    transport.onmessage!({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await waitUntil(() => sent.length === 1, 2_000, 'the pong');
    // No onerror set: a transport's error is not a throw.
    transport.onerror!(new Error('trouble'));
    // A list change on its way when the session closes is not sent.
    const onItsWay = session.sendToolListChanged();
    await session.close();
    await expect(onItsWay).resolves.toBeUndefined();
    transport.onmessage!({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await session.sendToolListChanged();
    await session.sendResourceUpdated({ uri: 'mcbridge://events' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('an answer the transport cannot send is reported through onerror, as is an error it cannot send', async () => {
    const session = new McpSession({ name: 'test', version: '1' }, { capabilities: {} });
    session.setRequestHandler('fine', () => ({ ok: true }));
    const errors: string[] = [];
    session.onerror = (error) => errors.push(error.message);
    const [client, server] = InMemoryTransport.createLinkedPair();
    server.send = () => Promise.reject(new Error('pipe gone'));
    await session.connect(server);
    await client.start();
    await client.send(initialize(0, '2025-06-18') as JSONRPCMessage);
    await client.send({ jsonrpc: '2.0', id: 1, method: 'fine' } as JSONRPCMessage);
    await client.send({ jsonrpc: '2.0', id: 2, method: 'nope' } as JSONRPCMessage);
    await waitUntil(() => errors.length === 3, 2_000, 'three reports');
    expect(errors.sort()).toEqual([0, 1, 2].map((id) => `could not send the answer to request ${id}: Error: pipe gone`));
    server.onerror?.(new Error('transport trouble'));
    expect(errors).toContain('transport trouble');
    await client.close();

    // With no onerror set, a send that fails is dropped without an unhandled rejection.
    const quiet = new McpSession({ name: 'test', version: '1' }, { capabilities: {} });
    const [c2, s2] = InMemoryTransport.createLinkedPair();
    let attempts = 0;
    s2.send = () => {
      attempts += 1;
      return Promise.reject(new Error('pipe gone'));
    };
    await quiet.connect(s2);
    await c2.start();
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      await c2.send({ jsonrpc: '2.0', id: 1, method: 'ping' } as JSONRPCMessage);
      await c2.send({ jsonrpc: '2.0', id: 2, method: 'nope' } as JSONRPCMessage);
      await waitUntil(() => attempts === 2, 2_000, 'two attempts');
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('unhandledRejection', onRejection);
    }
    expect(rejections).toEqual([]);
    await c2.close();
  });

  it('words a thrown value that is no Error as an internal error, and sends data only from an RpcError', async () => {
    const thrown: unknown[] = [
      'a string',
      null,
      { message: '' },
      Object.assign(new Error('with data'), { data: { secret: 1 } }),
      new RpcError(RPC.invalidParams, 'no data here'),
      new RpcError(RPC.invalidParams, ''),
    ];
    const w = await wire((s) => {
      s.setRequestHandler('throw', (params) => {
        throw thrown[params.i as number];
      });
    });
    const answers = [];
    for (let i = 0; i < thrown.length; i++) {
      await w.send({ jsonrpc: '2.0', id: i, method: 'throw', params: { i } });
      answers.push((await w.next()).error);
    }
    expect(answers).toEqual([
      { code: RPC.internalError, message: 'Internal error' },
      { code: RPC.internalError, message: 'Internal error' },
      { code: RPC.internalError, message: 'Internal error' },
      { code: RPC.internalError, message: 'with data' },
      { code: RPC.invalidParams, message: 'no data here' },
      { code: RPC.invalidParams, message: 'Internal error' },
    ]);
    expect(answers[4]).not.toHaveProperty('data');
  });
});

describe('the JSON-RPC helpers', () => {
  it('objectParam: absent is {}, an object is itself, anything else names what it got', () => {
    expect(objectParam({}, 'arguments', 'tools/call')).toEqual({});
    const given = { a: 1 };
    expect(objectParam({ arguments: given }, 'arguments', 'tools/call')).toBe(given);
    for (const [value, got] of [
      [[1], 'an array'],
      [null, 'null'],
      ['x', 'a string'],
      [3, 'a number'],
    ] as const) {
      expect(() => objectParam({ arguments: value }, 'arguments', 'tools/call')).toThrow(`tools/call: params.arguments must be an object, got ${got}`);
    }
    try {
      objectParam({ arguments: 1 }, 'arguments', 'tools/call');
    } catch (err) {
      expect(err).toBeInstanceOf(RpcError);
      expect(err).toMatchObject({ name: 'RpcError', code: RPC.invalidParams });
    }
  });

  it('stringParam names a missing value as nothing; isObject takes plain objects only', () => {
    expect(stringParam({ name: 'x' }, 'name', 'm')).toBe('x');
    expect(() => stringParam({}, 'name', 'prompts/get')).toThrow('prompts/get: params.name must be a string, got nothing');
    expect(() => stringParam({ name: null }, 'name', 'prompts/get')).toThrow('got null');
    expect([{}, { a: 1 }].map(isObject)).toEqual([true, true]);
    expect([null, [], 'x', 1, undefined].map(isObject)).toEqual([false, false, false, false, false]);
  });
});

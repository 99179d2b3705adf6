/**
 * One MCP session's server side: JSON-RPC requests in, results and notifications out, over any
 * transport shaped like the SDK's (our stdio one, the SDK's streamable HTTP one, its in-memory
 * pair in the tests). It is ours rather than the SDK's `Server` because that `Server` loads the
 * SDK's zod schemas for every message type, about half of `mcbridge mcp`'s start before its first
 * `tools/list` (docs/decisions.md, "The MCP protocol layer is ours"). It does what this server
 * needs: initialize and version negotiation, ping, request handlers by method, cancellation,
 * notifications tied to a request (progress) or debounced (list changes).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isObject } from '../../kit/values.js';
import { errorResponse, LATEST_PROTOCOL_VERSION, RPC, RpcError, stringParam, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type Params, type RequestId } from './jsonrpc.js';

export interface ServerInfo {
  name: string;
  title?: string;
  version: string;
}

export interface SessionOptions {
  capabilities: Record<string, unknown>;
  instructions?: string;
  /** Notifications without params sent at most once per turn of the event loop. */
  debouncedNotificationMethods?: string[];
}

export interface Notification {
  method: string;
  params?: Params;
}

/** What a request handler is given beside the request's params. */
export interface RequestExtra {
  /** Aborted when the client cancels the request or the session closes. */
  signal: AbortSignal;
  sessionId?: string;
  requestId: RequestId;
  _meta?: { progressToken?: string | number; [key: string]: unknown };
  /** A notification about this request (progress): sent on the request's own stream. */
  sendNotification(notification: Notification): Promise<void>;
}

export type RequestHandler = (params: Params, extra: RequestExtra) => unknown;

export class McpSession {
  oninitialized?: () => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private transport: Transport | undefined;
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly inFlight = new Map<RequestId, AbortController>();
  private readonly debounced = new Set<string>();
  private readonly pending = new Set<string>();
  private negotiated: string | undefined;

  constructor(
    private readonly info: ServerInfo,
    private readonly options: SessionOptions,
  ) {
    for (const method of options.debouncedNotificationMethods ?? []) this.debounced.add(method);
    this.handlers.set('initialize', (params) => this.initialize(params));
    this.handlers.set('ping', () => ({}));
  }

  /** Answer `method` with `handler`'s result (or its error); replaces an earlier handler. */
  setRequestHandler(method: string, handler: RequestHandler): void {
    this.handlers.set(method, handler);
  }

  async connect(transport: Transport): Promise<void> {
    if (this.transport) throw new Error('this MCP session is already connected; make a session per transport');
    this.transport = transport;
    const { onclose, onerror, onmessage } = transport;
    transport.onclose = () => {
      onclose?.();
      // Some transports report their close twice (the SDK's in-memory pair does); it ends the session once.
      if (this.transport === transport) this.closed();
    };
    transport.onerror = (error) => {
      onerror?.(error);
      this.onerror?.(error);
    };
    transport.onmessage = (message, extra) => {
      onmessage?.(message, extra);
      // A closed session handles nothing more, whatever its transport still delivers.
      if (this.transport === transport) this.receive(transport, message);
    };
    await transport.start();
  }

  async close(): Promise<void> {
    await this.transport?.close();
  }

  async notification(notification: Notification, relatedRequestId?: RequestId): Promise<void> {
    const transport = this.transport;
    if (!transport) return;
    const message = { jsonrpc: '2.0' as const, ...notification };
    if (relatedRequestId !== undefined || notification.params !== undefined || !this.debounced.has(notification.method)) {
      return transport.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId });
    }
    if (this.pending.has(notification.method)) return;
    this.pending.add(notification.method);
    await Promise.resolve();
    this.pending.delete(notification.method);
    await this.transport?.send(message);
  }

  sendToolListChanged(): Promise<void> {
    return this.notification({ method: 'notifications/tools/list_changed' });
  }

  sendResourceUpdated(params: { uri: string }): Promise<void> {
    return this.notification({ method: 'notifications/resources/updated', params });
  }

  /** The protocol version this session negotiated; undefined before `initialize`. */
  get protocolVersion(): string | undefined {
    return this.negotiated;
  }

  private initialize(params: Params): Record<string, unknown> {
    const requested = stringParam(params, 'protocolVersion', 'initialize');
    this.negotiated = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
    return {
      protocolVersion: this.negotiated,
      capabilities: this.options.capabilities,
      serverInfo: this.info,
      ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
    };
  }

  private receive(transport: Transport, message: JSONRPCMessage): void {
    const m: unknown = message;
    const send = (answer: JSONRPCMessage | JSONRPCMessage[]) =>
      transport.send(answer as JSONRPCMessage).catch((error: unknown) => {
        const to = Array.isArray(answer) ? 'a batch' : `request ${String((answer as { id?: unknown }).id)}`;
        this.onerror?.(new Error(`could not send the answer to ${to}: ${String(error)}`));
      });
    if (!Array.isArray(m)) {
      void this.answer(transport, m).then((answer) => answer && send(answer));
      return;
    }
    const refusal = batchRefusal(m, this.negotiated);
    if (refusal) {
      void send(errorResponse(null, RPC.invalidRequest, refusal));
      return;
    }
    // One array of answers, in order, once all are in; notifications in the batch get none.
    void Promise.all(m.map((item: unknown) => this.answer(transport, item))).then((answers) => {
      const sent = answers.filter((a) => a !== undefined);
      if (sent.length > 0) void send(sent);
    });
  }

  /** One message's answer: a result or error for a request, nothing for a notification or a response. */
  private answer(transport: Transport, m: unknown): Promise<JSONRPCMessage | undefined> {
    if (!isObject(m)) return refused(null, RPC.invalidRequest, 'not a JSON-RPC 2.0 message: send one object per message');
    const id = m.id;
    const hasId = typeof id === 'string' || typeof id === 'number';
    if (m.jsonrpc !== '2.0') {
      return refused(hasId ? id : null, RPC.invalidRequest, 'not a JSON-RPC 2.0 message: send an object with "jsonrpc": "2.0"');
    }
    if (typeof m.method !== 'string') {
      // A response: this server sends no requests, so none is awaited.
      if (hasId && ('result' in m || 'error' in m)) return Promise.resolve(undefined);
      return refused(hasId ? id : null, RPC.invalidRequest, 'a request needs a "method" string');
    }
    if (m.params !== undefined && !isObject(m.params)) {
      return hasId ? refused(id, RPC.invalidParams, `${m.method}: params must be an object`) : Promise.resolve(undefined);
    }
    const params = (m.params ?? {}) as Params;
    if (!('id' in m)) {
      this.onNotification(m.method, params);
      return Promise.resolve(undefined);
    }
    if (!hasId) return refused(null, RPC.invalidRequest, 'a request id must be a string or a number');
    // Before initialize only ping is answered (MCP lifecycle): nothing else knows the client yet.
    if (this.negotiated === undefined && m.method !== 'initialize' && m.method !== 'ping') {
      return refused(id, RPC.invalidRequest, `${m.method} before initialize: send "initialize" first (then "notifications/initialized")`);
    }
    return this.onRequest(transport, id, m.method, params);
  }

  private onNotification(method: string, params: Params): void {
    if (method === 'notifications/initialized') {
      this.oninitialized?.();
    } else if (method === 'notifications/cancelled') {
      const requestId = params.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.inFlight.get(requestId)?.abort(params.reason);
    }
    // Other notifications (progress for requests this server never sends, roots changes) need nothing.
  }

  private onRequest(transport: Transport, id: RequestId, method: string, params: Params): Promise<JSONRPCMessage | undefined> {
    const handler = this.handlers.get(method);
    if (!handler) return refused(id, RPC.methodNotFound, 'Method not found');
    const controller = new AbortController();
    this.inFlight.set(id, controller);
    const meta = isObject(params._meta) ? (params._meta as RequestExtra['_meta']) : undefined;
    const extra: RequestExtra = {
      signal: controller.signal,
      sessionId: transport.sessionId,
      requestId: id,
      _meta: meta,
      sendNotification: async (notification) => {
        if (!controller.signal.aborted) await this.notification(notification, id);
      },
    };
    // Out of the table before the answer goes, so a cancel that follows the answer finds nothing;
    // a later request reusing the id keeps its own entry.
    const ended = () => {
      if (this.inFlight.get(id) === controller) this.inFlight.delete(id);
      return !controller.signal.aborted;
    };
    // A handler that throws at once is answered like one that rejects; a cancelled one is not answered.
    return new Promise((resolve) => resolve(handler(params, extra))).then(
      (result) => (ended() ? ({ jsonrpc: '2.0', id, result: (result ?? {}) as Record<string, unknown> } as JSONRPCMessage) : undefined),
      (error: unknown) => (ended() ? errorMessage(id, error) : undefined),
    );
  }

  private closed(): void {
    this.transport = undefined;
    this.pending.clear();
    // Handlers still running stop, and nothing more is sent for them.
    for (const controller of this.inFlight.values()) controller.abort();
    this.inFlight.clear();
    this.onclose?.();
  }
}

function refused(id: RequestId | null, code: number, message: string): Promise<JSONRPCMessage> {
  return Promise.resolve(errorResponse(id, code, message));
}

/**
 * Why a batch (a JSON array of messages) is refused, or null to answer it. Batches were part
 * of MCP 2025-03-26 only (added then, removed in 2025-06-18), so only a session that
 * negotiated that version takes them, over stdio and HTTP alike; initialize is never batched.
 */
export function batchRefusal(batch: unknown[], negotiated: string | undefined): string | null {
  if (negotiated !== BATCH_PROTOCOL_VERSION) {
    return `a batch (JSON array) is only answered in MCP ${BATCH_PROTOCOL_VERSION}; this session ${negotiated ? `negotiated ${negotiated}` : 'is not initialized'}: send one message at a time`;
  }
  if (batch.length === 0) return 'an empty batch: send at least one message';
  return null;
}

const BATCH_PROTOCOL_VERSION = '2025-03-26';

function errorMessage(id: RequestId, error: unknown): JSONRPCMessage {
  if (error instanceof RpcError) return errorResponse(id, error.code, error.message || 'Internal error', error.data);
  const message = (error as { message?: unknown } | null)?.message;
  return errorResponse(id, RPC.internalError, typeof message === 'string' && message !== '' ? message : 'Internal error');
}

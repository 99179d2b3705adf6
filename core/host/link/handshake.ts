import type { EventEmitter } from 'node:events';
import type { AbortLike } from '../cancel.js';
import type { McbridgeError } from '../errors.js';
import { ModConnection, type ModMessage } from './connection.js';
import type { Vantage } from './discovery.js';
import { cancelledError, replyType } from './replies.js';

export interface GreetingSettings {
  host: string;
  vantage: Vantage;
  connectTimeoutMs: number;
  helloTimeoutMs: number;
  maxLineBytes: number;
  isStopped(): boolean;
  /** The connection while its greeting is awaited, then null: stop() closes it meanwhile. */
  opening(conn: ModConnection | null): void;
}

export interface GreetedHandlers {
  onEvent(event: ModMessage, line: string): void;
  onReply(conn: ModConnection, reply: ModMessage, line: string): void;
  onBadLine(problem: string): void;
  /** Also called for a connection that closed before or during its greeting. */
  onClose(conn: ModConnection, err: Error | undefined): void;
}

export interface Greeted {
  conn: ModConnection;
  hello: ModMessage;
  instance: string | null;
  /** Settles when the connection closes. */
  closed: Promise<void>;
}

/** Connect and read the greeting (docs/protocol.md#the-greeting): the server speaks first. */
export async function openGreeted(port: number, settings: GreetingSettings, handlers: GreetedHandlers): Promise<Greeted> {
  let onHello!: (hello: ModMessage) => void;
  let onEarlyClose!: (err: Error) => void;
  const helloArrived = new Promise<ModMessage>((resolve, reject) => {
    onHello = resolve;
    onEarlyClose = reject;
  });
  // A close after we stopped waiting (timeout, stop) rejects it with nobody listening.
  helloArrived.catch(() => {});
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));

  const conn = await ModConnection.open(
    settings.host,
    port,
    {
      onHello: (hello) => onHello(hello),
      onEvent: handlers.onEvent,
      onReply: (reply, line) => handlers.onReply(conn, reply, line),
      onBadLine: handlers.onBadLine,
      onClose: (err) => {
        onEarlyClose(new Error(err ? `connection closed before the greeting (${err.message})` : 'connection closed before the greeting'));
        handlers.onClose(conn, err);
        markClosed();
      },
    },
    { connectTimeoutMs: settings.connectTimeoutMs, maxLineBytes: settings.maxLineBytes },
  );

  settings.opening(conn);
  try {
    if (settings.isStopped()) throw new Error('the daemon is stopping');
    const hello = await withTimeout(helloArrived, settings.helloTimeoutMs, 'the mod did not send its hello greeting');
    if (settings.isStopped()) throw new Error('the daemon is stopping');
    return { conn, hello, instance: checkGreeting(hello, port, settings.vantage), closed };
  } catch (err) {
    conn.close();
    throw err;
  } finally {
    settings.opening(null);
  }
}

/**
 * The greeting must be a hello of the vantage this daemon drives (docs/protocol.md#the-greeting).
 * Returns the instance it names (null for a mod that names none); throws with what to do.
 */
function checkGreeting(hello: ModMessage, port: number, vantage: Vantage): string | null {
  if (replyType(hello) !== 'hello') {
    throw new Error(`the first line on port ${port} was not a hello greeting: ${JSON.stringify(hello).slice(0, 200)}`);
  }
  const instance = typeof hello.instance === 'string' ? hello.instance : null;
  if (instance !== null && instance !== vantage) {
    throw new Error(
      `the mod on port ${port} is the ${instance} vantage but this daemon drives the ${vantage} vantage; ` +
        (instance === 'client' ? 'pass --vantage client to drive a client explicitly' : 'drop --vantage client to drive the server'),
    );
  }
  return instance;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/**
 * Wait while the link negotiates: resolves when it becomes ready, rejects with `notConnected()`
 * when it leaves negotiation any other way or takes longer than `ms`, and on the signal.
 */
export function untilReady(link: EventEmitter, ms: number, signal: AbortLike | undefined, line: string, notConnected: () => McbridgeError): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      link.off('state', onState);
      signal?.removeEventListener('abort', onAbort);
    };
    const onState = (state: string) => {
      if (state === 'ready') {
        cleanup();
        resolve();
      } else if (state !== 'negotiating') {
        cleanup();
        reject(notConnected());
      }
    };
    const onAbort = () => {
      cleanup();
      reject(cancelledError(line));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(notConnected());
    }, ms);
    link.on('state', onState);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

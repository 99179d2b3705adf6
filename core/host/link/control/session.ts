/**
 * Opening one control session: TLS with the server verified, `hello` with the credential and
 * the last event seen, then `welcome` (docs/control.md, "Session"). Anything else first ends it.
 */
import tls from 'node:tls';
import { z } from 'zod';
import { McbridgeError } from '../../errors.js';
import { VERSION } from '../../../util/version.js';
import type { Credential } from './credential.js';
import { encodeFrame, FrameReader } from './frames.js';
import { currentPin, describeTlsFailure, tlsOptions, verifyPeer, type TrustSettings } from './trust.js';

const count = z.number().int().nonnegative();

/**
 * What a `welcome` must hold, each field bounded. Fields a newer mod adds are cut: the welcome is
 * kept for the session's life and shown in every `status`, so an 8 MiB extra must not stay.
 */
export const welcomeShape = z.object({
  type: z.literal('welcome'),
  protocol: z.literal(1),
  mod: z.string().max(200).optional(),
  modVersion: z.string().max(200).optional(),
  minecraft: z.string().max(200).optional(),
  instanceId: z.string().max(200),
  runId: z.string().min(1).max(200),
  sessionId: z.string().max(200).optional(),
  transport: z.string().max(200).optional(),
  permissions: z.array(z.string().max(64)).max(64),
  capabilities: z.array(z.string().max(200)).max(1024),
  replay: z.object({ requestedSince: count.nullable().optional(), from: count.nullable().optional(), to: count.nullable().optional(), lost: z.boolean(), bufferedEvents: count.optional() }).optional(),
  limits: z
    .object({
      maxFrameBytes: z.number().int().positive().optional(),
      maxPendingRequests: z.number().int().positive().optional(),
      requestTimeoutMillis: z.number().int().positive().optional(),
      idleSeconds: z.number().positive().optional(),
    })
    .optional(),
});
export type Welcome = z.infer<typeof welcomeShape>;

export interface SessionOptions {
  host: string;
  port: number;
  trust: TrustSettings;
  credential: Credential;
  lastSeq: number;
  runId: string | null;
  maxFrameBytes: number;
  connectTimeoutMs: number;
  handshakeTimeoutMs: number;
  /** Called with the socket as soon as it exists, so a stop can close it mid-handshake. */
  opening(socket: tls.TLSSocket): void;
}

export interface OpenSession {
  socket: tls.TLSSocket;
  reader: FrameReader;
  welcome: Welcome;
  /** Frames that came in the same reads as the welcome (replayed events, usually). */
  early: Array<Record<string, unknown>>;
}

/** Fatal `{type: "error"}` codes from the server, with what to do about each. */
const FATAL_ADVICE: Record<string, string> = {
  unauthorized:
    'the server refused the credential (revoked, expired or mistyped): mint one on the server console (/mcagent control token add <label> read+write) and put it where tokenFile/tokenEnv points',
  protocol_version: 'the mod speaks another control protocol version: update mcbridge or the mod',
  frame_too_large: 'a frame was over the server limit',
};

export function fatalMessage(frame: Record<string, unknown>): { code: string; message: string } {
  const code = typeof frame.code === 'string' ? frame.code.slice(0, 64) : 'error';
  const text = typeof frame.message === 'string' ? frame.message.slice(0, 300) : '';
  const advice = Object.hasOwn(FATAL_ADVICE, code) ? `; ${FATAL_ADVICE[code]}` : '';
  return { code, message: `the server ended the session (${code}${text ? `: ${text}` : ''})${advice}` };
}

export function openSession(o: SessionOptions): Promise<OpenSession> {
  const address = `${o.host}:${o.port}`;
  const pinned = currentPin(o.trust);
  return new Promise((resolve, reject) => {
    const socket = tls.connect(tlsOptions(o.host, o.port, o.trust, o.connectTimeoutMs));
    o.opening(socket);
    // The server's texts may quote the credential (a fatal error echoing the hello): never keep it.
    const reader = new FrameReader(o.maxFrameBytes, [o.credential.secret]);
    let done = false;
    const fail = (error: McbridgeError) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new McbridgeError('not_connected', `no welcome from ${address} within ${o.handshakeTimeoutMs / 1000} s: is it the game port of a server with mcagent.control=true?`)),
      o.handshakeTimeoutMs,
    );
    socket.on('error', (err: NodeJS.ErrnoException) => fail(err instanceof McbridgeError ? err : new McbridgeError('not_connected', describeTlsFailure(err, address))));
    socket.on('timeout', () => fail(new McbridgeError('not_connected', `${address} did not complete the TLS handshake within ${o.connectTimeoutMs / 1000} s`)));
    socket.on('close', () => fail(new McbridgeError('not_connected', `${address} closed the connection before its welcome`)));
    socket.once('secureConnect', () => {
      try {
        if (pinned) verifyPeer(socket, pinned, address);
      } catch (err) {
        fail(err as McbridgeError);
        return;
      }
      socket.setTimeout(0);
      const hello: Record<string, unknown> = { type: 'hello', protocol: 1, token: o.credential.token, lastSeq: o.lastSeq, client: { name: 'mcbridge', version: VERSION } };
      if (o.runId !== null) hello.runId = o.runId;
      socket.write(encodeFrame(hello));
    });
    socket.on('data', (chunk: Buffer) => {
      if (done) return;
      let frames: Array<Record<string, unknown>>;
      try {
        frames = reader.push(chunk);
      } catch (err) {
        fail(new McbridgeError('not_connected', `${address} sent a bad frame before its welcome: ${(err as Error).message}`));
        return;
      }
      if (frames.length === 0) return;
      const [first, ...early] = frames;
      if (first!.type === 'error') {
        const fatal = fatalMessage(first!);
        fail(new McbridgeError(fatal.code === 'unauthorized' ? 'unauthorized' : 'not_connected', fatal.message, { serverCode: fatal.code }));
        return;
      }
      const parsed = welcomeShape.safeParse(first);
      if (!parsed.success) {
        fail(new McbridgeError('not_connected', `${address} answered the hello with no valid welcome (${parsed.error.issues[0]?.path.join('.') || 'type'}: ${parsed.error.issues[0]?.message})`));
        return;
      }
      done = true;
      clearTimeout(timer);
      socket.removeAllListeners('data');
      socket.removeAllListeners('close');
      socket.removeAllListeners('error');
      socket.removeAllListeners('timeout');
      socket.on('error', () => {}); // until the link takes the socket over: an error then shows as its close
      resolve({ socket, reader, welcome: parsed.data, early });
    });
  });
}

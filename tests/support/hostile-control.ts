/**
 * A TLS control server of the test's own making (hostile input): the sim's certificate, so the
 * link's pin holds, and each connection answered as the test says. The link under test is an
 * in-process Host, so its status and events can be read directly.
 */
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { pino, type Logger } from 'pino';
import { afterEach } from 'vitest';
import { encodeFrame } from '../../core/host/link/control/frames.js';
import { Host, type HostOptions, type LinkSettings } from '../../core/host/host.js';
import { startSim, type SimulatedMod } from '../../core/sim/index.js';

export type Frame = Record<string, any>;

/** A welcome that passes every check: read+write, one capability, a 1 KiB frame limit. */
export const WELCOME = { type: 'welcome', protocol: 1, instanceId: 'inst_x', runId: 'run_x', permissions: ['read', 'write'], capabilities: ['state'], limits: { maxFrameBytes: 1024 } };
export const TOKEN = 'mca1.tk_test.abcdefghijkl';

export interface Behaviour {
  /** The hello of a new connection. */
  hello(socket: tls.TLSSocket, hello: Frame): void;
  /** Every later frame of it (requests); unanswered unless this answers. */
  frame?(socket: tls.TLSSocket, frame: Frame): void;
}

export interface HostileServer {
  address: string;
  pin: string;
  /** The certificate it presents (the sim's), for a caFile. */
  certFile: string;
  readonly hellos: number;
  /** Frames received after the hellos, all connections, in order. */
  readonly frames: Frame[];
  /** The byte length of each of those frames' JSON (the header's value). */
  readonly sizes: number[];
  readonly sockets: tls.TLSSocket[];
}

/** Hostile servers and hosts made by the calling file, all ended after each of its tests. */
export function hostileFixture() {
  const cleanups: Array<() => Promise<void> | void> = [];
  let identity: SimulatedMod | null = null;
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
    await identity?.stop();
    identity = null;
  });
  return {
    async server(behave: Behaviour | Behaviour['hello']): Promise<HostileServer> {
      const b: Behaviour = typeof behave === 'function' ? { hello: behave } : behave;
      identity ??= await startSim({ port: 0, control: true });
      const control = identity.control!;
      const key = fs.readFileSync(path.join(path.dirname(control.certFile), 'server.key'));
      const state = { hellos: 0, frames: [] as Frame[], sizes: [] as number[], sockets: [] as tls.TLSSocket[] };
      const server = tls.createServer({ cert: fs.readFileSync(control.certFile), key }, (socket) => {
        state.sockets.push(socket);
        socket.on('error', () => {});
        let buffered = Buffer.alloc(0);
        let greeted = false;
        socket.on('data', (chunk: Buffer) => {
          buffered = Buffer.concat([buffered, chunk]);
          while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
            const size = buffered.readUInt32BE(0);
            const frame = JSON.parse(buffered.subarray(4, 4 + size).toString()) as Frame;
            buffered = buffered.subarray(4 + size);
            if (!greeted) {
              greeted = true;
              state.hellos += 1;
              b.hello(socket, frame);
            } else {
              state.frames.push(frame);
              state.sizes.push(size);
              b.frame?.(socket, frame);
            }
          }
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      cleanups.push(
        () =>
          new Promise<void>((r) => {
            for (const s of state.sockets) s.destroy();
            server.close(() => r());
          }),
      );
      return {
        address: `127.0.0.1:${(server.address() as { port: number }).port}`,
        pin: control.fingerprint,
        certFile: control.certFile,
        get hellos() {
          return state.hellos;
        },
        frames: state.frames,
        sizes: state.sizes,
        sockets: state.sockets,
      };
    },
    /** An in-process Host whose one target is a control link to `server`. */
    async host(server: { address: string; pin: string }, link: Partial<Extract<LinkSettings, { transport: 'control' }>> = {}, options: Omit<HostOptions, 'link'> = {}): Promise<Host> {
      const host = new Host({
        link: { transport: 'control', address: server.address, pin: server.pin, token: TOKEN, reconnectMinMs: 50, reconnectMaxMs: 100, ...link },
        ...options,
      });
      await host.start();
      cleanups.push(() => host.stop());
      return host;
    },
  };
}

/** Answers every ping as a server would; `result` answers the other ops (none by default). */
export function answering(result: (frame: Frame) => Frame | null = () => null): (socket: tls.TLSSocket, frame: Frame) => void {
  return (socket, frame) => {
    if (frame.type !== 'request') return;
    const answer = frame.op === 'ping' ? { type: 'pong' } : result(frame);
    if (answer) socket.write(encodeFrame({ type: 'reply', id: frame.id, ok: true, result: answer }));
  };
}

/** A logger whose lines (their `msg`) the test reads. */
export function capturingLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(String((JSON.parse(line) as { msg?: unknown }).msg)) });
  return { log, lines };
}

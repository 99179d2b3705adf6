/**
 * A tiny control-protocol-1 client for tests: TLS with the sim's server.crt as the only trust
 * root, length-prefixed JSON frames in and out, every received frame kept in order.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import tls from 'node:tls';
import { afterEach } from 'vitest';
import { type SimOptions, type SimulatedMod, startSim } from '../../core/sim/index.js';
import { waitUntil } from './wait-until.js';

export type Frame = Record<string, any>;

export function encode(frame: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(frame), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

export class ControlTestClient {
  readonly frames: Frame[] = [];
  closed = false;
  private buffer = Buffer.alloc(0);
  private counter = 0;

  private constructor(readonly socket: tls.TLSSocket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      while (this.buffer.length >= 4 && this.buffer.length >= 4 + this.buffer.readUInt32BE(0)) {
        const length = this.buffer.readUInt32BE(0);
        this.frames.push(JSON.parse(this.buffer.subarray(4, 4 + length).toString('utf8')));
        this.buffer = this.buffer.subarray(4 + length);
      }
    });
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => {});
  }

  /** A TLS connection that trusts only `certFile` (so its SANs are checked for `localhost`). */
  static connect(port: number, certFile: string): Promise<ControlTestClient> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca: fs.readFileSync(certFile) }, () => resolve(new ControlTestClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Connects and says hello; resolves with the first frame back (welcome or a fatal error). */
  static async hello(port: number, certFile: string, hello: Frame): Promise<{ client: ControlTestClient; first: Frame }> {
    const client = await ControlTestClient.connect(port, certFile);
    client.send({ type: 'hello', protocol: 1, client: { name: 'control-test', version: '0' }, ...hello });
    const first = await client.next(() => true);
    return { client, first };
  }

  /** SHA-256 of the served leaf certificate's DER, as a pin is written. */
  leafFingerprint(): string {
    return `sha256:${crypto.createHash('sha256').update(this.socket.getPeerCertificate().raw).digest('hex')}`;
  }

  send(frame: unknown): void {
    this.socket.write(encode(frame));
  }

  sendRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The first received frame (from the start) that matches and has not been taken yet. */
  async next(match: (frame: Frame) => boolean, timeoutMs = 10_000): Promise<Frame> {
    let found: Frame | undefined;
    await waitUntil(
      () => {
        const index = this.frames.findIndex(match);
        if (index < 0) return false;
        found = this.frames.splice(index, 1)[0];
        return true;
      },
      timeoutMs,
      'a matching control frame',
    );
    return found!;
  }

  /** Sends a request (id generated unless given) without waiting. */
  start(op: string, params: Frame = {}, id = `r${++this.counter}`, extra: Frame = {}): string {
    this.send({ type: 'request', id, op, params, ...extra });
    return id;
  }

  reply(id: string, timeoutMs?: number): Promise<Frame> {
    return this.next((f) => f.type === 'reply' && f.id === id, timeoutMs);
  }

  /** One request and its reply. */
  request(op: string, params: Frame = {}, id?: string): Promise<Frame> {
    return this.reply(this.start(op, params, id));
  }

  events(): Frame[] {
    return this.frames.filter((f) => f.type === 'event');
  }

  async waitClosed(timeoutMs = 10_000): Promise<void> {
    await waitUntil(() => this.closed, timeoutMs, 'the server to close the connection');
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Control-enabled sims (manual ticks) and their clients, all ended after each test of the calling file. */
export function controlFixture() {
  const sims: SimulatedMod[] = [];
  const clients: ControlTestClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    for (const sim of sims.splice(0)) await sim.stop();
  });
  return {
    async sim(options: SimOptions = {}): Promise<SimulatedMod> {
      const started = await startSim({ autoTick: false, control: true, ...options });
      sims.push(started);
      return started;
    },
    /** Says hello with the sim's bootstrap token unless `fields` name another. */
    async hello(sim: SimulatedMod, fields: Frame = {}): Promise<{ client: ControlTestClient; first: Frame }> {
      const control = sim.control!;
      const answer = await ControlTestClient.hello(control.port, control.certFile, { token: control.bootstrapToken, ...fields });
      clients.push(answer.client);
      return answer;
    },
    track(client: ControlTestClient): ControlTestClient {
      clients.push(client);
      return client;
    },
    /** Forgets the sims without stopping them (the test stopped them itself). */
    forgetSims(): void {
      sims.splice(0);
    },
  };
}

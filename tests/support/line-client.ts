/** A raw TCP client for the sim tests: sends request lines, reads reply/event lines in order. */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { startSim, type SimOptions, type SimulatedMod } from '../../core/sim/index.js';

export type Json = Record<string, any>;

export class LineClient {
  /** Everything received, byte-exact (to check line endings). */
  raw = '';
  readonly lines: string[] = [];
  private cursor = 0;
  private partial = '';
  private wake: (() => void) | null = null;
  closed = false;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.raw += text;
      this.partial += text;
      let nl: number;
      while ((nl = this.partial.indexOf('\n')) !== -1) {
        this.lines.push(this.partial.slice(0, nl).replace(/\r$/, ''));
        this.partial = this.partial.slice(nl + 1);
      }
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    socket.on('error', () => {});
  }

  static connect(port: number): Promise<LineClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new LineClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Connects and consumes the greeting (skipping events before it). */
  static async open(port: number): Promise<{ client: LineClient; hello: Json }> {
    const client = await LineClient.connect(port);
    return { client, hello: await client.nextNonEvent() };
  }

  send(...lines: string[]): void {
    this.socket.write(lines.map((l) => `${l}\n`).join(''));
  }

  /** Raw bytes or text, no newline added (to test framing). */
  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  async nextLine(timeoutMs = 2000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (this.cursor >= this.lines.length) {
      if (this.closed) throw new Error('connection closed');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no line within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    return this.lines[this.cursor++];
  }

  async next(timeoutMs?: number): Promise<Json> {
    return JSON.parse(await this.nextLine(timeoutMs)) as Json;
  }

  /** The next reply, skipping pushed events. */
  async nextNonEvent(timeoutMs?: number): Promise<Json> {
    for (;;) {
      const message = await this.next(timeoutMs);
      if (message.event !== true) return message;
    }
  }

  /** The next event of a type, skipping everything else. */
  async nextEvent(type: string, timeoutMs?: number): Promise<Json> {
    for (;;) {
      const message = await this.next(timeoutMs);
      if (message.event === true && message.type === type) return message;
    }
  }

  /** Sends one request and returns its reply (skipping events). */
  async request(line: string, timeoutMs?: number): Promise<Json> {
    this.send(line);
    return this.nextNonEvent(timeoutMs);
  }

  /** Sends `CMD <command>` and returns the ack's output lines (skipping the game events pushed with it). */
  async command(command: string, timeoutMs?: number): Promise<string[]> {
    const ack = await this.request(`CMD ${command}`, timeoutMs);
    if (ack.type !== 'cmd_ack') throw new Error(`CMD ${command} answered ${JSON.stringify(ack)}`);
    return ack.output as string[];
  }

  /** Like request(), but returns the reply line's raw text. */
  async requestRaw(line: string): Promise<string> {
    this.send(line);
    for (;;) {
      const text = await this.nextLine();
      if (!text.includes('"event":true')) return text;
    }
  }

  /** Lines not consumed yet, after waiting `ms` for stragglers. */
  async drain(ms = 100): Promise<Json[]> {
    await new Promise((r) => setTimeout(r, ms));
    const rest = this.lines.slice(this.cursor).map((l) => JSON.parse(l) as Json);
    this.cursor = this.lines.length;
    return rest;
  }

  close(): void {
    this.socket.destroy();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every regular file under `root`: POSIX path relative to root → size in bytes, sorted by path. */
export function filesUnder(root: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.set(path.relative(root, full).split(path.sep).join('/'), fs.statSync(full).size);
    }
  };
  walk(root);
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Polls until `check` holds (e.g. the sim has read a request), or fails after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

export interface SimHarness {
  /** Starts a sim (ticking by hand unless `autoTick` is given) and opens a client to it; both are closed after the test. */
  start(options?: SimOptions): Promise<{ sim: SimulatedMod; client: LineClient }>;
  /** A fresh temp dir, removed after the test. */
  tempDir(): string;
  /** Closes this client after the test too (one the test opened itself). */
  track(client: LineClient): LineClient;
}

/** For a test file: sims, clients and temp dirs made through it are cleaned up after each test. */
export function useSims(): SimHarness {
  const sims: SimulatedMod[] = [];
  const clients: LineClient[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const s of sims.splice(0)) await s.stop();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const track = (client: LineClient) => {
    clients.push(client);
    return client;
  };
  return {
    async start(options = {}) {
      const sim = await startSim({ autoTick: false, ...options });
      sims.push(sim);
      return { sim, client: track((await LineClient.open(sim.port)).client) };
    },
    tempDir() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-test-'));
      dirs.push(dir);
      return dir;
    },
    track,
  };
}

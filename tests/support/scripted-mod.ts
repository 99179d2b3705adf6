import { once } from 'node:events';
import net from 'node:net';
import { LineSplitter } from '../../core/util/lines.js';

export interface ScriptedReply {
  /** Milliseconds after the request arrived. */
  delayMs?: number;
  line: string | Record<string, unknown>;
}

export interface ScriptedModOptions {
  hello?: Record<string, unknown> | null;
  /** Lines written before the greeting. */
  preHello?: Array<Record<string, unknown>>;
  eol?: '\n' | '\r\n';
  /** Answer each request line; default answers like a bare server-vantage mod. */
  respond?: (line: string, conn: ScriptedConnection) => ScriptedReply[] | void;
}

export interface ScriptedConnection {
  socket: net.Socket;
  received: string[];
  write(msg: string | Record<string, unknown>): void;
}

export const SERVER_HELLO = {
  type: 'hello',
  mod: 'mc-agent-interface',
  version: '0.8.0',
  protocol: 1,
  minecraft: '26.2',
  port: 0,
  instance: 'server',
  capabilities: ['state', 'entities', 'command', 'wait', 'mark', 'events:game'],
};

function defaultRespond(line: string): ScriptedReply[] {
  const verb = line.split(' ')[0]!.toUpperCase();
  switch (verb) {
    case 'PING':
      return [{ line: { type: 'pong', t: Date.now() } }];
    case 'CAPS':
      return [{ line: { type: 'capabilities', millis: Date.now(), protocol: 1, instance: 'server', capabilities: SERVER_HELLO.capabilities } }];
    case 'STATE':
      return [{ line: { type: 'state', millis: Date.now(), tick: 1 } }];
    case 'WAIT':
      return [{ delayMs: 50 * Number(line.split(' ')[1] ?? 0), line: { type: 'wait_ack', millis: Date.now(), detail: 'ticks=0' } }];
    default:
      return [{ line: { type: 'error', millis: Date.now(), message: `unknown command: ${line}` } }];
  }
}

/**
 * A tiny hand-scripted mod for link tests that need exact control of what arrives when:
 * overtaking and late replies, junk lines, hang-ups. The full simulated mod lives in core/sim.
 */
export class ScriptedMod {
  readonly connections: ScriptedConnection[] = [];
  private readonly server: net.Server;
  private readonly timers = new Set<NodeJS.Timeout>();
  port = 0;

  constructor(private readonly options: ScriptedModOptions = {}) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  static async start(options: ScriptedModOptions = {}): Promise<ScriptedMod> {
    const mod = new ScriptedMod(options);
    mod.server.listen(0, '127.0.0.1');
    await once(mod.server, 'listening');
    mod.port = (mod.server.address() as net.AddressInfo).port;
    return mod;
  }

  /** Every request line from every connection, in arrival order. */
  get received(): string[] {
    return this.connections.flatMap((c) => c.received);
  }

  get open(): number {
    return this.connections.filter((c) => !c.socket.destroyed).length;
  }

  broadcast(msg: Record<string, unknown>): void {
    for (const c of this.connections) c.write(msg);
  }

  hangUp(): void {
    for (const c of this.connections) c.socket.destroy();
  }

  /** Stops accepting connections at once; those already open stay up (a later connect is refused). */
  stopListening(): void {
    this.server.close();
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.hangUp();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    const eol = this.options.eol ?? '\n';
    const conn: ScriptedConnection = {
      socket,
      received: [],
      write: (msg) => {
        if (!socket.destroyed) socket.write((typeof msg === 'string' ? msg : JSON.stringify(msg)) + eol);
      },
    };
    this.connections.push(conn);
    socket.on('error', () => {});
    for (const line of this.options.preHello ?? []) conn.write(line);
    if (this.options.hello !== null) conn.write({ ...SERVER_HELLO, port: this.port, ...this.options.hello });
    const splitter = new LineSplitter({
      onLine: (raw) => {
        const line = raw.trim();
        if (!line) return;
        conn.received.push(line);
        const replies = this.options.respond?.(line, conn) ?? defaultRespond(line);
        for (const reply of replies ?? []) {
          if (!reply.delayMs) {
            conn.write(reply.line);
            continue;
          }
          const timer = setTimeout(() => {
            this.timers.delete(timer);
            conn.write(reply.line);
          }, reply.delayMs);
          this.timers.add(timer);
        }
      },
    });
    socket.on('data', (chunk: Buffer) => splitter.push(chunk));
  }
}

/**
 * Replies a test lets go of itself, in arrival order: a mod that is slow to answer some verbs,
 * without timers. Use `hold` inside `respond`.
 */
export class Gate {
  private readonly waiting: Array<() => void> = [];
  private readonly watchers: Array<() => void> = [];

  /** Keeps `reply` back until release(); returns the (empty) immediate answer for `respond`. */
  hold(conn: ScriptedConnection, reply: string | Record<string, unknown>): ScriptedReply[] {
    this.waiting.push(() => conn.write(reply));
    for (const watcher of this.watchers.splice(0)) watcher();
    return [];
  }

  get held(): number {
    return this.waiting.length;
  }

  /** Resolves once at least `count` replies are held. */
  async untilHeld(count: number): Promise<void> {
    while (this.waiting.length < count) await new Promise<void>((resolve) => this.watchers.push(resolve));
  }

  /** Writes the oldest `count` held replies. */
  release(count = 1): void {
    for (const send of this.waiting.splice(0, count)) send();
  }
}

/**
 * What the fault tests share: a daemon as a real child process (a crash must show as a dead
 * process, not as an error in the test runner), and a raw API socket that keeps every frame
 * and wakes waiters on each one, so waits are on conditions, never on time.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import type { CliProcesses } from '../support/cli-process.js';
import { waitUntil } from '../support/helpers.js';

export type Frame = Record<string, any>;

export interface DaemonProcess {
  port: number;
  pid: number;
  out: { stdout: string; stderr: string };
  alive(): boolean;
  /** Resident set size in bytes (Linux: /proc). */
  rss(): number;
}

/** `mcbridge run --api-port 0 --no-config <args>` (no `--no-config` when args name a `--config`), once it listens and has connected to its mod. */
export async function startDaemonProcess(processes: CliProcesses, args: string[], env?: NodeJS.ProcessEnv): Promise<DaemonProcess> {
  const config = args.includes('--config') ? [] : ['--no-config'];
  const { child, out } = processes.start(['run', '--api-port', '0', ...config, ...args], { env });
  let port = 0;
  await waitUntil(() => {
    if (child.exitCode !== null) throw new Error(`the daemon exited with ${child.exitCode}: ${out.stderr}`);
    port = Number(/mcbridge daemon listening on [^"]*:(\d+)"/.exec(out.stderr)?.[1] ?? 0);
    return port > 0 && /"msg":"connected to (server|client) mod/.test(out.stderr);
  }, 30_000, 'the daemon to listen and connect to its mod');
  return {
    port,
    pid: child.pid!,
    out,
    alive: () => child.exitCode === null && child.signalCode === null,
    rss: () => {
      const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      if (kb === undefined) throw new Error(`no VmRSS for pid ${child.pid}`);
      return Number(kb) * 1024;
    },
  };
}

export class ApiSocket {
  readonly frames: Frame[] = [];
  closed = false;
  private partial = '';
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      const lines = (this.partial + text).split('\n');
      this.partial = lines.pop()!;
      for (const line of lines) this.frames.push(JSON.parse(line) as Frame);
      this.wake();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static async open(port: number, options: { localAddress?: string } = {}): Promise<ApiSocket> {
    const socket = net.connect({ host: '127.0.0.1', port, ...options });
    await once(socket, 'connect');
    return new ApiSocket(socket);
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  send(frame: Frame): void {
    this.socket.write(JSON.stringify(frame) + '\n');
  }

  responses(id?: unknown): Frame[] {
    return this.frames.filter((f) => f.type === 'response' && (id === undefined || f.id === id));
  }

  /** Resolves once `check` holds; fails if the connection closes first (`allowClose` to wait for that). */
  until(check: () => boolean, what: string, allowClose = false): Promise<void> {
    return new Promise((resolve, reject) => {
      const test = () => {
        let done = false;
        try {
          done = check();
        } catch (err) {
          this.waiters.delete(test);
          reject(err as Error);
          return;
        }
        if (done) {
          this.waiters.delete(test);
          resolve();
        } else if (this.closed && !allowClose) {
          this.waiters.delete(test);
          reject(new Error(`the connection closed while waiting for ${what}; frames: ${JSON.stringify(this.frames.slice(-3)).slice(0, 500)}`));
        }
      };
      this.waiters.add(test);
      test();
    });
  }

  /** Send one request and wait for its one response. */
  async request(frame: Frame): Promise<Frame> {
    const seen = this.responses(frame.id).length;
    this.send(frame);
    await this.until(() => this.responses(frame.id).length > seen, `the response to ${JSON.stringify(frame).slice(0, 80)}`);
    return this.responses(frame.id)[seen]!;
  }

  waitClosed(): Promise<void> {
    return this.until(() => this.closed, 'the connection to close', true);
  }

  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/**
 * `waitUntil` for a condition that needs a round trip (a `status` call): asks again every
 * 10 ms until it holds; the test's own timeout bounds it.
 */
export async function pollUntil(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

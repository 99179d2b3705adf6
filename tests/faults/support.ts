/**
 * What the fault tests share: a daemon as a real child process (a crash must show as a dead
 * process, not as an error in the test runner), and a raw API socket that keeps every frame
 * and wakes waiters on each one, so waits are on conditions, never on time.
 */
import { once } from 'node:events';
import net from 'node:net';

export type Frame = Record<string, any>;

export { startDaemonProcess, type DaemonProcess } from '../support/daemon-process.js';

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

/**
 * The predecessor's `LocalApiClient`, re-expressed in Node as its
 * scripts used it: string ids "1", "2", ... per connection, replies matched by id, `ok: false`
 * thrown as an error carrying only the `error` text, and every pushed frame kept whole in an
 * unbounded queue. It knows nothing of mcbridge: no codes, no progress, no cancel.
 */
import { once } from 'node:events';
import net from 'node:net';

export type Frame = Record<string, any>;

export class LegacyClient {
  private nextId = 0;
  private partial = '';
  private readonly pending = new Map<string, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly queue: Frame[] = [];
  private wakeQueue: (() => void) | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      const lines = (this.partial + text).split('\n');
      this.partial = lines.pop()!;
      for (const line of lines) if (line.trim()) this.onFrame(JSON.parse(line) as Frame);
    });
    socket.on('error', () => {});
  }

  static async connect(port: number, host = '127.0.0.1'): Promise<LegacyClient> {
    const socket = net.connect({ host, port });
    await once(socket, 'connect');
    return new LegacyClient(socket);
  }

  call(method: string, params: Frame = {}): Promise<any> {
    const id = String(++this.nextId);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.write(JSON.stringify({ id, method, params }) + '\n');
    });
  }

  /** The next pushed frame, as the predecessor's event queue held it. */
  async nextEvent(): Promise<Frame> {
    while (this.queue.length === 0) await new Promise<void>((resolve) => (this.wakeQueue = resolve));
    return this.queue.shift()!;
  }

  close(): void {
    this.socket.destroy();
  }

  private onFrame(frame: Frame): void {
    if (frame.type === 'event') {
      this.queue.push(frame);
      this.wakeQueue?.();
      return;
    }
    const waiter = this.pending.get(String(frame.id));
    if (!waiter) return;
    this.pending.delete(String(frame.id));
    if (frame.ok) waiter.resolve(frame.result);
    else waiter.reject(new Error(frame.error || 'bridge error'));
  }
}

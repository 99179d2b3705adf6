import net from 'node:net';

/**
 * A benchmark subscriber: counts event frames with as little work as possible (it looks
 * only at the first bytes of each line), so that it keeps up with the relay under test.
 * Everything that is not an event frame (responses, `gap` frames, anything unexpected) is
 * collected whole and parsed.
 */

export type RelayKind = 'daemon' | 'baseline';

export interface GapInfo {
  dropped: number;
  fromSeq: number;
  toSeq: number;
}

const PREFIX_BYTES = 40;
const READ_BUFFER_BYTES = 1024 * 1024;
const P_DAEMON_EVENT = Buffer.from('{"type":"event","event":"');
const P_SURFACE = Buffer.from('{"type":"event","event":"surface"');
const P_GAP = Buffer.from('{"type":"gap"');
const P_RESPONSE = Buffer.from('{"type":"response"');

const UNKNOWN = 0;
const EVENT = 1;
const CAPTURE = 2;

function startsWith(buf: Buffer, start: number, avail: number, prefix: Buffer): boolean {
  return avail >= prefix.length && buf.compare(prefix, 0, prefix.length, start, start + prefix.length) === 0;
}

export class Subscriber {
  events = 0;
  dropped = 0;
  readonly gaps: GapInfo[] = [];
  /** Non-event lines other than responses and gaps (first few kept). */
  readonly strays: string[] = [];
  strayCount = 0;

  private kind = UNKNOWN;
  private readonly head = Buffer.alloc(PREFIX_BYTES);
  private headLen = 0;
  private pieces: Buffer[] = [];
  private target = Infinity;
  private onTarget: (() => void) | null = null;
  private readonly responseWaiters: Array<(frame: Record<string, unknown>) => void> = [];

  private socket!: net.Socket;

  private constructor(private readonly relay: RelayKind) {}

  static connect(port: number, relay: RelayKind): Promise<Subscriber> {
    const sub = new Subscriber(relay);
    return new Promise((resolve, reject) => {
      // Reads go into one reused 1 MiB buffer: fewer, larger reads and no allocation per
      // read, so the subscribers cost as little as possible next to the relay under test.
      const socket = net.connect({
        host: '127.0.0.1',
        port,
        onread: {
          buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
          callback: (n: number, buf: Uint8Array) => {
            sub.push((buf as Buffer).subarray(0, n));
            return true;
          },
        },
      });
      sub.socket = socket;
      socket.setNoDelay(true);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        socket.on('error', () => {});
        resolve(sub);
      });
    });
  }

  /** Subscribe to every event category (of `target`, on a daemon of several); resolves with the response frame. */
  async subscribe(target?: string): Promise<Record<string, unknown>> {
    const response = new Promise<Record<string, unknown>>((resolve) => this.responseWaiters.push(resolve));
    const params = target === undefined ? { events: ['*'] } : { events: ['*'], target };
    this.socket.write(JSON.stringify({ id: 1, method: 'subscribe', params }) + '\n');
    return response;
  }

  /** Reset the counters; `done` runs once events + dropped reach `target`. */
  expect(target: number, done: () => void): void {
    this.events = 0;
    this.dropped = 0;
    this.gaps.length = 0;
    this.target = target;
    this.onTarget = done;
  }

  get accounted(): number {
    return this.events + this.dropped;
  }

  close(): void {
    this.socket.destroy();
  }

  /** `chunk` is the reused read buffer: anything kept past this call is copied. */
  private push(chunk: Buffer): void {
    const len = chunk.length;
    let pos = 0;
    while (pos < len) {
      const nl = chunk.indexOf(10, pos);
      const end = nl === -1 ? len : nl;
      if (this.kind === UNKNOWN && this.headLen === 0 && (nl !== -1 || end - pos >= PREFIX_BYTES)) {
        // The common case: the line's start is in this chunk; classify it in place.
        this.kind = this.classify(chunk, pos, Math.min(PREFIX_BYTES, end - pos));
        if (this.kind === CAPTURE) this.pieces = [Buffer.from(chunk.subarray(pos, end))];
      } else if (this.kind === UNKNOWN) {
        const take = Math.min(PREFIX_BYTES - this.headLen, end - pos);
        if (take > 0) {
          chunk.copy(this.head, this.headLen, pos, pos + take);
          this.headLen += take;
        }
        if (this.headLen < PREFIX_BYTES && nl === -1) break; // the line's start continues in the next chunk
        this.kind = this.classify(this.head, 0, this.headLen);
        if (this.kind === CAPTURE) this.pieces = [Buffer.from(this.head.subarray(0, this.headLen)), Buffer.from(chunk.subarray(pos + take, end))];
      } else if (this.kind === CAPTURE) {
        this.pieces.push(Buffer.from(chunk.subarray(pos, end)));
      }
      if (nl === -1) break;
      if (this.kind === EVENT) this.events += 1;
      else if (this.kind === CAPTURE) this.captured(Buffer.concat(this.pieces).toString('utf8'));
      this.kind = UNKNOWN;
      this.headLen = 0;
      this.pieces = [];
      pos = nl + 1;
    }
    if (this.onTarget && this.events + this.dropped >= this.target) {
      const done = this.onTarget;
      this.onTarget = null;
      done();
    }
  }

  /** What the line starting at buf[start] is, from its first `avail` bytes. */
  private classify(buf: Buffer, start: number, avail: number): number {
    if (this.relay === 'daemon') {
      if (startsWith(buf, start, avail, P_DAEMON_EVENT) && !startsWith(buf, start, avail, P_SURFACE)) return EVENT;
      return CAPTURE;
    }
    // The baseline forwards the mod's own event lines; only its subscribe ack is not one.
    if (startsWith(buf, start, avail, P_RESPONSE) || startsWith(buf, start, avail, P_GAP)) return CAPTURE;
    return EVENT;
  }

  private captured(text: string): void {
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim() === '') return;
    let frame: Record<string, unknown>;
    try {
      frame = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.stray(line);
      return;
    }
    if (frame.type === 'gap') {
      const gap = { dropped: Number(frame.dropped), fromSeq: Number(frame.fromSeq), toSeq: Number(frame.toSeq) };
      this.gaps.push(gap);
      this.dropped += Number.isFinite(gap.dropped) ? gap.dropped : 0;
      return;
    }
    if (frame.type === 'response') {
      const waiter = this.responseWaiters.shift();
      if (waiter) waiter(frame);
      else this.stray(line);
      return;
    }
    this.stray(line);
  }

  private stray(line: string): void {
    this.strayCount += 1;
    if (this.strays.length < 3) this.strays.push(line.slice(0, 200));
  }
}

/** Sequential request/response over one connection, timing each round trip. */
export class RpcClient {
  private buffered = '';
  private waiter: ((line: string) => void) | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      const nl = this.buffered.indexOf('\n');
      if (nl === -1) return;
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      const waiter = this.waiter;
      this.waiter = null;
      waiter?.(line);
    });
    socket.on('error', () => {});
  }

  static connect(port: number): Promise<RpcClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.setNoDelay(true);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RpcClient(socket));
      });
    });
  }

  /** Send one line; resolves with the reply line and the round trip in microseconds. */
  roundTrip(line: string): Promise<{ reply: string; us: number }> {
    return new Promise((resolve, reject) => {
      if (this.socket.destroyed) {
        reject(new Error('the connection is closed'));
        return;
      }
      const onClose = () => reject(new Error('the connection closed before the reply'));
      this.socket.once('close', onClose);
      const t0 = process.hrtime.bigint();
      this.waiter = (reply) => {
        const us = Number(process.hrtime.bigint() - t0) / 1000;
        this.socket.off('close', onClose);
        resolve({ reply, us });
      };
      this.socket.write(line + '\n');
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

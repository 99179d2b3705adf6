import net from 'node:net';
import { EventEmitter } from 'node:events';
import { McbridgeError, isErrorCode, readOutcome, type WriteOutcome } from '../host/errors.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from '../util/lines.js';
import type { EventFrame, GapFrame, ProgressFrame, ResponseFrame } from './frames.js';
import { DEFAULT_API_HOST, DEFAULT_API_PORT } from './address.js';

export interface ApiClientOptions {
  host?: string;
  port?: number;
  token?: string;
  connectTimeoutMs?: number;
  /** Named on every call, for the daemon's activity log (e.g. "cli", "mcp"). */
  frontend?: string;
}

export interface ClientCallOptions {
  signal?: AbortSignal;
  /** Client-side bound; on expiry the request is cancelled in the daemon too. */
  timeoutMs?: number;
  onProgress?: (frame: ProgressFrame) => void;
  /** The caller's session (an MCP session), for the daemon's activity log. */
  session?: string;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: McbridgeError): void;
  onProgress?: (frame: ProgressFrame) => void;
}

/** Raised when no daemon answers at the address: the CLI maps it to exit code 3. */
export class DaemonUnreachableError extends McbridgeError {
  constructor(host: string, port: number, cause: string) {
    super('unavailable', `no mcbridge daemon on ${host}:${port} (${cause}). Start one with: mcbridge run --sim (or mcbridge run next to your server)`, {
      reason: 'daemon_unreachable',
      host,
      port,
    });
  }
}

/** A call the client stopped waiting for after `ms`; `outcome`: what the daemon said of its write since; `more`: said after. */
export function callTimeoutError(method: string, ms: number, outcome?: WriteOutcome, more = ''): McbridgeError {
  return new McbridgeError('timeout', `no answer from the daemon for '${method}' within ${ms} ms${more}`, undefined, outcome);
}

/**
 * A client of the local API, used by the CLI, the MCP front-end and tests. Requests get
 * ids; responses, progress frames and event pushes are routed back by id and type.
 */
export class ApiClient extends EventEmitter {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedWith: McbridgeError | null = null;

  private constructor(
    private readonly socket: net.Socket,
    private readonly token: string | undefined,
    private readonly frontend?: string,
  ) {
    super();
    const splitter = new LineSplitter({ maxLineBytes: DEFAULT_MAX_LINE_BYTES, onLine: (line) => this.onLine(line) });
    socket.on('data', (chunk: Buffer) => splitter.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closedWith = new McbridgeError('unavailable', 'the connection to the mcbridge daemon closed');
      for (const p of this.pending.values()) p.reject(this.closedWith);
      this.pending.clear();
      this.emit('close');
    });
  }

  static connect(options: ApiClientOptions = {}): Promise<ApiClient> {
    const host = options.host ?? DEFAULT_API_HOST;
    const port = options.port ?? DEFAULT_API_PORT;
    const token = options.token ?? (process.env.MCBRIDGE_API_TOKEN || undefined);
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new DaemonUnreachableError(host, port, 'connect timed out'));
      }, options.connectTimeoutMs ?? 3_000);
      socket.once('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new DaemonUnreachableError(host, port, err.code ?? err.message));
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new ApiClient(socket, token, options.frontend));
      });
    });
  }

  get closed(): boolean {
    return this.closedWith !== null;
  }

  call(method: string, params: Record<string, unknown> = {}, options: ClientCallOptions = {}): Promise<unknown> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    // An abort that already happened fires no listener: refuse before sending anything.
    if (options.signal?.aborted) return Promise.reject(new McbridgeError('cancelled', `the call to '${method}' was cancelled before it was sent`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const pending: Pending = {
        resolve: (v) => {
          cleanup();
          resolve(v);
        },
        reject: (e) => {
          cleanup();
          reject(e);
        },
        onProgress: options.onProgress,
      };
      // Cancelling asks the daemon to stop; its `cancelled` response settles the call.
      const onAbort = () => this.write({ id: `cancel-${id}`, method: 'cancel', params: { id } });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const { timeoutMs } = options;
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.pending.delete(id);
          this.write({ id: `cancel-${id}`, method: 'cancel', params: { id } });
          pending.reject(callTimeoutError(method, timeoutMs));
        }, timeoutMs);
      }
      this.pending.set(id, pending);
      const frame: Record<string, unknown> = { id, method, params };
      if (options.onProgress) frame.progress = true;
      if (this.frontend) frame.caller = options.session ? { frontend: this.frontend, session: options.session } : { frontend: this.frontend };
      this.write(frame);
    });
  }

  async subscribe(topics: string[]): Promise<string[]> {
    const result = (await this.call('subscribe', { events: topics })) as { subscribed: string[] };
    return result.subscribed;
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }

  private write(frame: Record<string, unknown>): void {
    if (this.token) frame.auth = this.token;
    if (!this.socket.destroyed) this.socket.write(JSON.stringify(frame) + '\n');
  }

  private onLine(line: string): void {
    let frame: { type?: string; id?: unknown };
    try {
      frame = JSON.parse(line);
    } catch {
      return;
    }
    switch (frame.type) {
      case 'response': {
        const response = frame as ResponseFrame;
        if (typeof response.id !== 'number') {
          if (!response.ok && response.id === null) this.emit('protocol-error', response);
          return;
        }
        const pending = this.pending.get(response.id);
        if (!pending) return;
        this.pending.delete(response.id);
        if (response.ok) pending.resolve(response.result);
        else pending.reject(new McbridgeError(isErrorCode(response.code) ? response.code : 'internal', response.error, response.details, readOutcome(response)));
        return;
      }
      case 'progress': {
        const progress = frame as ProgressFrame;
        if (typeof progress.id === 'number') this.pending.get(progress.id)?.onProgress?.(progress);
        return;
      }
      case 'event':
        this.emit('event', frame as EventFrame);
        return;
      case 'gap':
        this.emit('gap', frame as GapFrame);
        return;
      default:
        return;
    }
  }
}

/**
 * A launched server's console, shared by the plugins of its target: the `server` plugin publishes
 * what the child prints, raw and in order, and any plugin (`logs`, a shipper of one's own)
 * subscribes. Raw chunks, not lines: each reader bounds and splits them its own way.
 */
import type { HostView } from '../host/plugin-api.js';

export interface ConsoleChunk {
  /** `mcbridge`: a whole line of the daemon's own about the server (started, exited). */
  stream: 'stdout' | 'stderr' | 'mcbridge';
  data: Buffer;
  at: number;
}

export type ConsoleListener = (chunk: ConsoleChunk) => void;

export interface ServerConsole {
  /** Every chunk from now on; returns the unsubscribe. */
  subscribe(listener: ConsoleListener): () => void;
  publish(chunk: ConsoleChunk): void;
  readonly subscribers: number;
}

const KEY = 'mcbridge:server-console';

/** This target's console, made on first use. */
export function serverConsole(host: Pick<HostView, 'shared'>): ServerConsole {
  const existing = host.shared.get(KEY) as ServerConsole | undefined;
  if (existing) return existing;
  const listeners = new Set<ConsoleListener>();
  const console: ServerConsole = {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish(chunk) {
      for (const listener of listeners) {
        try {
          listener(chunk);
        } catch {
          // One reader's bug must not stop the console for the others or the server.
        }
      }
    },
    get subscribers() {
      return listeners.size;
    },
  };
  host.shared.set(KEY, console);
  return console;
}

/**
 * A control session's reads: bytes into frames, and frames to the link at most `perTurn` per turn
 * of the event loop. One target's flood must not starve the others: past the bound the socket
 * pauses (TLS backpressure slows the server) until the next turn (docs/targets.md, "Isolation").
 */
import type tls from 'node:tls';
import type { FrameReader } from './frames.js';

export const DEFAULT_FRAMES_PER_TURN = 64;

export interface ReadHandlers {
  /** Bytes came in (the read deadline's clock). */
  heard(): void;
  frame(frame: Record<string, unknown>): void;
  /** A frame broke the rules: the session cannot be trusted. */
  bad(err: Error): void;
}

export function readFrames(socket: tls.TLSSocket, reader: FrameReader, perTurn: number, on: ReadHandlers): void {
  let queue: Array<Record<string, unknown>> = [];
  let next = 0;
  let yielded = false;
  const drain = () => {
    const stop = Math.min(queue.length, next + perTurn);
    while (next < stop) on.frame(queue[next++]!);
    if (next < queue.length) {
      if (!yielded) {
        yielded = true;
        socket.pause();
        setImmediate(() => {
          yielded = false;
          drain();
        });
      }
      return;
    }
    queue = [];
    next = 0;
    if (socket.isPaused() && !socket.destroyed) socket.resume();
  };
  socket.on('data', (chunk: Buffer) => {
    on.heard();
    try {
      for (const frame of reader.push(chunk)) queue.push(frame);
    } catch (err) {
      on.bad(err as Error);
      return;
    }
    if (!yielded) drain();
  });
}

/**
 * The limits a server's `welcome` announces, floored and capped before the link obeys them: a
 * server's `idleSeconds: 0.003` must not make the keep-alive ping a thousand times a second, nor a
 * `maxPendingRequests` of a billion let every request out at once (docs/control.md). The deadlines
 * derived from them: liveness.ts.
 */
import { DEFAULT_MAX_FRAME_BYTES } from './frames.js';

export interface SessionLimits {
  maxFrameBytes: number;
  maxPendingRequests: number;
  requestTimeoutMillis: number;
  idleSeconds: number;
}

/** [floor, default, cap] of each limit: a value outside is taken as the nearest bound. */
export const LIMIT_BOUNDS: Record<keyof SessionLimits, readonly [number, number, number]> = {
  // A request frame is a few hundred bytes; our own frames never exceed our reader's bound.
  maxFrameBytes: [1024, DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_FRAME_BYTES],
  maxPendingRequests: [1, 32, 1024],
  requestTimeoutMillis: [1_000, 30_000, 3_600_000],
  idleSeconds: [1, 300, 86_400],
};

function bound(key: keyof SessionLimits, value: unknown): number {
  const [floor, fallback, cap] = LIMIT_BOUNDS[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(cap, Math.max(floor, value));
}

export function boundLimits(announced: Partial<Record<keyof SessionLimits, unknown>> | undefined): SessionLimits {
  const a = announced ?? {};
  return {
    maxFrameBytes: Math.floor(bound('maxFrameBytes', a.maxFrameBytes)),
    maxPendingRequests: Math.floor(bound('maxPendingRequests', a.maxPendingRequests)),
    requestTimeoutMillis: Math.floor(bound('requestTimeoutMillis', a.requestTimeoutMillis)),
    idleSeconds: bound('idleSeconds', a.idleSeconds),
  };
}

import { z } from 'zod';
import { McbridgeError, type ErrorCode } from '../host/errors.js';

/** One request line of the local API (predecessor-compatible, plus `progress` and `auth`). */
export const requestFrame = z.object({
  id: z.unknown().optional(),
  method: z.string({ error: 'method must be a string naming a tool or local method' }).min(1, 'method must not be empty').max(128, 'method must name a tool or local method (at most 128 characters)'),
  params: z.record(z.string(), z.unknown(), { error: 'params must be a JSON object' }).nullish(),
  progress: z.boolean().optional(),
  auth: z.string().optional(),
  /** Who is asking, for the activity log: the front-end and, for MCP, its session. */
  caller: z
    .object({
      frontend: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'caller.frontend must be a short lowercase name such as "cli" or "mcp"'),
      session: z.string().max(64, 'caller.session must be at most 64 characters').optional(),
    })
    .optional(),
});

export type RequestFrame = z.infer<typeof requestFrame>;

export interface ResponseOk {
  type: 'response';
  id: unknown;
  ok: true;
  result: unknown;
}

export interface ResponseError {
  type: 'response';
  id: unknown;
  ok: false;
  /** A plain string, so the predecessor's clients keep working. */
  error: string;
  code: ErrorCode;
  details?: Record<string, unknown>;
  /** A failed write: may it be sent again, may it have run, and its id for `request_status`. */
  retryable?: boolean;
  resultUnknown?: boolean;
  requestId?: string;
}

export type ResponseFrame = ResponseOk | ResponseError;

export interface EventFrame {
  type: 'event';
  event: string;
  data: unknown;
}

export interface ProgressFrame {
  type: 'progress';
  id: unknown;
  progress: number;
  total?: number;
  message?: string;
}

/** Sent to a subscriber that fell behind: these events were not pushed; replay them with `events`. */
export interface GapFrame {
  type: 'gap';
  dropped: number;
  fromSeq: number;
  toSeq: number;
  streamId: string;
  /** On a daemon of several targets: whose events these were. */
  target?: string;
}

export type ServerFrame = ResponseFrame | EventFrame | ProgressFrame | GapFrame;

/** Subscribable streams: the event categories plus `surface` (tool list changes). */
export const SUBSCRIPTION_TOPICS = ['hello', 'chat', 'game', 'mark', 'sample', 'error', 'other', 'surface'] as const;

export const subscribeParams = z.object({
  events: z
    .union([z.array(z.string()), z.string()], { error: 'events must be a list of categories, e.g. ["chat","game"], or "*"' })
    .transform((v) => (typeof v === 'string' ? v.split(',') : v).map((s) => s.trim()).filter(Boolean)),
});

const KNOWN_TOPICS = new Set<string>([...SUBSCRIPTION_TOPICS, '*']);

/**
 * Topics split into those we push and those we do not know. The predecessor accepted any name
 * silently; an unknown one is ignored here too, but the answer says so (`warning`).
 */
export function sortTopics(names: string[]): { topics: string[]; unknown: string[] } {
  const topics = names.filter((n) => KNOWN_TOPICS.has(n));
  return { topics, unknown: [...new Set(names.filter((n) => !KNOWN_TOPICS.has(n)))] };
}

export const cancelParams = z.object({
  id: z.unknown().refine((v) => v !== undefined && v !== null, 'id of the request to cancel is required'),
});

export function errorFrame(id: unknown, error: McbridgeError): ResponseError {
  const frame: ResponseError = { type: 'response', id, ok: false, error: error.message, code: error.code };
  if (error.details) frame.details = error.details;
  if (error.outcome) Object.assign(frame, error.outcome);
  return frame;
}

/**
 * A frame's JSON line (without the newline). An answer that cannot be serialized (a cycle,
 * a BigInt, a tree too deep for the stack) becomes an `internal` error with the same id, so
 * its request still gets exactly one answer; such a progress frame gives null (dropped).
 */
export function encodeFrame(frame: ServerFrame): string | null {
  try {
    return JSON.stringify(frame);
  } catch (err) {
    if (frame.type === 'progress') return null;
    if (frame.type !== 'response') throw err;
    const reason = new McbridgeError('internal', `internal error: the answer could not be sent as JSON (${(err as Error).message})`);
    return JSON.stringify(errorFrame(frame.id, reason));
  }
}

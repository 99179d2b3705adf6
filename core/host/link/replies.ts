import { McbridgeError } from '../errors.js';
import type { ModMessage } from './connection.js';
import { redactValue } from '../../util/redact.js';

export interface ModReply extends Record<string, unknown> {
  type: string;
}

/** Counters for `status`: what the link sent, and what happened to the replies. */
export interface LinkStats {
  requests: number;
  /** Every timeout, queued or in flight. */
  timeouts: number;
  /** Of those, requests whose deadline passed while they were still queued: never sent. */
  queueTimeouts: number;
  cancelled: number;
  lateReplies: number;
  /** Replies no request could want, dropped; duplicates included. */
  strayReplies: number;
  /** Of the dropped ones, second copies of a reply the mod had already sent. */
  duplicateReplies: number;
  /** Reader-thread requests sent while another request was in flight (they overtake it). */
  overtakes: number;
  badLines: number;
  connections: number;
  sideRequests: number;
  /** Requests for verbs no plugin declared, which any reply answered. */
  undeclaredVerbs: number;
}

export function newLinkStats(): LinkStats {
  return {
    requests: 0,
    timeouts: 0,
    queueTimeouts: 0,
    cancelled: 0,
    lateReplies: 0,
    strayReplies: 0,
    duplicateReplies: 0,
    overtakes: 0,
    badLines: 0,
    connections: 0,
    sideRequests: 0,
    undeclaredVerbs: 0,
  };
}

export function replyType(msg: ModMessage): string | undefined {
  return typeof msg.type === 'string' ? msg.type : undefined;
}

/**
 * The one reply-matching rule, for the in-flight request, an owed reply and a side connection
 * alike: an `error` answers any request, and an empty list of expected types takes any reply.
 */
export function matchesReply(replies: readonly string[], type: string | undefined): boolean {
  return type === 'error' || replies.length === 0 || (type !== undefined && replies.includes(type));
}

export function modErrorOf(line: string, reply: ModMessage): McbridgeError {
  const message = typeof reply.message === 'string' ? reply.message : 'mod reported an error';
  return new McbridgeError('mod_error', message, { request: line, reply });
}

export function cancelledError(line: string): McbridgeError {
  return new McbridgeError('cancelled', `the request '${line}' was cancelled`);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** The request was sent and its reply did not come in time; `queuedMs` it waited before it was sent. */
export function timeoutError(line: string, timeoutMs: number, queuedMs = 0): McbridgeError {
  const queued = queuedMs >= 100 ? ` (${seconds(queuedMs)} of it queued behind earlier requests)` : '';
  return new McbridgeError('timeout', `no response for '${line}' within ${seconds(timeoutMs)}${queued}`, { request: line, timeoutMs, queuedMs, sent: true });
}

export interface Ahead {
  /** Requests sent before it and not answered yet, oldest first. */
  inFlight: Array<{ line: string; ageMs: number }>;
  /** Requests queued before it. */
  queued: number;
}

/** The deadline passed while the request still waited its turn: it was never sent. */
export function queueTimeoutError(line: string, timeoutMs: number, ahead: Ahead): McbridgeError {
  const count = ahead.inFlight.length + ahead.queued;
  const busy = ahead.inFlight.map((r) => `'${r.line}' for ${seconds(r.ageMs)}`).join(', ');
  return new McbridgeError(
    'timeout',
    `no response for '${line}' within ${seconds(timeoutMs)}: it waited in the queue behind ${count} request${count === 1 ? '' : 's'}` +
      `${busy ? ` (the mod is still answering ${busy})` : ''} and was never sent. ` +
      'Try again when the mod has caught up, or give the call a longer timeout.',
    { request: line, timeoutMs, sent: false, ahead: count, inFlight: ahead.inFlight },
  );
}

/** A request line fit for a debug log: URL credentials stripped, cut at 120 characters (arguments may be anything). */
export function loggable(line: string): string {
  return redactValue(line, { maxString: 120 }) as string;
}

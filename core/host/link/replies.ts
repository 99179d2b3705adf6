import { McbridgeError } from '../errors.js';
import type { ModMessage } from './connection.js';

export interface ModReply extends Record<string, unknown> {
  type: string;
}

/** Counters for `status`: what the link sent, and what happened to the replies. */
export interface LinkStats {
  requests: number;
  timeouts: number;
  cancelled: number;
  lateReplies: number;
  strayReplies: number;
  badLines: number;
  connections: number;
  sideRequests: number;
  /** Requests for verbs no plugin declared, which any reply answered. */
  undeclaredVerbs: number;
}

export function newLinkStats(): LinkStats {
  return {
    requests: 0, timeouts: 0, cancelled: 0, lateReplies: 0, strayReplies: 0, badLines: 0, connections: 0, sideRequests: 0, undeclaredVerbs: 0,
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

export function timeoutError(line: string, timeoutMs: number): McbridgeError {
  return new McbridgeError('timeout', `no response for '${line}' within ${(timeoutMs / 1000).toFixed(1)}s`, { request: line, timeoutMs });
}

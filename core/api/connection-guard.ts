import { createHash, timingSafeEqual } from 'node:crypto';
import { McbridgeError } from '../host/errors.js';
import type { Logger } from '../util/log.js';

/**
 * What a connection may do before it has sent the API token, when one is set. A token is
 * what lets the API leave loopback (`--allow-remote`), so everything before it is an
 * unknown peer's: bounded in connections, bytes, time and guesses. Once a request carried
 * the right token the connection is trusted like a loopback one (every request still
 * carries the token, as the predecessor's clients send it).
 */

/** Shortest token accepted: a short one falls to guessing even with the throttle below. */
export const MIN_TOKEN_LENGTH = 16;

export interface GuardLimits {
  /** Connections that have not sent the token yet, at once (those being closed count too). */
  maxPending: number;
  /** Bytes a connection may send before a request carrying the right token. */
  preAuthBytes: number;
  /** How long a connection may go without sending the token. */
  authTimeoutMs: number;
  /** Failed token attempts from one address within `failureWindowMs` ... */
  maxFailures: number;
  failureWindowMs: number;
  /** ... after which its attempts are refused, right token or not, for this long. */
  backoffMs: number;
}

export const DEFAULT_GUARD_LIMITS: GuardLimits = {
  maxPending: 64,
  preAuthBytes: 8 * 1024,
  authTimeoutMs: 10_000,
  maxFailures: 10,
  failureWindowMs: 60_000,
  backoffMs: 60_000,
};

/** Addresses remembered for the throttle; past this the oldest is forgotten. */
const MAX_TRACKED_ADDRESSES = 4096;

/** Refuses a token too short to protect a daemon that runs console commands. */
export function checkTokenStrength(token: string | undefined): void {
  if (token && token.length < MIN_TOKEN_LENGTH) {
    throw new McbridgeError('invalid_params', `the API token must be at least ${MIN_TOKEN_LENGTH} characters (got ${token.length}); ` +
      'pass a longer --api-token, MCBRIDGE_API_TOKEN or apiToken, e.g. the output of: openssl rand -hex 16');
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A connection that has not sent the token yet; `release` once it has, or has closed. */
export interface PreAuth {
  bytesLeft: number;
  release(): void;
}

interface Failures {
  count: number;
  since: number;
  blockedUntil: number;
}

export class ConnectionGuard {
  readonly limits: GuardLimits;
  private readonly expected: Buffer;
  private pendingCount = 0;
  private full = false;
  private readonly failures = new Map<string, Failures>();

  constructor(token: string, limits: Partial<GuardLimits> | undefined, private readonly log: Logger, private readonly now: () => number = Date.now) {
    this.limits = { ...DEFAULT_GUARD_LIMITS, ...limits };
    this.expected = digest(token);
  }

  get pending(): number {
    return this.pendingCount;
  }

  /** A new connection: its pre-auth allowance (the clock starts now), or why it is turned away. */
  admit(address: string, onTimeout: () => void): PreAuth | McbridgeError {
    if (this.pendingCount >= this.limits.maxPending) {
      if (!this.full) {
        this.full = true;
        this.log.warn({ address, limit: this.limits.maxPending }, `turning API connections away: ${this.limits.maxPending} are already waiting to send the token`);
      }
      return new McbridgeError('unavailable', `too many connections are waiting to authenticate (${this.limits.maxPending}); send the token in the first request and try again later`);
    }
    this.pendingCount += 1;
    const timer = setTimeout(onTimeout, this.limits.authTimeoutMs);
    timer.unref();
    let released = false;
    return {
      bytesLeft: this.limits.preAuthBytes,
      release: () => {
        if (released) return;
        released = true;
        clearTimeout(timer);
        this.pendingCount -= 1;
        if (this.pendingCount < this.limits.maxPending) this.full = false;
      },
    };
  }

  /** Whether `given` is the token, in time that does not depend on where they differ or their lengths. */
  matches(given: string | undefined): boolean {
    return given !== undefined && timingSafeEqual(digest(given), this.expected);
  }

  /** The first token a connection offers: null when right; otherwise counted against its address. */
  authenticate(given: string | undefined, address: string): McbridgeError | null {
    const now = this.now();
    const entry = this.failures.get(address);
    if (entry && entry.blockedUntil > now) {
      const retryAfterMs = entry.blockedUntil - now;
      return new McbridgeError('unauthorized', `too many failed token attempts from ${address}; wait ${Math.ceil(retryAfterMs / 1000)} s before trying again`, {
        reason: 'throttled',
        retryAfterMs,
      });
    }
    if (this.matches(given)) return null;
    this.recordFailure(address, entry, now);
    return new McbridgeError('unauthorized', given === undefined
      ? 'this daemon requires a token: send it as "auth" in every request (mcbridge --api-token, or MCBRIDGE_API_TOKEN)'
      : 'the token in "auth" is wrong: send the one the daemon was started with (--api-token, MCBRIDGE_API_TOKEN or apiToken)');
  }

  private recordFailure(address: string, entry: Failures | undefined, now: number): void {
    if (!entry || now - entry.since > this.limits.failureWindowMs) {
      if (!entry && this.failures.size >= MAX_TRACKED_ADDRESSES) this.failures.delete(this.failures.keys().next().value!);
      entry = { count: 0, since: now, blockedUntil: 0 };
      this.failures.set(address, entry);
    }
    entry.count += 1;
    if (entry.count >= this.limits.maxFailures) {
      entry.blockedUntil = now + this.limits.backoffMs;
      entry.count = 0;
      entry.since = entry.blockedUntil;
      this.log.warn({ address, failures: this.limits.maxFailures, backoffMs: this.limits.backoffMs },
        `${this.limits.maxFailures} failed API token attempts from ${address}: refusing its attempts for ${this.limits.backoffMs} ms`);
    }
  }
}

/** The peer's address as the throttle keys it: an IPv4 client of a dual-stack socket without its `::ffff:`. */
export function peerAddress(remoteAddress: string | undefined): string {
  if (!remoteAddress) return 'unknown';
  return remoteAddress.startsWith('::ffff:') ? remoteAddress.slice(7) : remoteAddress;
}

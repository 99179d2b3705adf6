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
  /** Of those, from one source address: one peer cannot hold every slot. */
  maxPendingPerSource: number;
  /** Once half the slots are taken, a new connection has this long (not authTimeoutMs) to send the token. */
  pressuredAuthTimeoutMs: number;
  /** Bytes a connection may send before a request carrying the right token. */
  preAuthBytes: number;
  /** How long a connection may go without sending the token. */
  authTimeoutMs: number;
  /** Failed token attempts from one address within `failureWindowMs` ... */
  maxFailures: number;
  failureWindowMs: number;
  /** ... after which its wrong tokens are refused as throttled for this long (the right one always passes). */
  backoffMs: number;
  /** Failed attempts from all addresses within `failureWindowMs` after which every address is throttled (rotating sources). */
  maxGlobalFailures: number;
}

export const DEFAULT_GUARD_LIMITS: GuardLimits = {
  maxPending: 64,
  maxPendingPerSource: 8,
  pressuredAuthTimeoutMs: 1_000,
  preAuthBytes: 8 * 1024,
  authTimeoutMs: 10_000,
  maxFailures: 10,
  failureWindowMs: 60_000,
  backoffMs: 60_000,
  maxGlobalFailures: 100,
};

/** Addresses remembered for the throttle; past this the oldest is forgotten. */
const MAX_TRACKED_ADDRESSES = 4096;

/** Refuses a token too short to protect a daemon that runs console commands. */
export function checkTokenStrength(token: string | undefined): void {
  if (token && token.length < MIN_TOKEN_LENGTH) {
    throw new McbridgeError(
      'invalid_params',
      `the API token must be at least ${MIN_TOKEN_LENGTH} characters (got ${token.length}); ` + 'pass a longer --api-token, MCBRIDGE_API_TOKEN or apiToken, e.g. the output of: openssl rand -hex 16',
    );
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

interface Waiting {
  expire(error: McbridgeError): void;
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
  /** Connections waiting for the token, oldest first, by source address. */
  private readonly waiting = new Map<string, Waiting[]>();
  private globalCount = 0;
  private globalSince = 0;
  private globalBlockedUntil = 0;

  constructor(
    token: string,
    limits: Partial<GuardLimits> | undefined,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_GUARD_LIMITS, ...limits };
    this.expected = digest(token);
  }

  get pending(): number {
    return this.pendingCount;
  }

  /**
   * A new connection: its pre-auth allowance (the clock starts now), or why it is turned away.
   * `expire` closes it (deadline passed, or its slot given to a newer connection).
   * When every slot is taken, the oldest waiting connection of the source holding the most
   * gives way: a client that sends the token with its first request always gets in, however
   * many slots one peer (or a few) holds open.
   */
  admit(address: string, expire: (error: McbridgeError) => void): PreAuth | McbridgeError {
    const mine = this.waiting.get(address) ?? [];
    if (mine.length >= this.limits.maxPendingPerSource) {
      return new McbridgeError(
        'unavailable',
        `too many connections from ${address} are waiting to authenticate (${this.limits.maxPendingPerSource}); send the token in the first request and try again later`,
      );
    }
    if (this.pendingCount >= this.limits.maxPending) {
      if (!this.full) {
        this.full = true;
        this.log.warn({ address, limit: this.limits.maxPending }, `API connections waiting for the token are at ${this.limits.maxPending}: the oldest of the busiest source give way to new ones`);
      }
      this.evictOldest();
    }
    const pressured = this.pendingCount >= this.limits.maxPending / 2;
    const deadlineMs = pressured ? Math.min(this.limits.pressuredAuthTimeoutMs, this.limits.authTimeoutMs) : this.limits.authTimeoutMs;
    this.pendingCount += 1;
    let released = false;
    const entry: Waiting = {
      expire: (error) => expire(error),
      release: () => {
        if (released) return;
        released = true;
        clearTimeout(timer);
        this.pendingCount -= 1;
        const list = this.waiting.get(address);
        const at = list?.indexOf(entry) ?? -1;
        if (list && at !== -1) list.splice(at, 1);
        if (list?.length === 0) this.waiting.delete(address);
        if (this.pendingCount < this.limits.maxPending) this.full = false;
      },
    };
    const timer = setTimeout(
      () => entry.expire(new McbridgeError('unauthorized', `no request carrying the token within ${deadlineMs} ms of connecting; send "auth" with the first request`)),
      deadlineMs,
    );
    timer.unref();
    mine.push(entry);
    this.waiting.set(address, mine);
    return { bytesLeft: this.limits.preAuthBytes, release: entry.release };
  }

  private evictOldest(): void {
    let busiest: Waiting[] | undefined;
    for (const list of this.waiting.values()) if (!busiest || list.length > busiest.length) busiest = list;
    const oldest = busiest?.[0];
    if (!oldest) return;
    // Counted free now, whatever the socket's close does later.
    oldest.release();
    oldest.expire(new McbridgeError('unavailable', 'this connection gave its place to a newer one: every slot for connections without the token was taken; send "auth" with the first request'));
  }

  /** Whether `given` is the token, in time that does not depend on where they differ or their lengths. */
  matches(given: string | undefined): boolean {
    return given !== undefined && timingSafeEqual(digest(given), this.expected);
  }

  /**
   * The first token a connection offers: null when right (always: a throttle never locks the
   * right token out of an address another client shares); otherwise counted against its
   * address and all addresses, and answered as throttled while either is over its budget.
   */
  authenticate(given: string | undefined, address: string): McbridgeError | null {
    if (this.matches(given)) return null;
    const now = this.now();
    const entry = this.failures.get(address);
    const blockedUntil = Math.max(entry?.blockedUntil ?? 0, this.globalBlockedUntil);
    if (blockedUntil > now) {
      const retryAfterMs = blockedUntil - now;
      return new McbridgeError(
        'unauthorized',
        `too many failed token attempts${this.globalBlockedUntil > now ? '' : ` from ${address}`}; wait ${Math.ceil(retryAfterMs / 1000)} s before trying again`,
        {
          reason: 'throttled',
          retryAfterMs,
        },
      );
    }
    this.recordFailure(address, entry, now);
    this.recordGlobalFailure(now);
    return new McbridgeError(
      'unauthorized',
      given === undefined
        ? 'this daemon requires a token: send it as "auth" in every request (mcbridge --api-token, or MCBRIDGE_API_TOKEN)'
        : 'the token in "auth" is wrong: send the one the daemon was started with (--api-token, MCBRIDGE_API_TOKEN or apiToken)',
    );
  }

  private recordGlobalFailure(now: number): void {
    if (now - this.globalSince > this.limits.failureWindowMs) {
      this.globalSince = now;
      this.globalCount = 0;
    }
    this.globalCount += 1;
    if (this.globalCount >= this.limits.maxGlobalFailures) {
      this.globalBlockedUntil = now + this.limits.backoffMs;
      this.globalCount = 0;
      this.globalSince = this.globalBlockedUntil;
      this.log.warn(
        { failures: this.limits.maxGlobalFailures, backoffMs: this.limits.backoffMs },
        `${this.limits.maxGlobalFailures} failed API token attempts from all addresses: wrong tokens are answered as throttled for ${this.limits.backoffMs} ms`,
      );
    }
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
      this.log.warn(
        { address, failures: this.limits.maxFailures, backoffMs: this.limits.backoffMs },
        `${this.limits.maxFailures} failed API token attempts from ${address}: refusing its attempts for ${this.limits.backoffMs} ms`,
      );
    }
  }
}

/** The peer's address as the throttle keys it: an IPv4 client of a dual-stack socket without its `::ffff:`. */
export function peerAddress(remoteAddress: string | undefined): string {
  if (!remoteAddress) return 'unknown';
  return remoteAddress.startsWith('::ffff:') ? remoteAddress.slice(7) : remoteAddress;
}

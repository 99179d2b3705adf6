/**
 * Exclusive leases (docs: the mod's control-protocol.md, "Exclusive leases"): owned by the
 * credential that took them, kept through a disconnect until the TTL ends, dropped on restart
 * and when the owner is revoked. Times are the sim's clock.
 */
import type { WireError } from './ledger.js';

export interface Lease {
  key: string;
  holderTokenId: string;
  holderSessionId: string;
  holderLabel: string;
  acquiredAtMillis: number;
  expiresAtMillis: number;
  renewals: number;
}

export interface Holder {
  tokenId: string;
  sessionId: string;
  label: string;
}

type Outcome = { lease: Lease } | { error: WireError };

function conflict(lease: Lease): { error: WireError } {
  return {
    error: { code: 'conflict', message: `exclusive key '${lease.key}' is held by another credential`, retryable: true, resultUnknown: false, details: { holder: { ...lease } } },
  };
}

function notFound(key: string): { error: WireError } {
  return { error: { code: 'not_found', message: `no exclusive lease is held on '${key}'`, retryable: false, resultUnknown: false } };
}

export class Leases {
  private readonly leases = new Map<string, Lease>();

  constructor(private readonly now: () => number) {}

  private live(key: string): Lease | undefined {
    const lease = this.leases.get(key);
    if (lease && lease.expiresAtMillis <= this.now()) {
      this.leases.delete(key);
      return undefined;
    }
    return lease;
  }

  acquire(key: string, ttlSeconds: number, holder: Holder): Outcome {
    const held = this.live(key);
    if (held && held.holderTokenId !== holder.tokenId) return conflict(held);
    const millis = this.now();
    const lease: Lease = held
      ? { ...held, holderSessionId: holder.sessionId, holderLabel: holder.label, expiresAtMillis: millis + ttlSeconds * 1000, renewals: held.renewals + 1 }
      : { key, holderTokenId: holder.tokenId, holderSessionId: holder.sessionId, holderLabel: holder.label, acquiredAtMillis: millis, expiresAtMillis: millis + ttlSeconds * 1000, renewals: 0 };
    this.leases.set(key, lease);
    return { lease: { ...lease } };
  }

  renew(key: string, ttlSeconds: number, tokenId: string): Outcome {
    const held = this.live(key);
    if (!held) return notFound(key);
    if (held.holderTokenId !== tokenId) return conflict(held);
    held.expiresAtMillis = this.now() + ttlSeconds * 1000;
    held.renewals++;
    return { lease: { ...held } };
  }

  release(key: string, tokenId: string): Outcome {
    const held = this.live(key);
    if (!held) return notFound(key);
    if (held.holderTokenId !== tokenId) return conflict(held);
    this.leases.delete(key);
    return { lease: { ...held } };
  }

  status(key?: string): Lease[] {
    const keys = key === undefined ? [...this.leases.keys()] : [key];
    return keys
      .map((k) => this.live(k))
      .filter((l): l is Lease => l !== undefined)
      .map((l) => ({ ...l }));
  }

  /** A revoked credential's leases go with it. */
  dropHeldBy(tokenId: string): void {
    for (const [key, lease] of this.leases) if (lease.holderTokenId === tokenId) this.leases.delete(key);
  }

  clear(): void {
    this.leases.clear();
  }
}

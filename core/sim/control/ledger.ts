/**
 * The server-side write ledger of the current run: what `request_status` answers and what makes
 * a resent write id answer its stored result (`duplicate: true`) instead of running again. Keyed
 * by (token id, request id); bounded like the mod's: 1024 entries, 30 minutes.
 */
import type { Reply } from '../host.js';

export const LEDGER_ENTRIES = 1024;
export const LEDGER_MILLIS = 30 * 60 * 1000;

export interface WireError {
  code: string;
  message: string;
  retryable: boolean;
  resultUnknown: boolean;
  details?: Record<string, unknown>;
}

export interface LedgerEntry {
  requestId: string;
  operation: string;
  state: 'pending' | 'completed' | 'failed';
  beganAtMillis: number;
  updatedAtMillis: number;
  result?: Reply;
  error?: WireError;
}

export class WriteLedger {
  private readonly entries = new Map<string, LedgerEntry>();

  constructor(private readonly now: () => number) {}

  private static key(tokenId: string, requestId: string): string {
    return `${tokenId}\u0000${requestId}`;
  }

  get(tokenId: string, requestId: string): LedgerEntry | undefined {
    this.prune();
    return this.entries.get(WriteLedger.key(tokenId, requestId));
  }

  begin(tokenId: string, requestId: string, operation: string): LedgerEntry {
    this.prune();
    const millis = this.now();
    const entry: LedgerEntry = { requestId, operation, state: 'pending', beganAtMillis: millis, updatedAtMillis: millis };
    this.entries.set(WriteLedger.key(tokenId, requestId), entry);
    while (this.entries.size > LEDGER_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    return entry;
  }

  finish(entry: LedgerEntry, outcome: { result: Reply } | { error: WireError }): void {
    entry.updatedAtMillis = this.now();
    if ('result' in outcome) {
      entry.state = 'completed';
      entry.result = outcome.result;
    } else {
      entry.state = 'failed';
      entry.error = outcome.error;
    }
  }

  /** Oldest first: a Map keeps insertion order, and entries are never re-inserted. */
  private prune(): void {
    const oldest = this.now() - LEDGER_MILLIS;
    for (const [key, entry] of this.entries) {
      if (entry.updatedAtMillis >= oldest || entry.state === 'pending') break;
      this.entries.delete(key);
    }
  }
}

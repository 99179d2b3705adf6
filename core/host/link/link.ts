/**
 * What the host needs of its mod link, whichever transport carries it: the legacy loopback
 * JSON-lines socket (mod-link.ts) or the mod's control protocol 1 over TLS (control/).
 */
import type { EventEmitter } from 'node:events';
import type { Caps } from './caps.js';
import type { ModMessage } from './connection.js';
import type { PortResolution, Vantage } from './discovery.js';
import type { RequestOptions } from './mod-link.js';
import type { QueueStatus } from './request-queue.js';
import type { LinkStats, ModReply } from './replies.js';
import type { LedgerFileStatus } from './ledger-file.js';
import type { WriteLedger } from './writes.js';

export type Transport = 'legacy' | 'control';
export type LinkState = 'idle' | 'discovering' | 'connecting' | 'negotiating' | 'ready' | 'stopped';

export interface LinkStatus extends QueueStatus {
  transport: Transport;
  state: LinkState;
  connected: boolean;
  vantage: Vantage;
  instance: string | null;
  mod: { host: string; port: number | null; portSource: string | null };
  discovery: PortResolution | null;
  hello: ModMessage | null;
  capabilities: string[] | null;
  capsSource: 'caps' | 'hello' | null;
  lastError: string | null;
  connectedAt: number | null;
  stats: LinkStats;
  /** The daemon's write ledger (legacy; a control link says it under `control`). */
  writes?: { tracked: number; unknown: number; bytes: number; file?: LedgerFileStatus };
  /** A control link's session: trust, credential source, permissions, run, limits, events. */
  control?: Record<string, unknown>;
}

export interface Link extends EventEmitter {
  readonly transport: Transport;
  readonly vantage: Vantage;
  readonly caps: Caps | null;
  readonly connected: boolean;
  /** The game folder as configured: where world-disk tools look (null: none configured). */
  readonly serverDir: string | null;
  /** What the credential may do (control); null: everything (the legacy link has no credential). */
  readonly permissions: readonly string[] | null;
  readonly writes: WriteLedger;
  readonly stats: LinkStats;
  capsInfo(): { connected: boolean; capsSource: 'caps' | 'hello' | null; instance: string | null; minecraft: string | null };
  start(): void;
  stop(): Promise<void>;
  /** Ends a backoff pause now and starts the next ones short (the game was just started). */
  retryNow(): void;
  status(): LinkStatus;
  request(line: string, options?: RequestOptions): Promise<ModReply>;
}

/**
 * Chat context bundles (docs/protocol.md#chat-context): the receipt store (capture at packet receipt, 60 s), the context
 * cache (capacity, TTL from capture time, lifetime counters), CONTEXT replies, and the server
 * `chat` event in its four variants (receipt, broadcast, receipt_expired, sender_unavailable).
 */
import { dbl, flt } from './json.js';
import type { SeededRandom } from './random.js';
import { bundleViewJson, pickView } from './view.js';
import type { SimEntity, World } from './world.js';

export type ChatVariant = 'receipt' | 'broadcast' | 'receipt_expired' | 'sender_unavailable';

export const RECEIPT_TTL_MILLIS = 60_000;

export interface ContextBundle {
  contextId: string;
  seq: number;
  capturedAt: number;
  tick: number;
  timing: 'receipt' | 'broadcast';
  uuid: string;
  name: string;
  dimension: string;
  x: number;
  y: number;
  z: number;
  yaw: number;
  pitch: number;
  /** The bundle's ViewTarget JSON, captured with the rest. */
  view: Record<string, unknown>;
}

/** The bundle as CONTEXT <id> returns it. */
export function bundleJson(b: ContextBundle): Record<string, unknown> {
  return {
    schema: 'player-context/1',
    context_id: b.contextId,
    seq: b.seq,
    capturedAt: b.capturedAt,
    tick: b.tick,
    timing: b.timing,
    uuid: b.uuid,
    name: b.name,
    dimension: b.dimension,
    x: dbl(b.x),
    y: dbl(b.y),
    z: dbl(b.z),
    yaw: flt(b.yaw),
    pitch: flt(b.pitch),
    view: b.view,
  };
}

/** The inline summary a chat event carries: no id, seq or capture time; view type only. */
function summaryJson(b: ContextBundle): Record<string, unknown> {
  return {
    schema: 'player-context/1',
    uuid: b.uuid,
    name: b.name,
    tick: b.tick,
    timing: b.timing,
    dimension: b.dimension,
    x: dbl(b.x),
    y: dbl(b.y),
    z: dbl(b.z),
    yaw: flt(b.yaw),
    pitch: flt(b.pitch),
    view: { type: b.view.type },
  };
}

export type Lookup = { status: 'ok'; bundle: ContextBundle; ageMillis: number } | { status: 'not_found' } | { status: 'expired'; capturedAt: number; ageMillis: number };

export class ContextCache {
  hits = 0;
  misses = 0;
  expired = 0;
  evicted = 0;
  private readonly entries = new Map<string, ContextBundle>();

  constructor(
    readonly capacity: number,
    readonly ttlMillis: number,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Purges expired entries first, then evicts the oldest while full. */
  insert(bundle: ContextBundle): void {
    const now = this.now();
    for (const [id, entry] of this.entries) {
      if (now - entry.capturedAt > this.ttlMillis) {
        this.entries.delete(id);
        this.expired++;
      }
    }
    while (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.evicted++;
    }
    this.entries.set(bundle.contextId, bundle);
  }

  /** An expired entry is reported once and removed, so the next lookup is `not_found`. */
  lookup(id: string): Lookup {
    const entry = this.entries.get(id);
    if (!entry) {
      this.misses++;
      return { status: 'not_found' };
    }
    const ageMillis = this.now() - entry.capturedAt;
    if (ageMillis > this.ttlMillis) {
      this.entries.delete(id);
      this.expired++;
      return { status: 'expired', capturedAt: entry.capturedAt, ageMillis };
    }
    this.hits++;
    return { status: 'ok', bundle: entry, ageMillis };
  }

  sizeJson(): Record<string, unknown> {
    return { capacity: this.capacity, ttlMillis: this.ttlMillis, size: this.size };
  }

  statsJson(): Record<string, unknown> {
    return { ...this.sizeJson(), hits: this.hits, misses: this.misses, expired: this.expired, evicted: this.evicted };
  }
}

/** Captures parked at packet receipt until their broadcast consumes them. */
class ReceiptStore {
  private readonly parked = new Map<number, ContextBundle>();

  constructor(
    private readonly capacity: number,
    private readonly now: () => number,
  ) {}

  add(key: number, bundle: ContextBundle): void {
    const now = this.now();
    for (const [k, entry] of this.parked) {
      if (now - entry.capturedAt > RECEIPT_TTL_MILLIS) this.parked.delete(k);
    }
    while (this.parked.size >= this.capacity) this.parked.delete(this.parked.keys().next().value as number);
    this.parked.set(key, bundle);
  }

  take(key: number): ContextBundle | undefined {
    const bundle = this.parked.get(key);
    this.parked.delete(key);
    return bundle;
  }
}

/** A chat message received but not broadcast yet (the chat filter is still working on it). */
export interface PendingChat {
  key: number;
  text: string;
  senderUuid: string | null;
  senderName: string | null;
}

export interface ChatContextOptions {
  capacity: number;
  ttlMillis: number;
  now: () => number;
  random: SeededRandom;
}

export class ChatContexts {
  readonly cache: ContextCache;
  private readonly receipts: ReceiptStore;
  private seq = 0;
  private nextKey = 1;

  constructor(
    private readonly world: World,
    private readonly options: ChatContextOptions,
  ) {
    const capacity = Math.max(1, options.capacity);
    this.cache = new ContextCache(capacity, options.ttlMillis, options.now);
    this.receipts = new ReceiptStore(capacity, options.now);
  }

  private capture(player: SimEntity, timing: ContextBundle['timing'], capturedAt: number): ContextBundle {
    return {
      contextId: `ctx-${this.options.random.uuid()}`,
      seq: ++this.seq,
      capturedAt,
      tick: this.world.tick,
      timing,
      uuid: player.uuid,
      name: player.player!.name,
      dimension: player.dimension,
      x: player.x,
      y: player.y,
      z: player.z,
      yaw: player.yaw,
      pitch: player.pitch,
      view: bundleViewJson(this.world, pickView(this.world, player)),
    };
  }

  /** Receipt: takes the next seq and parks a capture. `ageMillis` back-dates it (to script expiry). */
  receive(playerName: string, text: string, ageMillis = 0): PendingChat {
    const player = this.world.findPlayerByName(playerName, true) ?? null;
    const key = this.nextKey++;
    if (player) this.receipts.add(key, this.capture(player, 'receipt', this.options.now() - ageMillis));
    return { key, text, senderUuid: player?.uuid ?? null, senderName: player?.player?.name ?? null };
  }

  /** Broadcast: consumes the receipt (or captures now), fills the cache, builds the chat event. */
  broadcast(pending: PendingChat): Record<string, unknown> {
    const now = this.options.now();
    const parked = this.receipts.take(pending.key);
    const sender = pending.senderName ?? undefined;
    if (parked) {
      const ageMillis = now - parked.capturedAt;
      if (ageMillis > RECEIPT_TTL_MILLIS) {
        const context = { available: false, reason: 'receipt_expired', receivedAt: parked.capturedAt, ageMillis };
        return chatEvent(now, parked.seq, pending.text, sender, undefined, context);
      }
      this.cache.insert(parked);
      return chatEvent(now, parked.seq, pending.text, sender, parked.contextId, summaryJson(parked));
    }
    const player = pending.senderUuid ? this.world.findByUuid(pending.senderUuid) : undefined;
    if (!player?.player) return this.unavailable(pending.text, sender);
    const bundle = this.capture(player, 'broadcast', now);
    this.cache.insert(bundle);
    return chatEvent(now, bundle.seq, pending.text, sender, bundle.contextId, summaryJson(bundle));
  }

  unavailable(text: string, sender: string | undefined): Record<string, unknown> {
    return chatEvent(this.options.now(), undefined, text, sender, undefined, { available: false, reason: 'sender_unavailable' });
  }

  /** One scripted chat message from receipt to broadcast, in the chosen variant. */
  chat(playerName: string, text: string, variant: ChatVariant, receiptAgeMillis = RECEIPT_TTL_MILLIS + 1_000): Record<string, unknown> {
    const online = this.world.findPlayerByName(playerName, true);
    switch (variant) {
      case 'receipt':
        return this.broadcast(this.receive(playerName, text));
      case 'broadcast':
        return this.broadcast({ key: this.nextKey++, text, senderUuid: online?.uuid ?? null, senderName: online?.player?.name ?? null });
      case 'receipt_expired':
        return this.broadcast(this.receive(playerName, text, receiptAgeMillis));
      case 'sender_unavailable':
        return this.unavailable(text, online?.player?.name);
    }
  }

  contextReply(id: string, millis: number): Record<string, unknown> {
    const found = this.cache.lookup(id);
    const head = { type: 'context', millis, context_id: id, status: found.status };
    if (found.status === 'ok') return { ...head, ageMillis: found.ageMillis, context: bundleJson(found.bundle), cache: this.cache.sizeJson() };
    if (found.status === 'expired') return { ...head, capturedAt: found.capturedAt, ageMillis: found.ageMillis, cache: this.cache.sizeJson() };
    return { ...head, cache: this.cache.sizeJson() };
  }

  statsReply(millis: number): Record<string, unknown> {
    return { type: 'context_stats', millis, status: 'ok', cache: this.cache.statsJson() };
  }
}

function chatEvent(millis: number, seq: number | undefined, text: string, sender: string | undefined, contextId: string | undefined, context: Record<string, unknown>): Record<string, unknown> {
  return { type: 'chat', millis, seq, text, sender, context_id: contextId, context, event: true };
}

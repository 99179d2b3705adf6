import { createHmac, randomBytes } from 'node:crypto';
import { VERSION } from 'mcbridge';

/** What a receiver gets: built once per event, the same bytes for every attempt, as the predecessor's forwarder sent it. */
export interface Delivery {
  eventId: string;
  type: string;
  body: string;
}

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function named(v: unknown): string | null {
  if (nonEmpty(v)) return v;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (nonEmpty(o.name)) return o.name;
    if (nonEmpty(o.id)) return o.id;
  }
  return null;
}

function senderOf(e: Record<string, unknown>): string | null {
  for (const key of ['sender', 'player', 'playerName', 'name', 'from']) {
    const v = named(e[key]);
    if (v) return v;
  }
  return null;
}

function contextIdOf(e: Record<string, unknown>): unknown {
  for (const key of ['context_id', 'contextId']) if (e[key] !== undefined && e[key] !== null && e[key] !== '') return e[key];
  const ctx = e.context;
  if (ctx && typeof ctx === 'object') {
    const c = ctx as Record<string, unknown>;
    for (const key of ['id', 'context_id', 'contextId']) if (c[key] !== undefined && c[key] !== null) return c[key];
    return null;
  }
  return ctx === undefined ? null : ctx;
}

/** The JSON body for one event; `eventId` is the receiver's idempotency key. */
export function buildDelivery(event: Record<string, unknown>): Delivery {
  const seq = typeof event.seq === 'number' ? event.seq : null;
  const streamId = nonEmpty(event.streamId) ? event.streamId : null;
  const eventId = nonEmpty(event.eventId) ? event.eventId : `${streamId ?? 'mcbridge'}:${seq ?? randomBytes(6).toString('hex')}`;
  const category = nonEmpty(event.category) ? event.category : 'other';
  const type = nonEmpty(event.type) ? event.type : category;
  const body = JSON.stringify({
    eventId,
    sequence: seq,
    streamId,
    // The game it came from, on a daemon of several targets (`default` on a daemon of one).
    target: nonEmpty(event.target) ? event.target : null,
    event: category,
    type,
    category,
    timestamp: typeof event.receivedAt === 'number' ? event.receivedAt : Date.now(),
    tick: typeof event.tick === 'number' ? event.tick : null,
    sender: senderOf(event),
    context_id: contextIdOf(event),
    data: event,
  });
  return { eventId, type, body };
}

/** `sha256=<hex>` of HMAC-SHA256(secret, "<timestamp>." + body). */
export function sign(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/** The headers of one attempt: signed afresh with this attempt's timestamp. */
export function attemptHeaders(delivery: Delivery, secret: string, attempt: number, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'User-Agent': `mcbridge/${VERSION}`,
    'X-MC-Agent-Signature': sign(secret, timestamp, delivery.body),
    'X-MC-Agent-Timestamp': String(timestamp),
    'X-MC-Agent-Event-Id': delivery.eventId,
    'X-MC-Agent-Event-Type': delivery.type,
    'X-MC-Agent-Attempt': String(attempt),
  };
}

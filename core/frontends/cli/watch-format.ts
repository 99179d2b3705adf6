import type { EventFrame } from '../../api/frames.js';
import type { RecordedEvent } from '../../host/events/event-log.js';

export type WatchFormat = 'json' | 'text';

/**
 * JSON spelled as the predecessor's `watch` printed it (Python's json.dumps with
 * ensure_ascii=False): ", " between items and ": " after keys, so scripts that match its
 * lines keep matching.
 */
export function predecessorJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => predecessorJson(v === undefined ? null : v)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function');
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${predecessorJson(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Bookkeeping every record carries: left out of the text line, which names the event itself. */
const BOOKKEEPING = new Set(['type', 'target', 'seq', 'streamId', 'eventId', 'category', 'receivedAt', 'millis', 'event', 'modSeq', 'seq', 'text', 'sender', 'contextId', 'context_id', 'context']);

function clock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** One line for a person: time, seq, category, and what happened. */
export function textLine(event: RecordedEvent): string {
  // A daemon of one game calls it `default`; a name says which game on a daemon of several.
  const where = event.target !== undefined && event.target !== 'default' ? `${event.target} ` : '';
  const head = `${clock(event.receivedAt)} ${where}#${event.seq} ${event.category.padEnd(6)}`;
  const sender = typeof event.sender === 'string' ? `<${event.sender}> ` : '';
  const text = typeof event.text === 'string' ? event.text : '';
  const rest = Object.entries(event).filter(([k, v]) => !BOOKKEEPING.has(k) && v !== undefined);
  const extra = rest.length ? `${text ? '  ' : ''}${rest.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ')}` : '';
  const type = event.type !== event.category ? `[${event.type}] ` : '';
  return `${head} ${type}${sender}${text}${extra}`.trimEnd();
}

/** How `watch` prints one event: the record (as the predecessor did), the whole frame, or a text line. */
export function watchLine(event: RecordedEvent, how: { format: WatchFormat; frames?: boolean }): string {
  if (how.format === 'text') return textLine(event);
  if (how.frames) {
    const frame: EventFrame = { type: 'event', event: event.category, data: event };
    return JSON.stringify(frame);
  }
  return predecessorJson(event);
}

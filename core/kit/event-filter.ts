/**
 * Event filters shared by `events` and `wait_for`: which buffered events an agent asked for,
 * by category, type, sender and a text pattern. Pure functions over recorded events.
 */
import { z } from 'zod';
import { EVENT_CATEGORIES, type EventCategory, type RecordedEvent } from '../index.js';
import { sortedCounts } from './counts.js';

const MAX_PATTERN = 500;

/** A cursor as tools accept it: the `next` of a previous answer, a seq or an eventId. */
export const cursorInput = z.union([z.number().int().nonnegative(), z.string().min(1)], {
  error: 'since must be the `next` of a previous call: a seq number or an eventId "<streamId>:<seq>"',
});

const categoryName = z.enum(EVENT_CATEGORIES, { error: `category must be one of ${EVENT_CATEGORIES.join(', ')}` });
const typeName = z.string().trim().min(1, 'type must not be empty, e.g. "chat" or "sample_done"').max(100);

/** The zod fields of an event filter; spread them into a tool's input object. */
export const eventFilterFields = {
  category: z
    .union([categoryName, z.array(categoryName).min(1, 'category list must not be empty')], {
      error: `category must be one of ${EVENT_CATEGORIES.join(', ')}, or a list of them`,
    })
    .optional()
    .describe('event category, or a list: any of them matches'),
  type: z
    .union([typeName, z.array(typeName).min(1, 'type list must not be empty')], {
      error: 'type must be an event type such as "game", or a list of them',
    })
    .optional()
    .describe('exact event type (chat, game, mark, sample_done, lan, ...), or a list'),
  sender: z.string({ error: 'sender must be a player name or UUID' }).trim().min(1, 'sender must not be empty').max(100).optional().describe('who sent it: a player name (any case) or UUID'),
  text: z
    .string({ error: 'text must be a regular expression, e.g. "joined|left"' })
    .min(1, 'text must not be empty')
    .max(MAX_PATTERN, `text must be at most ${MAX_PATTERN} characters`)
    .refine((p) => compiles(p), 'text must be a valid JavaScript regular expression (escape ( ) [ ] . * + ? with a backslash)')
    .optional()
    .describe("case-insensitive regular expression tested against the event's text"),
};

export interface EventFilterInput {
  category?: EventCategory | EventCategory[] | undefined;
  type?: string | string[] | undefined;
  sender?: string | undefined;
  text?: string | undefined;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'i');
    return true;
  } catch {
    return false;
  }
}

const list = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

/** Whether any filter field is set. */
export function hasEventFilter(f: EventFilterInput): boolean {
  return f.category !== undefined || f.type !== undefined || f.sender !== undefined || f.text !== undefined;
}

/**
 * Who sent an event, as far as it says. Server chat carries the plain name (and the
 * context's uuid); client chat carries the stringified profile `GameProfile[id=<uuid>, name=<name>, …]`.
 */
export function eventSender(event: RecordedEvent): { name?: string; uuid?: string } {
  const out: { name?: string; uuid?: string } = {};
  const raw = event.sender;
  if (typeof raw === 'string' && raw) {
    const profile = /^GameProfile\[(.*)\]$/s.exec(raw);
    if (profile) {
      const id = /(?:^|,\s*)id=([0-9a-fA-F-]{32,36})/.exec(profile[1]!);
      const name = /(?:^|,\s*)name=([^,\]]*)/.exec(profile[1]!);
      if (id) out.uuid = id[1]!.toLowerCase();
      if (name?.[1]) out.name = name[1];
    } else {
      out.name = raw;
    }
  }
  const context = event.context;
  if (!out.uuid && context && typeof context === 'object' && typeof (context as { uuid?: unknown }).uuid === 'string') {
    out.uuid = (context as { uuid: string }).uuid.toLowerCase();
  }
  return out;
}

/** The human text of an event: `text`, else `message` (error events). */
export function eventText(event: RecordedEvent): string | undefined {
  if (typeof event.text === 'string') return event.text;
  if (typeof event.message === 'string') return event.message;
  return undefined;
}

const dashless = (uuid: string) => uuid.replace(/-/g, '').toLowerCase();

/**
 * A predicate for the filter. Every given field must match: `category` and `type` exactly
 * (any of a list), `sender` case-insensitively against the sender's name or UUID, `text` as a
 * case-insensitive regular expression against the event's text.
 */
export function eventMatcher(f: EventFilterInput): (event: RecordedEvent) => boolean {
  const categories = list(f.category);
  const types = list(f.type);
  const sender = f.sender?.toLowerCase();
  const text = f.text === undefined ? undefined : new RegExp(f.text, 'i');
  return (event) => {
    if (categories && !categories.includes(event.category)) return false;
    if (types && !types.includes(event.type)) return false;
    if (sender !== undefined) {
      const who = eventSender(event);
      const byName = who.name !== undefined && who.name.toLowerCase() === sender;
      const byUuid = who.uuid !== undefined && dashless(who.uuid) === dashless(sender);
      if (!byName && !byUuid) return false;
    }
    if (text) {
      const t = eventText(event);
      if (t === undefined || !text.test(t)) return false;
    }
    return true;
  };
}

/** Counts by category and by type (largest first), for summaries. */
export class EventCounter {
  total = 0;
  private readonly categories = new Map<string, number>();
  private readonly types = new Map<string, number>();

  add(event: RecordedEvent): void {
    this.total += 1;
    this.categories.set(event.category, (this.categories.get(event.category) ?? 0) + 1);
    this.types.set(event.type, (this.types.get(event.type) ?? 0) + 1);
  }

  byCategory(): Record<string, number> {
    return sortedCounts(this.categories);
  }

  byType(): Record<string, number> {
    return sortedCounts(this.types);
  }
}

/** One line per event, for "what happened meanwhile": seq, type, sender and a clipped text. */
export function compactEvent(event: RecordedEvent, maxText = 200): Record<string, unknown> {
  const out: Record<string, unknown> = { seq: event.seq, category: event.category, type: event.type };
  const who = eventSender(event);
  if (who.name) out.sender = who.name;
  const text = eventText(event);
  if (text !== undefined) out.text = text.length > maxText ? `${text.slice(0, maxText)}…` : text;
  if (event.contextId) out.contextId = event.contextId;
  return out;
}

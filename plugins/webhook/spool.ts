import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, renameSync } from 'node:fs';
import { McbridgeError } from 'mcbridge';
import type { Delivery } from './body.js';

/** What survives a restart: where the stream was read up to, and what each receiver still owed. */
export interface SpoolState {
  streamId?: string | undefined;
  lastSeq?: number | undefined;
  /** Per receiver key: undelivered bodies, oldest first (the one in flight included). */
  queues: Record<string, Delivery[]>;
  /** Written by a clean stop that had queued every event its stream held: nothing of that stream is missing. */
  closed?: boolean;
}

/** A spool that could be read only in part: the good records were kept, the file moved aside. */
export interface SpoolDamage {
  /** Lines that could not be read (the header included), or bytes past the bound. */
  skipped: number;
  /** Where the damaged file now is, or why it could not be moved. */
  movedTo?: string;
  moveError?: string;
}

/** A receiver's key in the spool: a hash of its URL, so the file never holds the URL itself. */
export function receiverKey(url: string, index: number): string {
  return `${index}:${createHash('sha256').update(url).digest('hex').slice(0, 16)}`;
}

const FORMAT = 2;
/** What a spool may hold beyond its bound before the rest is not read (a hostile or foreign file). */
const READ_SLACK = 1024 * 1024;

// A delivery never changes, so its JSON is built once however often the spool is written.
const rendered = new WeakMap<Delivery, { json: string; bytes: number }>();
function deliveryJson(d: Delivery): { json: string; bytes: number } {
  let r = rendered.get(d);
  if (!r) {
    const json = JSON.stringify({ eventId: d.eventId, type: d.type, body: d.body });
    rendered.set(d, (r = { json, bytes: Buffer.byteLength(json) }));
  }
  return r;
}

/** The bytes one record line takes (newline included). */
export function recordBytes(key: string, d: Delivery): number {
  return deliveryJson(d).bytes + key.length + 14;
}

function isDelivery(v: unknown): v is Delivery {
  const d = v as Delivery;
  return !!d && typeof d === 'object' && typeof d.eventId === 'string' && typeof d.type === 'string' && typeof d.body === 'string';
}

/**
 * The forwarder's state on disk: a header line (cursor, clean stop), then one line per owed
 * delivery, so a file cut short or damaged in the middle still gives back every line that reads.
 * It holds event bodies, never the secret (attempts are signed when sent) nor the URL. Written
 * through a StateFile (mcbridge/kit): atomically, off the event loop, failures reported.
 */
export class Spool {
  constructor(
    readonly file: string,
    readonly maxBytes: number,
  ) {}

  /** The file's content for `state`. */
  static render(state: SpoolState): string {
    const header = JSON.stringify({ spool: FORMAT, streamId: state.streamId, lastSeq: state.lastSeq, ...(state.closed ? { closed: true } : {}) });
    const lines = [header];
    for (const [key, queue] of Object.entries(state.queues)) {
      for (const d of queue) lines.push(`{"r":${JSON.stringify(key)},"d":${deliveryJson(d).json}}`);
    }
    return lines.join('\n') + '\n';
  }

  /**
   * What a previous run left. A missing file is a fresh start; an unreadable one refuses (its
   * permissions need fixing, nothing is lost yet); a damaged one gives back what reads, and is
   * moved aside so the next write does not destroy the evidence.
   */
  load(): SpoolState & { damage?: SpoolDamage } {
    const { text, cut } = this.read();
    if (text === undefined) return { queues: {} };
    const parsed = parseSpool(text);
    if (parsed.skipped === 0 && !cut) return parsed.state;
    const damage: SpoolDamage = { skipped: parsed.skipped + (cut ? 1 : 0) };
    const aside = `${this.file}.damaged-${Date.now()}`;
    try {
      renameSync(this.file, aside);
      damage.movedTo = aside;
    } catch (err) {
      damage.moveError = (err as NodeJS.ErrnoException).code ?? 'error';
    }
    return { ...parsed.state, damage };
  }

  /** At most the bound plus some slack; `cut` when the file was longer. */
  private read(): { text?: string; cut: boolean } {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { cut: false };
      throw new McbridgeError('invalid_params', `webhook spool ${this.file} cannot be read (${(err as NodeJS.ErrnoException).code}): check its permissions`);
    }
    try {
      const size = fstatSync(fd).size;
      const limit = this.maxBytes + READ_SLACK;
      const buffer = Buffer.alloc(Math.min(size, limit));
      let at = 0;
      while (at < buffer.length) {
        const n = readSync(fd, buffer, at, buffer.length - at, at);
        if (n === 0) break;
        at += n;
      }
      return { text: buffer.subarray(0, at).toString('utf8'), cut: size > limit };
    } catch (err) {
      throw new McbridgeError('invalid_params', `webhook spool ${this.file} cannot be read (${(err as NodeJS.ErrnoException).code}): check it is a file`);
    } finally {
      closeSync(fd);
    }
  }
}

/** Every record that reads; `skipped` counts the lines that did not (a damaged header loses only the cursor). */
export function parseSpool(text: string): { state: SpoolState; skipped: number } {
  const whole = tryJson(text);
  // The first format: one JSON object holding the queues.
  if (whole && typeof whole === 'object' && !Array.isArray(whole) && 'queues' in whole) {
    const old = whole as SpoolState;
    const queues: Record<string, Delivery[]> = {};
    let skipped = 0;
    if (old.queues && typeof old.queues === 'object') {
      for (const [key, list] of Object.entries(old.queues)) {
        const good = Array.isArray(list) ? list.filter(isDelivery) : [];
        skipped += (Array.isArray(list) ? list.length : 1) - good.length;
        if (good.length) queues[key] = good;
      }
    } else skipped += 1;
    return { state: { ...cursorOf(old), ...(old.closed === true ? { closed: true } : {}), queues }, skipped };
  }
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const state: SpoolState = { queues: {} };
  let skipped = 0;
  const header = tryJson(lines[0] ?? '') as Record<string, unknown> | undefined;
  const hasHeader = header?.spool === FORMAT;
  if (hasHeader) Object.assign(state, cursorOf(header), header.closed === true ? { closed: true } : {});
  lines.slice(hasHeader ? 1 : 0).forEach((line, i) => {
    const rec = tryJson(line) as { r?: unknown; d?: unknown } | undefined;
    if (!rec || typeof rec.r !== 'string' || rec.r.length > 64 || !isDelivery(rec.d)) {
      skipped += 1;
      return;
    }
    // The header lost but its line a record: the cursor is gone all the same.
    if (!hasHeader && i === 0) skipped += 1;
    (state.queues[rec.r] ??= []).push({ eventId: rec.d.eventId, type: rec.d.type, body: rec.d.body });
  });
  return { state, skipped };
}

function cursorOf(o: { streamId?: unknown; lastSeq?: unknown }): Pick<SpoolState, 'streamId' | 'lastSeq'> {
  const ok = typeof o.streamId === 'string' && o.streamId.length <= 200 && Number.isSafeInteger(o.lastSeq) && (o.lastSeq as number) >= 0;
  return ok ? { streamId: o.streamId as string, lastSeq: o.lastSeq as number } : {};
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

import type { EventLog, RecordedEvent } from '../host/events/event-log.js';

/** The scratch buffer grows to fit a batch up to this size and is reused. */
const MAX_SCRATCH_BYTES = 4 * 1024 * 1024;

function writeAll(target: Buffer, pieces: readonly string[]): number {
  let offset = 0;
  for (const piece of pieces) offset += target.write(piece, offset);
  return offset;
}

/**
 * Encodes pushed events as the local API's event frames,
 * `{"type":"event","event":"<category>","data":<event>}` one per line, straight into bytes.
 * The event's JSON comes from `EventLog.jsonPieces` (mostly the mod's own text), and the
 * pieces are copied into a reused scratch buffer rather than joined into one string
 * first: flattening thousands of spliced strings per read was the relay's largest cost.
 */
export class EventFrameEncoder {
  private scratch = Buffer.allocUnsafeSlow(64 * 1024);
  private readonly heads = new Map<string, string>();

  /** Where an event's JSON comes from: one log, or the log of the event's target on a daemon with several. */
  private readonly logOf: (event: RecordedEvent) => EventLog;

  constructor(log: EventLog | ((event: RecordedEvent) => EventLog)) {
    this.logOf = typeof log === 'function' ? log : () => log;
  }

  /** The frames of these events, in order, as one buffer of its own. */
  encode(events: readonly RecordedEvent[]): Buffer {
    const pieces: string[] = [];
    let units = 0;
    for (const event of events) {
      const head = this.head(event.category);
      pieces.push(head);
      units += head.length + 2;
      for (const piece of this.logOf(event).jsonPieces(event)) {
        pieces.push(piece);
        units += piece.length;
      }
      pieces.push('}\n');
    }
    // UTF-8 needs at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
    const needed = units * 3;
    if (needed > MAX_SCRATCH_BYTES) {
      // A huge batch (a 16 MiB event line, say) gets a buffer of its own, not kept after.
      const own = Buffer.allocUnsafeSlow(needed);
      return own.subarray(0, writeAll(own, pieces));
    }
    if (this.scratch.length < needed) this.scratch = Buffer.allocUnsafeSlow(needed);
    const length = writeAll(this.scratch, pieces);
    // A copy of the exact size: the socket may hold on to it while the scratch is reused.
    return Buffer.from(this.scratch.subarray(0, length));
  }

  private head(category: string): string {
    let head = this.heads.get(category);
    if (head === undefined) {
      head = `{"type":"event","event":${JSON.stringify(category)},"data":`;
      this.heads.set(category, head);
    }
    return head;
  }
}

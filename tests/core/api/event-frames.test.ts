import { describe, expect, it } from 'vitest';
import { EventFrameEncoder } from '../../../core/api/event-frames.js';
import { EventLog, type RecordedEvent } from '../../../core/host/events/event-log.js';

function expected(events: RecordedEvent[]): string {
  return events.map((e) => `${JSON.stringify({ type: 'event', event: e.category, data: e })}\n`).join('');
}

function recordLine(log: EventLog, line: string): RecordedEvent {
  return log.record(JSON.parse(line) as Record<string, unknown>, line);
}

describe('EventFrameEncoder', () => {
  it('writes the same bytes as stringifying each frame, across multi-byte text and reuse of its scratch', () => {
    const log = new EventLog({ capacity: 100, streamId: 'e'.repeat(32) });
    const encoder = new EventFrameEncoder(log);
    const first = [
      recordLine(log, '{"type":"chat","seq":3,"text":"😀 ünïcode ✓","context_id":"ctx-1","event":true}'),
      recordLine(log, '{"type":"game","text":"plain","event":true}'),
      log.record({ type: 'bridge_disconnected', text: 'no text of its own' }),
    ];
    const firstBytes = encoder.encode(first);
    expect(firstBytes.toString('utf8')).toBe(expected(first));
    // A second, shorter batch through the same scratch: nothing of the first may leak in.
    const second = [recordLine(log, '{"type":"mark","text":"m"}')];
    const bytes = encoder.encode(second);
    expect(bytes.toString('utf8')).toBe(expected(second));
    expect(bytes.length).toBe(Buffer.byteLength(expected(second)));
    // The first result is a copy of its own (a socket may still hold it), unchanged by the second.
    expect(firstBytes.toString('utf8')).toBe(expected(first));
  });

  it('encodes a batch past the kept scratch size in a buffer of its own', () => {
    const log = new EventLog({ capacity: 10, streamId: 'f'.repeat(32) });
    const encoder = new EventFrameEncoder(log);
    const big = recordLine(log, JSON.stringify({ type: 'game', text: 'é'.repeat(2_000_000) }));
    const small = recordLine(log, '{"type":"game","text":"after"}');
    expect(encoder.encode([big, small]).toString('utf8')).toBe(expected([big, small]));
    expect(encoder.encode([small]).toString('utf8')).toBe(expected([small]));
  });
});

import { ApiClient } from '../api/client.js';
import type { EventFrame, GapFrame } from '../api/frames.js';
import { McbridgeError } from '../errors.js';
import type { EventPage, RecordedEvent } from '../events/event-log.js';
import type { GlobalOptions } from './options.js';

function print(event: RecordedEvent): void {
  const frame: EventFrame = { type: 'event', event: event.category, data: event };
  process.stdout.write(JSON.stringify(frame) + '\n');
}

/**
 * `mcbridge watch`: one event frame per line until interrupted. With `--since`, the
 * buffered events come first; pushes that race the replay are de-duplicated by seq, and
 * a `gap` (this watcher fell behind) is filled from the buffer, so nothing is printed
 * twice and nothing still buffered is missed.
 */
export async function watchCommand(opts: { events: string[]; since?: number }, global: GlobalOptions): Promise<void> {
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken });
  const categories = opts.events.includes('*') ? null : new Set(opts.events);
  let lastSeq = -1;
  let replaying = opts.since !== undefined;
  const held: RecordedEvent[] = [];

  const emit = (event: RecordedEvent) => {
    if (event.seq <= lastSeq) return;
    lastSeq = event.seq;
    print(event);
  };
  const replay = async (since: number, until = Infinity) => {
    let cursor = since;
    for (;;) {
      const page = (await client.call('events', { since: cursor, limit: 1000 })) as EventPage;
      if (page.streamReset) throw new McbridgeError('unavailable', 'the daemon restarted (new event stream); rerun watch');
      for (const event of page.events) {
        if (event.seq > until) return;
        if (!categories || categories.has(event.category)) emit(event);
      }
      if (!page.truncated) return;
      cursor = page.next;
    }
  };

  client.on('event', (frame: EventFrame) => {
    const event = frame.data as RecordedEvent;
    if (frame.event === 'surface') return;
    if (replaying) held.push(event);
    else emit(event);
  });
  client.on('gap', (gap: GapFrame) => {
    replaying = true;
    void replay(gap.fromSeq - 1, gap.toSeq).then(() => {
      replaying = false;
      for (const e of held.splice(0)) emit(e);
    });
  });

  const closed = new Promise<void>((_resolve, reject) => {
    client.once('close', () => reject(new McbridgeError('unavailable', 'the daemon closed the connection', { reason: 'daemon_unreachable' })));
  });
  const interrupted = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });

  await client.subscribe(opts.events);
  if (opts.since !== undefined) {
    await replay(opts.since);
    replaying = false;
    for (const e of held.splice(0)) emit(e);
  }
  try {
    await Promise.race([closed, interrupted]);
  } finally {
    client.close();
  }
}

import { ApiClient } from '../../api/client.js';
import type { EventFrame, GapFrame } from '../../api/frames.js';
import { EXIT, UsageError } from './exit.js';
import { watchLine, type WatchFormat } from './watch-format.js';
import { McbridgeError, toMcbridgeError } from '../../host/errors.js';
import type { EventPage, RecordedEvent } from '../../host/events/event-log.js';
import type { GlobalOptions } from './options.js';
import { ALL_TARGETS } from '../../api/targets.js';
import { targetSelection } from './target.js';

/**
 * Follow a subscription on `client` until `until` settles or the connection closes, handing
 * each event to `emitEvent` once, in seq order per target. With `since`, the buffered events
 * come first (each target's from its own seq); pushes that race a replay are held and
 * de-duplicated by target and seq, and a `gap` (this watcher fell behind) is filled from that
 * target's buffer. Replays run one after another, and one that fails (the daemon restarted, the
 * connection dropped) ends the watch with its error. `target`: one name, a list, or `*`; none
 * means the daemon's default.
 */
export async function followEvents(
  client: ApiClient,
  opts: { events: string[]; since?: number; limit?: number; target?: string | string[]; onWarning?: (warning: string) => void },
  emitEvent: (event: RecordedEvent) => void,
  until: Promise<void>,
): Promise<void> {
  const categories = opts.events.includes('*') ? null : new Set(opts.events);
  /** The last seq emitted per target ('' for a daemon whose events name none). */
  const lastSeq = new Map<string, number>();
  let replaying = false;
  let queuedReplays = 0;
  let chain: Promise<void> = Promise.resolve();
  const held: RecordedEvent[] = [];

  const emit = (event: RecordedEvent) => {
    const key = event.target ?? '';
    if (event.seq <= (lastSeq.get(key) ?? -1)) return;
    lastSeq.set(key, event.seq);
    emitEvent(event);
  };
  /** One target's buffered events (`target` undefined: the daemon's default); `newest`: only the last this many (the predecessor's `--limit`). */
  const replay = async (target: string | undefined, since: number, upTo: number, newest?: number) => {
    let cursor = since;
    const found: RecordedEvent[] = [];
    for (;;) {
      const page = (await client.call('events', { since: cursor, limit: 1000, ...(target !== undefined ? { target } : {}) })) as EventPage;
      if (page.streamReset) throw new McbridgeError('unavailable', `the daemon restarted (new event stream${target !== undefined ? ` on ${target}` : ''}); rerun watch`);
      const inRange = page.events.filter((event) => event.seq <= upTo);
      found.push(...inRange.filter((event) => !categories || categories.has(event.category)));
      if (newest === undefined) for (const event of found.splice(0)) emit(event);
      if (!page.truncated || inRange.length < page.events.length) break;
      cursor = page.next;
    }
    if (newest !== undefined) for (const event of found.slice(-newest)) emit(event);
  };
  /** Replay a range after those already queued; pushes are held until the last one is done. */
  const catchUp = (targets: Array<string | undefined>, since: number, upTo = Infinity, newest?: number): Promise<void> => {
    queuedReplays += 1;
    replaying = true;
    const run = chain
      .then(async () => {
        for (const target of targets) await replay(target, since, upTo, newest);
      })
      .then(() => {
        queuedReplays -= 1;
        if (queuedReplays > 0) return;
        replaying = false;
        for (const e of held.splice(0)) emit(e);
      });
    chain = run.catch(() => undefined);
    return run;
  };

  let fail!: (err: unknown) => void;
  const failed = new Promise<void>((_resolve, reject) => (fail = reject));
  const closed = new Promise<void>((_resolve, reject) => {
    client.once('close', () => reject(new McbridgeError('unavailable', 'the daemon closed the connection', { reason: 'daemon_unreachable' })));
  });

  // Raced below; marked handled so one that loses the race (or is never raced) cannot crash the process.
  failed.catch(() => undefined);
  closed.catch(() => undefined);

  client.on('event', (frame: EventFrame) => {
    const event = frame.data as RecordedEvent;
    if (frame.event === 'surface') return;
    if (replaying) held.push(event);
    else emit(event);
  });
  client.on('gap', (gap: GapFrame) => {
    // A daemon of several targets names the gap's; one of one target names none.
    catchUp([gap.target ?? singleSelected(opts.target)], gap.fromSeq - 1, gap.toSeq).catch((err: unknown) => fail(toMcbridgeError(err)));
  });

  if (opts.since !== undefined) replaying = true; // hold pushes from the moment we subscribe
  // A mistyped category is ignored by the daemon, which says so: pass that on.
  const answer = (await client.call('subscribe', { events: opts.events, ...(opts.target !== undefined ? { target: opts.target } : {}) })) as { warning?: unknown; targets?: Record<string, unknown> };
  if (typeof answer.warning === 'string') opts.onWarning?.(answer.warning);
  if (opts.since !== undefined) await Promise.race([catchUp(replayTargets(opts.target, answer.targets), opts.since, Infinity, opts.limit), failed, closed]);
  await Promise.race([closed, until, failed]);
}

/** The one target named, when one is; undefined (the daemon's default) otherwise. */
function singleSelected(target: string | string[] | undefined): string | undefined {
  return typeof target === 'string' && target !== ALL_TARGETS ? target : undefined;
}

/**
 * Whose buffers a `since` replays: those named, or for `*` those the subscription covers (a daemon
 * of one target names none: its default); none named, the daemon's default.
 */
function replayTargets(target: string | string[] | undefined, subscribed: Record<string, unknown> | undefined): Array<string | undefined> {
  if (Array.isArray(target)) return target;
  if (target !== ALL_TARGETS) return [target];
  return subscribed ? Object.keys(subscribed) : [undefined];
}

export interface WatchOptions {
  events: string[];
  since?: number;
  /** With --since: replay only the newest N buffered events (as the predecessor's --limit did); alone, nothing to cap. */
  limit?: number;
  /** Whole `{type, event, data}` frames instead of the records. */
  frames?: boolean;
  format: WatchFormat;
}

/**
 * `mcbridge watch`: one event per line until interrupted (see `followEvents`): the recorded event
 * spelled as the predecessor printed it, the whole frame with --frames, or a line for a person
 * with --format text.
 */
export async function watchCommand(opts: WatchOptions, global: GlobalOptions): Promise<void> {
  if (opts.frames && opts.format === 'text') throw new UsageError('--frames prints JSON frames; leave out --format text');
  // The predecessor accepted --limit alone (it has nothing to cap then), and so do its scripts.
  if (opts.limit !== undefined && opts.since === undefined) {
    process.stderr.write('mcbridge watch: --limit caps the replay that --since asks for; without --since only new events are printed\n');
  }
  const client = await ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'cli' });
  const interrupted = new Promise<void>((resolve) => {
    process.once('SIGINT', () => {
      process.exitCode = EXIT.interrupted; // Ctrl-C: 130, as documented and as the predecessor's CLI exited
      resolve();
    });
    process.once('SIGTERM', () => resolve());
  });
  try {
    const onWarning = (warning: string) => process.stderr.write(`mcbridge watch: ${warning}\n`);
    const target = targetSelection(global.target);
    await followEvents(client, { ...opts, onWarning, ...(target !== undefined ? { target } : {}) }, (event) => process.stdout.write(watchLine(event, opts) + '\n'), interrupted);
  } finally {
    client.close();
  }
}

import { ApiClient } from '../../api/client.js';
import { Forwarder, resolveReceivers, Spool } from '../../daemon/builtins.js';
import { McbridgeError } from '../../host/errors.js';
import type { RecordedEvent } from '../../host/events/event-log.js';
import { createLogger, type Logger } from '../../util/log.js';
import type { GlobalOptions } from './options.js';
import { followEvents } from './watch.js';

export interface ForwardRun {
  forwarder: Forwarder;
  connect: () => Promise<ApiClient>;
  log: Logger;
  /** Settles when the forwarder should stop. */
  until: Promise<void>;
  reconnectDelayMs: number;
  /** Where a previous run stopped reading (from its spool): carry on from there, not from now. */
  resume?: { streamId?: string | undefined; lastSeq?: number | undefined };
  /** Called each time the subscription is in place (tests wait on it). */
  onConnected?: () => void;
}

function stoppable(ms: number, until: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void until.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Forward the daemon's events until `until` settles: subscribe, hand each event to the
 * forwarder once and in order, and after the connection drops reconnect and carry on from the
 * last seq seen (the daemon's buffer fills the hole). A daemon that restarted has a new
 * stream: what the old one still held is lost, counted as a gap.
 */
export async function runForwarder(run: ForwardRun): Promise<void> {
  const { forwarder, log } = run;
  const categories = forwarder.categories() ?? ['*'];
  let stopped = false;
  void run.until.then(() => (stopped = true));
  let lastSeq: number | undefined = run.resume?.streamId !== undefined ? run.resume.lastSeq : undefined;
  let streamId: string | undefined = run.resume?.streamId;
  forwarder.start();
  while (!stopped) {
    let client: ApiClient | undefined;
    try {
      client = await run.connect();
      const status = (await client.call('status')) as { events?: { streamId?: string; lastSeq?: number } };
      const stream = status.events?.streamId;
      if (streamId === undefined) {
        // First connection: forward from now. Pushes racing the subscribe are replayed from here.
        lastSeq = status.events?.lastSeq ?? 0;
      } else if (stream !== streamId) {
        // The daemon restarted (also while a spooled forwarder was down): what the old run recorded
        // after lastSeq is gone; the new run's buffer is replayed.
        forwarder.handle({ kind: 'gap', reason: 'stream-reset', dropped: 0, from: (lastSeq ?? 0) + 1, to: lastSeq ?? 0 });
        lastSeq = 0;
      }
      streamId = stream;
      const emit = (event: RecordedEvent) => {
        lastSeq = event.seq;
        forwarder.handle({ kind: 'event', event });
      };
      const following = followEvents(client, { events: categories, ...(lastSeq !== undefined ? { since: lastSeq } : {}) }, emit, run.until);
      // followEvents subscribes before its first await: from here on nothing recorded is missed.
      forwarder.setConnected(true);
      log.info({ categories }, 'webhook forwarder connected to the daemon');
      run.onConnected?.();
      await following;
    } catch (err) {
      if (!stopped) log.warn({ err: (err as Error).message }, `webhook forwarder lost the daemon (${(err as Error).message}); reconnecting in ${run.reconnectDelayMs / 1000} s`);
    } finally {
      client?.close();
      forwarder.setConnected(false);
    }
    if (!stopped) await stoppable(run.reconnectDelayMs, run.until);
  }
  await forwarder.stop();
}

/** `mcbridge forward`: the predecessor's standalone forwarder, a client of a running daemon. */
export async function forwardCommand(
  opts: { config?: string; status?: boolean; reconnectDelay: number; spool?: string; spoolMaxBytes: number },
  global: GlobalOptions,
): Promise<void> {
  const resolved = resolveReceivers({}, process.env, opts.config);
  // Off by default is an error here: the user asked to forward.
  if (resolved.off) throw new McbridgeError('invalid_params', resolved.off);
  const log = createLogger({ level: global.logLevel, format: global.logFormat, name: 'mcbridge-forward' });
  const forwarder = new Forwarder(resolved, log);
  const connect = () => ApiClient.connect({ host: global.apiHost, port: global.apiPort, token: global.apiToken, frontend: 'forward' });
  if (opts.status) {
    // What this forwarder would do, and whether the daemon answers; nothing is delivered.
    try {
      (await connect()).close();
      forwarder.setConnected(true);
    } catch {
      forwarder.setConnected(false);
    }
    process.stdout.write(JSON.stringify(forwarder.status(), null, 2) + '\n');
    return;
  }
  const until = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  const resume = opts.spool ? forwarder.useSpool(new Spool(opts.spool, opts.spoolMaxBytes)) : undefined;
  await runForwarder({ forwarder, connect, log, until, reconnectDelayMs: opts.reconnectDelay * 1000, ...(resume ? { resume } : {}) });
  process.stdout.write(JSON.stringify(forwarder.status()) + '\n');
}

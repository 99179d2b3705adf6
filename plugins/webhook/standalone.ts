/**
 * `mcbridge forward`: the predecessor's standalone forwarder, a client of a running daemon. The
 * CLI registers the command and hands in the transport (connect, follow, a logger); everything
 * the forwarder decides is here, beside the engine it shares with the in-daemon service.
 */
import { McbridgeError, type RecordedEvent } from 'mcbridge';
import { DEFAULT_SPOOL_MAX_BYTES, resolveReceivers, type ForwardFlags } from './config.js';
import { Forwarder } from './forwarder.js';
import type { LogLike } from './receiver.js';
import { Spool } from './spool.js';

/** One connection to the daemon: what the forwarder needs of an API client. */
export interface DaemonSession {
  call(method: string, params?: Record<string, unknown>): Promise<unknown>;
  close(): void;
}

/**
 * Subscribe on `session` to `events` (replaying after `since` when given) and hand each event to
 * `emit` once and in order, until `until` settles or the connection ends. It must subscribe
 * before its first await, so nothing recorded from then on is missed.
 */
export type FollowDaemon<S extends DaemonSession> = (session: S, opts: { events: string[]; since?: number }, emit: (event: RecordedEvent) => void, until: Promise<void>) => Promise<void>;

export interface ForwardRun<S extends DaemonSession = DaemonSession> {
  forwarder: Forwarder;
  connect: () => Promise<S>;
  follow: FollowDaemon<S>;
  log: LogLike;
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
export async function runForwarder<S extends DaemonSession>(run: ForwardRun<S>): Promise<void> {
  const { forwarder, log } = run;
  const categories = forwarder.categories() ?? ['*'];
  let stopped = false;
  void run.until.then(() => (stopped = true));
  let lastSeq: number | undefined = run.resume?.streamId !== undefined ? run.resume.lastSeq : undefined;
  let streamId: string | undefined = run.resume?.streamId;
  forwarder.start();
  while (!stopped) {
    let client: S | undefined;
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
      const following = run.follow(client, { events: categories, ...(lastSeq !== undefined ? { since: lastSeq } : {}) }, emit, run.until);
      // follow subscribes before its first await: from here on nothing recorded is missed.
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

/** The command line of `mcbridge forward`, as commander read it (numbers still text: checked here, by flag). */
export interface ForwardOptions extends ForwardFlags {
  config?: string;
  status?: boolean;
  /** Seconds, the predecessor's `--reconnect-delay` (default 2). */
  reconnectDelay?: string | number;
  spool?: string;
  spoolMaxBytes?: string | number;
}

/** What the CLI hands in: the daemon transport and where to report. */
export interface ForwardTransport<S extends DaemonSession> {
  connect: () => Promise<S>;
  follow: FollowDaemon<S>;
  log: LogLike;
  env: NodeJS.ProcessEnv;
  print: (text: string) => void;
}

function flagNumber(value: string | number | undefined, name: string, fallback: number, check: (n: number) => boolean, must: string): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'number' ? value : value.trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(n) || !check(n)) throw new McbridgeError('invalid_params', `${name} must be ${must}; got ${JSON.stringify(String(value)).slice(0, 40)}`);
  return n;
}

/** `mcbridge forward`: resolve the receivers (flags over environment over file over defaults), then forward until SIGINT/SIGTERM. */
export async function forward<S extends DaemonSession>(opts: ForwardOptions, io: ForwardTransport<S>, until: Promise<void>): Promise<void> {
  const reconnectDelay = flagNumber(opts.reconnectDelay, '--reconnect-delay', 2, (n) => n >= 0 && n <= 3600, 'a number of seconds from 0 to 3600');
  const spoolMaxBytes = flagNumber(opts.spoolMaxBytes, '--spool-max-bytes', DEFAULT_SPOOL_MAX_BYTES, (n) => Number.isInteger(n) && n >= 4096, 'a whole number of bytes >= 4096');
  const { events, queue, maxAttempts, backoff, maxBackoff, deliveryTimeout } = opts;
  const resolved = resolveReceivers({}, io.env, opts.config, { events, queue, maxAttempts, backoff, maxBackoff, deliveryTimeout });
  // Off by default is an error here: the user asked to forward.
  if (resolved.off) throw new McbridgeError('invalid_params', resolved.off);
  const forwarder = new Forwarder(resolved, io.log);
  if (opts.status) {
    // What this forwarder would do, and whether the daemon answers; nothing is delivered.
    try {
      (await io.connect()).close();
      forwarder.setConnected(true);
    } catch {
      forwarder.setConnected(false);
    }
    io.print(JSON.stringify(forwarder.status(), null, 2) + '\n');
    return;
  }
  const resume = opts.spool ? forwarder.useSpool(new Spool(opts.spool, spoolMaxBytes)) : undefined;
  await runForwarder({ forwarder, connect: io.connect, follow: io.follow, log: io.log, until, reconnectDelayMs: reconnectDelay * 1000, ...(resume ? { resume } : {}) });
  io.print(JSON.stringify(forwarder.status()) + '\n');
}

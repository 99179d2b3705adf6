import { buildDelivery, attemptHeaders, type Delivery } from './body.js';
import { post, receiverAgent, type Outcome } from './post.js';
import { redactUrl, sanitizer } from './redact.js';

/** One receiver's settings, resolved (URL and secret already read from the environment or a file). */
export interface ReceiverConfig {
  url: string;
  secret: string;
  /** Categories forwarded; `['*']` for all. */
  events: string[];
  queueSize: number;
  /** First try included. */
  maxAttempts: number;
  /** Seconds. */
  backoff: number;
  maxBackoff: number;
  timeout: number;
}

/** The part of a pino logger the engine uses. */
export interface LogLike {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Delay in seconds after attempt `n` (1-based): backoff × 2^(n−1) × uniform(0.8, 1.25), capped, floor 0. */
export function retryDelay(n: number, backoff: number, maxBackoff: number, random: () => number = Math.random): number {
  const jitter = 0.8 + random() * 0.45;
  return Math.max(0, Math.min(maxBackoff, backoff * 2 ** (n - 1) * jitter));
}

export interface ReceiverStatus {
  running: boolean;
  connected: boolean;
  url: string;
  events: string[];
  queueSize: number;
  /** The retry policy: attempts (the first included), backoff and its cap, and one attempt's bound, in seconds. */
  maxAttempts: number;
  backoff: number;
  maxBackoff: number;
  timeout: number;
  received: number;
  queued: number;
  delivered: number;
  retries: number;
  failed: number;
  dropped: number;
  gaps: number;
  lastEventId: string | null;
  lastDeliveredAt: number | null;
  lastError: string | null;
  startedAt: number | null;
}

/**
 * Delivers events to one URL, in order, one request at a time: a bounded queue in front of
 * one worker. Nothing here waits on the caller: `offer` only queues, so a slow or dead
 * receiver costs its own queue and never the daemon or another receiver.
 */
export class WebhookReceiver {
  readonly shownUrl: string;
  private readonly clean: (text: string) => string;
  private readonly target: URL;
  private readonly agent: ReturnType<typeof receiverAgent>;
  private readonly accepts: (category: string) => boolean;
  private readonly queue: Delivery[] = [];
  private wake: (() => void) | undefined;
  private readonly stopper = new AbortController();
  private worker: Promise<void> | undefined;
  private readonly counts = { received: 0, delivered: 0, retries: 0, failed: 0, dropped: 0, gaps: 0 };
  private lastEventId: string | null = null;
  private lastDeliveredAt: number | null = null;
  private lastError: string | null = null;
  private startedAt: number | null = null;
  private readonly settledWaiters: Array<{ n: number; resolve: () => void }> = [];
  private inFlight: Delivery | undefined;
  connected = false;
  /** Called whenever what this receiver owes changes (a spool writes it down). */
  onChange: (() => void) | undefined;

  constructor(
    readonly config: ReceiverConfig,
    private readonly log: LogLike,
    private readonly random: () => number = Math.random,
  ) {
    this.shownUrl = redactUrl(config.url);
    this.clean = sanitizer(config.url, config.secret);
    this.target = new URL(config.url);
    this.agent = receiverAgent(this.target);
    const all = config.events.includes('*');
    const set = new Set(config.events);
    this.accepts = (category) => all || set.has(category);
  }

  /** Whether this receiver forwards events of `category`. */
  wants(category: string): boolean {
    return this.accepts(category);
  }

  start(): void {
    if (this.worker) return;
    this.startedAt = Date.now();
    this.info({ url: this.shownUrl, events: this.config.events }, `webhook forwarding to ${this.shownUrl} (events: ${this.config.events.join(', ')})`);
    this.worker = this.run();
  }

  /** Queue one event (if its category is wanted); when the queue is full the oldest queued one is dropped. */
  offer(event: Record<string, unknown>): void {
    if (!this.accepts(String(event.category))) return;
    this.counts.received += 1;
    let dropped = 0;
    while (this.queue.length >= this.config.queueSize) {
      this.queue.shift();
      dropped += 1;
    }
    if (dropped > 0) {
      this.counts.dropped += dropped;
      this.warn({ dropped, total: this.counts.dropped }, `webhook queue full; dropped ${dropped} oldest event(s)`);
    }
    this.queue.push(buildDelivery(event));
    this.onChange?.();
    this.wake?.();
  }

  /** What is not delivered yet, oldest first: the event in flight, then the queue. */
  pending(): Delivery[] {
    return this.inFlight ? [this.inFlight, ...this.queue] : [...this.queue];
  }

  /** Put back what a previous run still owed, before this run's events. */
  restore(deliveries: Delivery[]): void {
    this.queue.unshift(...deliveries.slice(-this.config.queueSize));
    this.wake?.();
  }

  /** Drop the oldest queued event (the spool is over its byte bound): the one dropped, if any was queued. */
  dropOldest(why: string): Delivery | undefined {
    const dropped = this.queue.shift();
    if (!dropped) return undefined;
    this.counts.dropped += 1;
    this.warn({ dropped: 1, total: this.counts.dropped }, `webhook ${why}; dropped 1 oldest event(s)`);
    return dropped;
  }

  /** Events the source lost before this receiver saw them. */
  noteGap(dropped: number, reason: string): void {
    this.counts.gaps += 1;
    const what = dropped > 0 ? `${dropped} event(s) were lost` : 'events may have been lost';
    this.warn({ dropped, reason }, `webhook: ${what} before they could be queued (${reason})`);
  }

  /** Stop now: an attempt in flight is cut off; queued events are not delivered. */
  async stop(): Promise<void> {
    this.stopper.abort();
    this.wake?.();
    await this.worker;
    this.agent.destroy();
    this.info(
      { ...this.counts, queued: this.queue.length },
      `webhook forwarding to ${this.shownUrl} stopped: delivered ${this.counts.delivered}, failed ${this.counts.failed}, dropped ${this.counts.dropped}`,
    );
  }

  /** Resolves once `n` events in all have been delivered or given up on: for callers that wait for the queue to drain. */
  settled(n: number): Promise<void> {
    if (this.counts.delivered + this.counts.failed >= n) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push({ n, resolve }));
  }

  status(): ReceiverStatus {
    return {
      running: this.worker !== undefined && !this.stopper.signal.aborted,
      connected: this.connected,
      url: this.shownUrl,
      events: [...this.config.events],
      queueSize: this.config.queueSize,
      maxAttempts: this.config.maxAttempts,
      backoff: this.config.backoff,
      maxBackoff: this.config.maxBackoff,
      timeout: this.config.timeout,
      ...this.counts,
      queued: this.queue.length,
      lastEventId: this.lastEventId,
      lastDeliveredAt: this.lastDeliveredAt,
      lastError: this.lastError,
      startedAt: this.startedAt,
    };
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    while (!signal.aborted) {
      const next = this.queue.shift();
      if (!next) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      this.inFlight = next;
      try {
        await this.deliver(next, signal);
        // Stopped mid-delivery: it stays owed (in the spool) rather than counted either way.
        if (!signal.aborted) this.inFlight = undefined;
      } catch (err) {
        this.inFlight = undefined;
        // A bug in one delivery must not end the worker: count it and go on.
        this.counts.failed += 1;
        this.lastError = this.clean(String((err as Error)?.message ?? err));
        this.error({ eventId: next.eventId, err: this.lastError }, `webhook delivery of ${next.eventId} failed: ${this.lastError}`);
      }
      if (!signal.aborted) this.onChange?.();
      const done = this.counts.delivered + this.counts.failed;
      for (const w of this.settledWaiters.filter((x) => done >= x.n)) {
        this.settledWaiters.splice(this.settledWaiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  private async deliver(d: Delivery, signal: AbortSignal): Promise<void> {
    const { maxAttempts, backoff, maxBackoff, timeout, secret } = this.config;
    for (let attempt = 1; ; attempt += 1) {
      const outcome: Outcome = await post(this.target, d.body, attemptHeaders(d, secret, attempt), timeout * 1000, signal, this.agent);
      if (signal.aborted) return;
      this.lastEventId = d.eventId;
      if (outcome.kind === 'delivered') {
        this.counts.delivered += 1;
        this.lastDeliveredAt = Date.now();
        this.info({ eventId: d.eventId, status: outcome.status }, `webhook delivered ${d.eventId} (HTTP ${outcome.status})`);
        return;
      }
      const error = this.clean(outcome.error);
      this.lastError = error;
      if (outcome.kind === 'permanent') {
        this.counts.failed += 1;
        this.warn({ eventId: d.eventId, status: outcome.status }, `webhook receiver rejected ${d.eventId} permanently: ${error}; not retrying`);
        return;
      }
      if (attempt >= maxAttempts) {
        this.counts.failed += 1;
        this.error({ eventId: d.eventId, attempts: attempt }, `webhook gave up on ${d.eventId} after ${attempt} attempt(s): ${error}`);
        return;
      }
      const delay = retryDelay(attempt, backoff, maxBackoff, this.random);
      this.counts.retries += 1;
      this.warn({ eventId: d.eventId, delay, attempt }, `webhook retry ${d.eventId} in ${delay.toFixed(2)} s after ${error} (attempt ${attempt}/${maxAttempts})`);
      await pause(delay * 1000, signal);
      if (signal.aborted) return;
    }
  }

  // Every line goes through the sanitiser, whatever it quotes.
  private info(obj: object, msg: string): void {
    this.log.info(obj, this.clean(msg));
  }

  private warn(obj: object, msg: string): void {
    this.log.warn(obj, this.clean(msg));
  }

  private error(obj: object, msg: string): void {
    this.log.error(obj, this.clean(msg));
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

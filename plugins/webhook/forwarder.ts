import type { FollowItem } from 'mcbridge';
import { WebhookReceiver, type LogLike, type ReceiverStatus } from './receiver.js';
import type { Resolved } from './config.js';

export interface ForwarderStatus {
  enabled: boolean;
  /** Why nothing is forwarded, when nothing is. */
  off?: string;
  connected: boolean;
  receivers: ReceiverStatus[];
}

/**
 * Fans one stream of follow items out to every receiver. Each receiver filters and queues on
 * its own, and `handle` never waits for a delivery, so a receiver that hangs only fills its
 * own queue: the others, and whoever feeds the stream, carry on.
 */
export class Forwarder {
  readonly receivers: WebhookReceiver[];
  private connected = false;

  constructor(private readonly resolved: Resolved, log: LogLike) {
    this.receivers = resolved.receivers.map((config) => new WebhookReceiver(config, log));
  }

  /** The categories any receiver wants, or undefined when one wants them all. */
  categories(): string[] | undefined {
    const all = this.receivers.flatMap((r) => r.config.events);
    return all.includes('*') ? undefined : [...new Set(all)];
  }

  start(): void {
    for (const r of this.receivers) r.start();
  }

  setConnected(connected: boolean): void {
    this.connected = connected;
    for (const r of this.receivers) r.connected = connected;
  }

  handle(item: FollowItem): void {
    if (item.kind === 'gap') {
      for (const r of this.receivers) r.noteGap(item.dropped, item.reason);
      return;
    }
    for (const r of this.receivers) r.offer(item.event);
  }

  async stop(): Promise<void> {
    this.setConnected(false);
    await Promise.all(this.receivers.map((r) => r.stop()));
  }

  status(): ForwarderStatus {
    return {
      enabled: this.receivers.length > 0,
      ...(this.resolved.off ? { off: this.resolved.off } : {}),
      connected: this.connected,
      receivers: this.receivers.map((r) => r.status()),
    };
  }
}

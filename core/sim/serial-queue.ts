/**
 * The "server thread": tasks run one at a time in submission order. A task may carry a delay
 * (the `replyDelayMs` knob); later tasks wait behind it, so delayed replies stay FIFO while
 * reader-thread replies overtake them. Undelayed tasks on an idle queue run synchronously.
 */
interface QueuedTask {
  delayMs: number;
  waited: boolean;
  run: () => void;
}

export class SerialQueue {
  private queue: QueuedTask[] = [];
  private busy = false;
  private timer: NodeJS.Timeout | null = null;

  submit(delayMs: number, run: () => void): void {
    this.queue.push({ delayMs, waited: false, run });
    if (!this.busy) this.pump();
  }

  private pump(): void {
    this.busy = true;
    while (this.queue.length > 0) {
      const next = this.queue[0];
      if (next.delayMs > 0 && !next.waited) {
        next.waited = true;
        this.timer = setTimeout(() => {
          this.timer = null;
          this.pump();
        }, next.delayMs);
        return;
      }
      this.queue.shift();
      next.run();
    }
    this.busy = false;
  }

  /** Server stop: queued work is dropped unanswered. */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
    this.busy = false;
  }
}

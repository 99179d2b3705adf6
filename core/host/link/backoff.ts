/**
 * The pause between connection attempts: bounded exponential backoff with jitter, so a daemon
 * that waits for a game to start retries forever without hammering it.
 */
export class Backoff {
  private attempt = 0;
  private skipNext = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {}

  /** A connection got through: the next pause starts short again. */
  reset(): void {
    this.attempt = 0;
  }

  /** The next attempt should follow at once (a deliberate reset, not a failure). */
  skipNextPause(): void {
    this.skipNext = true;
  }

  /** Ends a pause in progress (stop). */
  interrupt(): void {
    this.wake?.();
  }

  pause(): Promise<void> {
    let delay = 0;
    if (this.skipNext) {
      this.skipNext = false;
    } else {
      const base = Math.min(this.maxMs, this.minMs * 2 ** this.attempt);
      delay = Math.round(base * (0.8 + Math.random() * 0.4));
      this.attempt += 1;
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, delay);
      this.wake = done;
    });
  }
}

/**
 * The freeze watchdog: if a restore is still running after its deadline, unfreeze the game so a
 * stuck restore cannot leave it frozen. Its unfreeze is an ordinary request on the link, queued
 * behind whatever is in flight (replies carry no ids, so nothing in flight is ever cut short or
 * answered out of turn); stopping it waits for that request instead of abandoning it.
 */
export class FreezeWatchdog {
  fired = false;
  private timer: NodeJS.Timeout | undefined;
  private pending: Promise<void> | null = null;

  /** `seconds` <= 0 disables it. */
  start(seconds: number, onFire: () => Promise<void>): void {
    if (!(seconds > 0)) return;
    this.timer = setTimeout(
      () => {
        this.fired = true;
        this.pending = onFire();
      },
      Math.min(seconds * 1000, 2 ** 31 - 1),
    );
  }

  /** No more firing; waits for an unfreeze already sent. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.pending?.catch(() => undefined);
  }
}

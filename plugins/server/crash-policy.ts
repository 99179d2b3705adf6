/**
 * When a crashed server is started again: bounded exponential backoff, and a give-up after too
 * many crashes in a window (a crash loop is reported, not run forever). Pure: times come in.
 */
export interface CrashPolicyOptions {
  maxCrashes: number;
  windowMs: number;
  minDelayMs: number;
  maxDelayMs: number;
}

export const CRASH_POLICY_DEFAULTS: CrashPolicyOptions = { maxCrashes: 5, windowMs: 60_000, minDelayMs: 1_000, maxDelayMs: 30_000 };

export type CrashDecision = { restartInMs: number } | { giveUp: string };

export class CrashPolicy {
  private readonly options: CrashPolicyOptions;
  private crashes: number[] = [];

  constructor(options: Partial<CrashPolicyOptions> = {}) {
    this.options = { ...CRASH_POLICY_DEFAULTS, ...options };
  }

  /** A crash at `atMs`: how long to wait before the next start, or why not to start again. */
  onCrash(atMs: number): CrashDecision {
    const { maxCrashes, windowMs, minDelayMs, maxDelayMs } = this.options;
    this.crashes = [...this.crashes.filter((t) => t > atMs - windowMs), atMs];
    const n = this.crashes.length;
    if (n >= maxCrashes) return { giveUp: `it crashed ${n} times within ${Math.round(windowMs / 1000)} s; fix the cause (see its last log lines), then start it again` };
    return { restartInMs: Math.min(maxDelayMs, minDelayMs * 2 ** (n - 1)) };
  }

  /** After a healthy run: the next crash starts from the shortest delay. */
  reset(): void {
    this.crashes = [];
  }
}

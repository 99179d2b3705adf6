import { delay, guard, readCpu, withTimeout, type Child } from './children.js';
import { median } from './stats.js';
import type { GapInfo, Subscriber } from './subscriber.js';

/**
 * One relay round, shared by the relay and targets parts: the flood starts, and the round ends
 * when every subscriber has counted (or been told it missed, in a gap frame) every event.
 */

const ROUND_TIMEOUT_MS = 30_000;

export interface RoundResult {
  ms: number;
  eventsPerSec: number;
  /** CPU the relay process used during the round, and the bench process (flood mod + subscribers). */
  relayCpuMs: number | null;
  /** The part of relayCpuMs spent in the kernel (socket reads and writes, loopback TCP). */
  relaySysMs: number | null;
  benchCpuMs: number;
  ok: boolean;
  /** Why the round does not count: gap frames, a timeout. */
  failure?: string;
  gaps?: GapInfo[];
}

/** `flood` writes `events` events in all (from one mod or several); each subscriber must see them all. */
export async function relayRound(child: Child, subs: readonly Subscriber[], events: number, flood: () => Promise<unknown>): Promise<RoundResult> {
  let remaining = subs.length;
  let finishedAt = 0;
  let allDone!: () => void;
  const done = new Promise<void>((resolve) => (allDone = resolve));
  for (const sub of subs) {
    sub.expect(events, () => {
      remaining -= 1;
      if (remaining === 0) {
        finishedAt = performance.now();
        allDone();
      }
    });
  }
  const cpu0 = readCpu(child.proc.pid);
  const benchCpu0 = process.cpuUsage();
  const t0 = performance.now();
  const flooding = flood();
  let timedOut = false;
  try {
    await guard(child, withTimeout(Promise.all([done, flooding]), ROUND_TIMEOUT_MS, 'the round'));
  } catch (err) {
    if (!(err instanceof Error) || !err.message.includes('did not happen within')) throw err;
    timedOut = true;
  }
  const gaps = subs.flatMap((s) => s.gaps);
  const ms = (timedOut ? performance.now() : finishedAt) - t0;
  const cpu1 = readCpu(child.proc.pid);
  const benchCpu = process.cpuUsage(benchCpu0);
  const result: RoundResult = {
    ms,
    eventsPerSec: events / (ms / 1000),
    relayCpuMs: cpu0 !== null && cpu1 !== null ? cpu1.total - cpu0.total : null,
    relaySysMs: cpu0 !== null && cpu1 !== null ? cpu1.sys - cpu0.sys : null,
    benchCpuMs: (benchCpu.user + benchCpu.system) / 1000,
    ok: !timedOut && gaps.length === 0,
  };
  if (gaps.length > 0) {
    const dropped = gaps.reduce((n, g) => n + g.dropped, 0);
    result.failure = `${gaps.length} gap frame(s), ${dropped} events not pushed`;
    result.gaps = gaps.slice(0, 5);
  }
  if (timedOut) {
    const counts = subs.map((s) => s.accounted);
    result.failure = `${result.failure ? result.failure + '; ' : ''}timed out after ${ROUND_TIMEOUT_MS} ms with ${Math.min(...counts)}..${Math.max(...counts)} of ${events} events per subscriber`;
    // Let the rest arrive so the next round starts clean.
    await delay(2_000);
  }
  return result;
}

export interface RoundSummary {
  eventsPerSec: number | null;
  ms: number | null;
  relayCpuMs: number | null;
  benchCpuMs: number | null;
}

/** Medians over the rounds that count. */
export function summarizeRounds(rounds: RoundResult[]): RoundSummary {
  const good = rounds.filter((r) => r.ok);
  if (good.length === 0) return { eventsPerSec: null, ms: null, relayCpuMs: null, benchCpuMs: null };
  const cpu = good.map((r) => r.relayCpuMs).filter((v): v is number => v !== null);
  return {
    eventsPerSec: median(good.map((r) => r.eventsPerSec)),
    ms: median(good.map((r) => r.ms)),
    relayCpuMs: cpu.length > 0 ? median(cpu) : null,
    benchCpuMs: median(good.map((r) => r.benchCpuMs)),
  };
}

/**
 * Keeps V8's young generation small in a daemon: at its starting size (1 MB semi-spaces) while
 * the daemon starts, then growing to at most `maxSemiSpaceMb` rather than V8's 16 MB. Starting
 * is allocation-heavy (every plugin's schemas, the manifest), and an event flood keeps the young
 * generation at whatever size it grew to, resident for good. `--max-semi-space-size` cannot be
 * set from inside a running process (the heap reads it once, at start; measured: it has no
 * effect), but the growth factor is read at each growth: it is 1 (no growth) whenever the young
 * generation has reached the cap, checked after each collection. The check runs between turns of
 * the event loop, so one turn that allocates megabytes could grow it a step past the cap; a
 * daemon's turns (a socket read each) do not.
 * docs/decisions.md, "The daemon's young generation".
 */
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/** V8's default `--semi-space-growth-factor` (Node 20 to 24). */
const DEFAULT_GROWTH_FACTOR = 2;
/** The cap after start-up: measured as the flood bench's best peak RSS at the same throughput. */
export const DAEMON_SEMI_SPACE_MB = 4;

const MB = 1024 * 1024;

function setGrowthFactor(factor: number): void {
  v8.setFlagsFromString(`--semi-space-growth-factor=${factor}`);
}

/** The young generation's size now, in bytes (both semi-spaces). */
export function youngGenerationBytes(): number {
  for (const space of v8.getHeapSpaceStatistics()) {
    if (space.space_name === 'new_space') return space.space_size;
  }
  return 0;
}

/**
 * Hold the young generation at its size now; the function returned lets it grow again, up to
 * `maxSemiSpaceMb` per semi-space (0: no cap, V8's own limit).
 */
export function holdYoungGeneration(maxSemiSpaceMb = DAEMON_SEMI_SPACE_MB): () => void {
  setGrowthFactor(1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (maxSemiSpaceMb <= 0) {
      setGrowthFactor(DEFAULT_GROWTH_FACTOR);
      return;
    }
    // Growth doubles a semi-space, so it may grow while below the cap and must stop at it.
    const capBytes = 2 * maxSemiSpaceMb * MB;
    let factor = 1;
    const check = () => {
      const wanted = youngGenerationBytes() < capBytes ? DEFAULT_GROWTH_FACTOR : 1;
      if (wanted !== factor) setGrowthFactor((factor = wanted));
    };
    check();
    const observer = new PerformanceObserver(check);
    observer.observe({ entryTypes: ['gc'] });
  };
}

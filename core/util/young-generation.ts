/**
 * Keeps V8's young generation at its starting size (1 MB semi-spaces) while a daemon starts,
 * then lets it grow as usual. Starting is allocation-heavy (every plugin's schemas, the
 * manifest), and the young generation it grows to (up to 16 MB semi-spaces) stays resident at
 * idle. `--max-semi-space-size` cannot be set from inside a running process (the heap reads it
 * once, at start; measured: it has no effect), but the growth factor is read at each growth.
 * docs/decisions.md, "The daemon's young generation".
 */
import v8 from 'node:v8';

/** V8's default `--semi-space-growth-factor` (Node 20 to 24). */
const DEFAULT_GROWTH_FACTOR = 2;

/** Hold the young generation at its size now; the function returned lets it grow again. */
export function holdYoungGeneration(): () => void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
  };
}

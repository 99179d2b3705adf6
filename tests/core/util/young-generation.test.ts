/**
 * The daemon's young generation (core/util/young-generation.ts): held at its starting size, then
 * allowed to grow only up to the cap. V8's flags belong to the whole process, so each case runs in
 * a node process of its own, on the built module (npm test builds first).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const MODULE = pathToFileURL(path.resolve(import.meta.dirname, '../../../dist/core/util/young-generation.js')).href;
const MB = 1024 * 1024;

/** The largest young generation seen while held, and after `release()`. */
const SCRIPT = `
const { holdYoungGeneration, youngGenerationBytes } = await import(process.argv[1]);
const cap = Number(process.argv[2]);
// As a daemon works: many short turns of the event loop (a socket read each), with a window of
// live objects that survive collections, the pattern that makes V8 grow the young generation.
let window = [];
const churn = async (turns) => {
  let most = 0;
  for (let t = 0; t < turns; t++) {
    for (let i = 0; i < 1000; i++) {
      window.push({ i, text: 'x' + i });
      if (window.length > 100000) window = window.slice(50000);
    }
    await new Promise((resolve) => setImmediate(resolve));
    most = Math.max(most, youngGenerationBytes());
  }
  return most;
};
const release = holdYoungGeneration(cap);
const held = await churn(1000);
release();
const grown = await churn(5000);
console.log(JSON.stringify({ held, grown }));
`;

async function sizes(capMb: number): Promise<{ held: number; grown: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT, MODULE, String(capMb)]);
  return JSON.parse(stdout) as { held: number; grown: number };
}

describe('the daemon young generation', { timeout: 60_000 }, () => {
  it('stays at its starting size while held, then grows no further than the cap', async () => {
    const capped = await sizes(2);
    expect(capped.held).toBeLessThanOrEqual(2 * MB);
    expect(capped.grown).toBeGreaterThan(capped.held); // it did grow once released...
    expect(capped.grown).toBeLessThanOrEqual(2 * 2 * MB); // ...to two semi-spaces of 2 MB at most
  });

  it('without a cap, the same allocation grows it past that (the test would notice a cap that does nothing)', async () => {
    const uncapped = await sizes(0);
    expect(uncapped.held).toBeLessThanOrEqual(2 * MB);
    expect(uncapped.grown).toBeGreaterThan(2 * 2 * MB);
  });
});

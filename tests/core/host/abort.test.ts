import { describe, expect, it } from 'vitest';
import { sleep } from '../../../core/index.js';

describe('sleep', () => {
  it('resolves after the time when nothing aborts', async () => {
    const started = Date.now();
    await sleep(30, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('rejects with cancelled at once when the signal aborts, before or during', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(sleep(10_000, aborted.signal)).rejects.toMatchObject({ code: 'cancelled' });
    const later = new AbortController();
    // A minute: a sleep that ignored the abort would outlast the test's own timeout.
    const pending = sleep(60_000, later.signal);
    setImmediate(() => later.abort());
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
  });
});

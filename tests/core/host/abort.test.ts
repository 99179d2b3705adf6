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
    const started = Date.now();
    const pending = sleep(10_000, later.signal);
    setTimeout(() => later.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

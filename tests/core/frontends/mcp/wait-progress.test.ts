/**
 * Progress a client can show (issue 27): a short `wait` once sent only a final progress
 * notification, with no message, after which the answer came at once; the SDK client dropped it.
 * Now a wait sends progress with a message while it runs, and nothing at its end.
 */
import { describe, expect, it } from 'vitest';
import type { startStack, Stack } from '../../../support/helpers.js';
import { cleanupsAfterEach, connectInMemory, frontendFor, probeStack, text } from '../../../support/mcp.js';

const defer = cleanupsAfterEach();
const stack = (options: Parameters<typeof startStack>[0] = {}): Promise<Stack> => probeStack(defer, options);

async function waitWithProgress(ticks: number) {
  const s = await stack();
  const frontend = frontendFor(s.daemon.apiAddress.port);
  defer(() => frontend.close());
  const c = await connectInMemory(frontend);
  defer(() => c.close());
  const errors: Error[] = [];
  c.client.onerror = (err) => errors.push(err);
  const shown: Array<{ progress: number; total?: number; message?: string }> = [];
  const result = await c.client.callTool({ name: 'mc_wait', arguments: { ticks } }, undefined, { onprogress: (p) => shown.push(p) });
  const sent = c.sent.filter((m) => 'method' in m && m.method === 'notifications/progress');
  return { result, shown, sent, errors };
}

describe('mc_wait progress through the SDK client', { timeout: 30_000 }, () => {
  it('a wait of 2 s or less sends no progress at all (nothing a client would drop)', async () => {
    const { result, shown, sent, errors } = await waitWithProgress(20);
    expect(JSON.parse(text(result))).toMatchObject({ type: 'wait_ack', ticks: 20 });
    expect(sent).toEqual([]);
    expect(shown).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('a longer wait sends progress with a message, each one shown by the client, and none after the answer', async () => {
    const { shown, sent, errors } = await waitWithProgress(60);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBe(sent.length);
    expect(shown.every((p) => p.total === 60 && p.message === 'waiting for ticks' && p.progress <= 60)).toBe(true);
    expect(errors).toEqual([]);
  });
});

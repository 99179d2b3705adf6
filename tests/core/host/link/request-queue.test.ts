import { describe, expect, it } from 'vitest';
import { PROBATION_REPLIES } from '../../../../core/host/link/request-queue.js';
import { failure } from '../../../support/errors.js';
import { Gate } from '../../../support/scripted-mod.js';
import { useScriptedLinks } from '../../../support/scripted-link.js';
import { waitUntil } from '../../../support/wait-until.js';

const setup = useScriptedLinks();

describe('a call answers within its own timeout, counted from when it was made', () => {
  it('a request that queued before it was sent has only the rest of its time, and says how long it queued', async () => {
    const gate = new Gate();
    const { link } = await setup({ respond: (line, conn) => (line === 'STATE' ? gate.hold(conn, { type: 'state', millis: Date.now() }) : undefined) });
    const first = link.request('STATE');
    await gate.untilHeld(1);
    const asked = Date.now();
    const second = failure(link.request('STATE', { timeoutMs: 600 }));
    setTimeout(() => gate.release(), 300); // the first answers while the second has waited 300 ms
    await first;
    const err = (await second)!;
    expect(err.code).toBe('timeout');
    expect(Date.now() - asked).toBeGreaterThanOrEqual(580);
    expect(err.details).toMatchObject({ sent: true, timeoutMs: 600 });
    expect((err.details as { queuedMs: number }).queuedMs).toBeGreaterThanOrEqual(250);
    expect(err.message).toMatch(/no response for 'STATE' within 0\.6s \(0\.\ds of it queued behind earlier requests\)/);
    expect(link.status().owed).toEqual([{ line: 'STATE', ageMs: expect.any(Number), why: 'abandoned' }]);
  });

  it('a blocking verb waiting for a free side connection times out at its deadline, never sent', async () => {
    const { link, mod } = await setup({}, { maxSideRequests: 1 });
    const busy = link.request('WAIT 20'); // 1 s in the scripted mod
    await waitUntil(() => mod.connections.length === 2, 5_000, 'the side connection');
    const err = (await failure(link.request('WAIT 40', { timeoutMs: 200 })))!;
    expect(err.code).toBe('timeout');
    expect(err.details).toMatchObject({ sent: false });
    await busy;
    expect(mod.connections).toHaveLength(2);
    expect(mod.received).not.toContain('WAIT 40');
    expect(link.stats.queueTimeouts).toBe(1);
  });
});

describe('status', () => {
  it('shows the lines in flight with their ages, the queue and its oldest wait', async () => {
    const gate = new Gate();
    const { link } = await setup({ respond: (line, conn) => (line === 'STATE' ? gate.hold(conn, { type: 'state', millis: Date.now() }) : undefined) });
    const requests = [link.request('STATE'), link.request('STATE')];
    await gate.untilHeld(1);
    await waitUntil(() => link.status().queued === 1, 5_000, 'the second STATE queued');
    const status = link.status();
    expect(status.inFlight).toEqual([{ line: 'STATE', ageMs: expect.any(Number) }]);
    expect(status.oldestQueuedMs).toBeGreaterThanOrEqual(0);
    expect(status.owed).toEqual([]);
    gate.release();
    await gate.untilHeld(1);
    gate.release();
    await Promise.all(requests);
    expect(link.status()).toMatchObject({ inFlight: [], queued: 0, oldestQueuedMs: null, owed: [], doubleAnswering: false });
  });
});

describe('a healthy mod that answers twice the same, byte for byte', () => {
  it('the second, identical answer is delivered after the echo window, not dropped', async () => {
    const { link } = await setup({ respond: (line) => (line === 'STATE' ? [{ line: { type: 'state', millis: 1, tick: 1 } }] : undefined) }, { echoWindowMs: 30 });
    await link.request('STATE');
    const asked = Date.now();
    await expect(link.request('STATE')).resolves.toMatchObject({ type: 'state', tick: 1 });
    expect(Date.now() - asked).toBeGreaterThanOrEqual(25);
    expect(link.stats).toMatchObject({ strayReplies: 0, duplicateReplies: 0 });
    expect(link.status().doubleAnswering).toBe(false);
  });

  it(`after ${PROBATION_REPLIES} replies without a copy the mod is trusted: identical answers are delivered at once`, async () => {
    let distinct = 0;
    const { link } = await setup(
      { respond: (line) => (line === 'STATE' ? [{ line: { type: 'state', millis: 1, tick: distinct < PROBATION_REPLIES ? ++distinct : distinct } }] : undefined) },
      { echoWindowMs: 60_000 }, // a kept-back reply would outlast the test
    );
    for (let i = 0; i < PROBATION_REPLIES; i++) await link.request('STATE');
    for (let i = 0; i < 3; i++) await expect(link.request('STATE')).resolves.toMatchObject({ tick: PROBATION_REPLIES });
    expect(link.stats.duplicateReplies).toBe(0);
  });
});

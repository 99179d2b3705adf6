/**
 * A slow server-thread verb must not hold up the calls behind it: reader-thread verbs (MARK,
 * PING) overtake it, and a queued call answers within its own timeout, counted from when it
 * was made, without ever being sent (docs/protocol.md#replies-and-errors; docs/decisions.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McbridgeError } from '../../core/host/errors.js';
import { ModLink } from '../../core/host/link/mod-link.js';
import { silentLogger } from '../../core/util/log.js';
import { Gate, ScriptedMod } from '../support/scripted-mod.js';
import { startStack, type Stack } from '../support/helpers.js';
import { builtinVerbs } from '../support/verbs.js';
import { waitUntil } from '../support/wait-until.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A mod whose STATE replies wait until the test releases them; MARK and PING answer at once. */
async function slowStateMod() {
  const gate = new Gate();
  let tick = 0;
  const mod = await ScriptedMod.start({
    respond: (line, conn) => {
      if (line === 'STATE') return gate.hold(conn, { type: 'state', millis: Date.now(), tick: ++tick });
      if (line.startsWith('MARK ')) return [{ line: { type: 'mark_ack', millis: Date.now(), detail: line.slice(5) } }];
      return undefined;
    },
  });
  const link = new ModLink({ vantage: 'server', modPort: mod.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: () => {} });
  link.start();
  cleanups.push(
    () => mod.stop(),
    () => link.stop(),
  );
  await waitUntil(() => link.connected, 5_000, 'the link to be ready');
  const statesSent = () => mod.received.filter((l) => l === 'STATE').length;
  return { mod, link, gate, statesSent };
}

describe('head-of-line blocking behind a slow STATE', () => {
  it('a mark and a ping queued behind three states answer before the first state does', async () => {
    const { link, gate, statesSent } = await slowStateMod();
    const states = [link.request('STATE'), link.request('STATE'), link.request('STATE')];
    await gate.untilHeld(1);
    const mark = link.request('MARK behind three states');
    const ping = link.request('PING');
    await expect(mark).resolves.toMatchObject({ type: 'mark_ack', detail: 'behind three states' });
    await expect(ping).resolves.toMatchObject({ type: 'pong' });
    // Nothing of STATE has been answered yet; the other two wait their turn, unsent.
    expect(gate.held).toBe(1);
    expect(statesSent()).toBe(1);
    const status = link.status();
    expect(status.inFlight.map((r) => r.line)).toEqual(['STATE']);
    expect(status.queued).toBe(2);
    expect(status.oldestQueuedMs).toBeGreaterThanOrEqual(0);
    expect(link.stats.overtakes).toBe(2);

    for (let i = 1; i <= 3; i++) {
      await gate.untilHeld(1);
      gate.release();
      await expect(states[i - 1]).resolves.toMatchObject({ type: 'state', tick: i });
    }
  });

  it('a queued state times out at its own deadline, still queued, and the mod never sees it', async () => {
    const { link, gate, statesSent } = await slowStateMod();
    const first = link.request('STATE');
    await gate.untilHeld(1);
    const asked = Date.now();
    const err = (await link.request('STATE', { timeoutMs: 1_000 }).catch((e: McbridgeError) => e)) as McbridgeError;
    expect(Date.now() - asked).toBeGreaterThanOrEqual(950);
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/waited in the queue behind 1 request \(the mod is still answering 'STATE' for \d+\.\ds\) and was never sent/);
    expect(err.details).toMatchObject({ sent: false, ahead: 1 });
    // It timed out while the first STATE was still unanswered.
    expect(gate.held).toBe(1);
    gate.release();
    await expect(first).resolves.toMatchObject({ type: 'state', tick: 1 });
    await expect(link.request('PING')).resolves.toMatchObject({ type: 'pong' });
    expect(statesSent()).toBe(1);
    expect(link.stats.queueTimeouts).toBe(1);
  });
});

describe('against the simulated mod, through the daemon', () => {
  it('with STATE taking 16 s, a mark and a PING answer while three states are out', async () => {
    const stack: Stack = await startStack({ sim: { replyDelayMs: { STATE: 16_000 } } });
    cleanups.push(() => stack.close());
    const link = stack.daemon.host.link;
    // Left pending: closing the stack fails them.
    for (let i = 0; i < 3; i++) stack.client.call('state').catch(() => {});
    await waitUntil(() => stack.sim.received.includes('STATE') && link.status().queued === 2, 5_000, 'one STATE at the mod and two queued');
    await expect(stack.client.call('mark', { text: 'not behind the states' })).resolves.toMatchObject({ type: 'mark_ack' });
    await expect(link.request('PING')).resolves.toMatchObject({ type: 'pong' });
    expect(link.status().inFlight.map((r) => r.line)).toEqual(['STATE']);
    expect(stack.daemon.host.status().link).toMatchObject({ queued: 2, inFlight: [{ line: 'STATE' }] });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import type { McbridgeError } from '../../core/host/errors.js';
import type { EventPage } from '../../core/host/events/event-log.js';
import { ModLink, type ModMessage } from '../../core/host/link/mod-link.js';
import { silentLogger } from '../../core/util/log.js';
import { startSim, type SimulatedMod } from '../../core/sim/index.js';
import { freePort, startStack, waitUntil, type Stack } from '../support/helpers.js';
import { builtinVerbs } from '../support/verbs.js';

// The mod's edge cases (docs/protocol.md), end to end: simulated mod, daemon, local API.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function stack(options: Parameters<typeof startStack>[0]): Promise<Stack> {
  const s = await startStack(options);
  cleanups.push(() => s.close());
  return s;
}

describe('mod edge cases through the daemon', () => {
  it('works with CRLF line endings', async () => {
    const { client } = await stack({ sim: { lineEnding: '\r\n' } });
    await expect(client.call('state')).resolves.toMatchObject({ type: 'state', instance: 'server' });
    await expect(client.call('command', { command: 'time query daytime' })).resolves.toMatchObject({ type: 'cmd_ack' });
  });

  it('records an event that arrives before the greeting, then the greeting', async () => {
    const { client } = await stack({ sim: { eventBeforeHello: true } });
    const page = (await client.call('events', { since: 0, category: 'hello' })) as EventPage;
    expect(page.events[0]).toMatchObject({ type: 'hello', event: true });
    expect(page.events[1]).toMatchObject({ type: 'hello', mod: 'mc-agent-interface', instance: 'server' });
    await expect(client.call('state')).resolves.toMatchObject({ type: 'state' });
  });

  it('matches replies when reader-thread answers would overtake server-thread ones', async () => {
    const { client } = await stack({ sim: { replyDelayMs: { STATE: 150, CMD: 100 } } });
    const [state, caps, ack, mark] = await Promise.all([client.call('state'), client.call('capabilities'), client.call('command', { command: 'list' }), client.call('mark', { text: 'overtake' })]);
    expect(state).toMatchObject({ type: 'state' });
    expect(caps).toMatchObject({ type: 'capabilities' });
    expect(ack).toMatchObject({ type: 'cmd_ack', detail: 'list' });
    expect(mark).toMatchObject({ type: 'mark_ack', detail: 'overtake' });
  });

  it('follows the mod to a new port when it restarts, leaving a stale port.txt behind meanwhile', async () => {
    const sim = await startSim({ port: 0 });
    cleanups.push(() => sim.stop());
    const s = await stack({ sim: { port: 0 }, daemon: { link: { serverDir: sim.dir, modPort: undefined } } });
    // startStack started its own sim; point the daemon at `sim` through its directory instead.
    await waitUntil(() => s.daemon.host.link.status().mod.port === sim.port && s.daemon.host.link.connected, 5_000, 'the connection to the dir sim');
    const newPort = await freePort();
    await sim.restart({ port: newPort });
    await waitUntil(() => s.daemon.host.link.connected && s.daemon.host.link.status().mod.port === newPort, 5_000, 'the reconnect on the new port');
    const page = (await s.client.call('events', { since: 0, category: 'error' })) as EventPage;
    expect(page.events.map((e) => e.type)).toContain('bridge_disconnected');
    await expect(s.client.call('state')).resolves.toMatchObject({ type: 'state', tick: expect.any(Number) });
  });

  it('a mod that disconnects mid-request gives not_connected, and the daemon carries on', async () => {
    const s = await stack({ sim: { silentVerbs: ['STATE'] } });
    const pending = s.client.call('state').catch((e: McbridgeError) => e);
    await waitUntil(() => s.sim.received.includes('STATE'), 2_000, 'STATE at the mod');
    s.sim.silentVerbs = [];
    s.sim.hangUp();
    const err = (await pending) as McbridgeError;
    expect(err.code).toBe('not_connected');
    await waitUntil(() => s.daemon.host.link.connected, 5_000, 'the reconnect');
    await expect(s.client.call('state')).resolves.toMatchObject({ type: 'state' });
  });
});

describe('late replies against the simulated mod', () => {
  let sim: SimulatedMod;
  it('a reply that arrives after its request timed out is never handed to the next request', async () => {
    sim = await startSim({ port: 0, replyDelayMs: { STATE: 300 } });
    cleanups.push(() => sim.stop());
    const events: ModMessage[] = [];
    const link = new ModLink({ vantage: 'server', modPort: sim.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: (e) => events.push(e) });
    link.start();
    cleanups.push(() => link.stop());
    await waitUntil(() => link.connected, 3_000, 'the link');
    const timedOut = await link.request('STATE', { timeoutMs: 50 }).catch((e: McbridgeError) => e.code);
    expect(timedOut).toBe('timeout');
    const caps = await link.request('CAPS');
    expect(caps.type).toBe('capabilities');
    const ping = await link.request('PING');
    expect(ping.type).toBe('pong');
    // CAPS and PING overtook the owed state; the next STATE waits for it and gets its own.
    await expect(link.request('STATE')).resolves.toMatchObject({ type: 'state' });
    expect(link.stats.lateReplies).toBe(1);
  });
});

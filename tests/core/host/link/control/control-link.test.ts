/**
 * The daemon over control protocol 1, against the simulated mod's TLS listener (issue 26):
 * session and surface, many requests in flight, writes whose answer was lost, replay, restarts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { failure } from '../../../../support/errors.js';
import { startControlStack, type ControlStack } from '../../../../support/control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const stacks: ControlStack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

async function stack(options: Parameters<typeof startControlStack>[0] = {}): Promise<ControlStack> {
  const s = await startControlStack(options);
  stacks.push(s);
  return s;
}

const pigs = (s: ControlStack) => s.sim.world.entities.filter((e) => e.type === 'minecraft:pig').length;
type Manifest = { tools: Array<{ name: string; available: boolean; reason?: string }> };

describe('a target reached over control protocol 1', () => {
  it('answers reads and writes; status names the transport, the session and never the token', async () => {
    const s = await stack();
    const state = (await s.client.call('state', {})) as Record<string, unknown>;
    expect(state.type).toBe('state');
    const ack = (await s.client.call('command', { command: 'summon minecraft:pig 0 64 0' })) as Record<string, unknown>;
    expect(ack).toMatchObject({ type: 'cmd_ack', duplicate: false });
    expect(typeof ack.writeSeq).toBe('number');
    const status = (await s.client.call('status', {})) as Record<string, any>;
    expect(status).toMatchObject({ transport: 'control', connected: true, control: { permissions: ['read', 'write'], credential: 'given', trust: 'pin' } });
    expect(JSON.stringify(status)).not.toContain(s.sim.control!.bootstrapToken!);
  });

  it('hides the world-disk tools with the reason, and offers request_status and the leases', async () => {
    const s = await stack();
    const manifest = (await s.client.call('tools', {})) as Manifest;
    const tool = (name: string) => manifest.tools.find((t) => t.name === name)!;
    for (const name of ['fork', 'restore', 'verify', 'order']) expect(tool(name)).toMatchObject({ available: false, reason: expect.stringMatching(/world's folder on this machine/) });
    for (const name of ['request_status', 'exclusive_acquire', 'exclusive_status', 'state', 'command']) expect(tool(name).available).toBe(true);
  });

  it('a slow request holds up no other: a state is answered while a long wait is out', async () => {
    const s = await stack();
    const order: string[] = [];
    const wait = s.client.call('wait', { ticks: 40 }).then(() => order.push('wait'));
    await new Promise((r) => setTimeout(r, 50));
    await s.client.call('state', {}).then(() => order.push('state'));
    await wait;
    expect(order).toEqual(['state', 'wait']);
  });

  it('32 pending at the server (its limit), the rest wait in the daemon, and every one is answered', async () => {
    const s = await stack();
    const held = s.sim.control!.holdOp('state');
    const calls = Array.from({ length: 40 }, () => s.client.call('state', {}));
    await waitUntil(() => s.daemon.host.link.status().queued === 8, 5_000, 'eight requests to wait in the daemon');
    expect(s.daemon.host.link.status().inFlight).toHaveLength(32);
    held.release();
    const answers = await Promise.all(calls);
    expect(answers.every((a) => (a as Record<string, unknown>).type === 'state')).toBe(true);
  });

  it('a write whose reply is lost: it may have run; request_status says completed; resending its id runs nothing again', async () => {
    const s = await stack();
    const before = pigs(s);
    s.sim.control!.dropReplyOf('command', { close: true });
    const err = await failure(s.client.call('command', { command: 'summon minecraft:pig 0 64 0', request_id: 'pig-1' }));
    expect(err.outcome).toEqual({ retryable: false, resultUnknown: true, requestId: 'pig-1' });
    expect(pigs(s)).toBe(before + 1);
    await waitUntil(() => s.daemon.host.link.connected, 5_000, 'the link to come back');
    // The daemon asked the server's ledger on its own after the reconnect.
    await waitUntil(() => s.daemon.host.events.query({ limit: 50 }).events.some((e) => e.type === 'bridge_request_resolved' && e.requestId === 'pig-1'), 5_000, 'the reconcile event');
    expect((await s.client.call('request_status', { request_id: 'pig-1' })) as Record<string, unknown>).toMatchObject({ requestId: 'pig-1', state: 'completed' });
    const again = (await s.client.call('command', { command: 'summon minecraft:pig 0 64 0', request_id: 'pig-1' })) as Record<string, unknown>;
    expect(again.duplicate).toBe(true);
    expect(pigs(s)).toBe(before + 1);
  });

  it('after a game restart the old run is said, and request_status of an old id is unknown', async () => {
    const s = await stack();
    await s.client.call('mark', { text: 'before', request_id: 'm-old' });
    const firstRun = (s.daemon.host.link.status().control as Record<string, unknown>).runId;
    await s.sim.restart();
    await waitUntil(() => s.daemon.host.link.connected && (s.daemon.host.link.status().control as Record<string, unknown>).runId !== firstRun, 10_000, 'the link to reach the new run');
    const changed = s.daemon.host.events.query({ limit: 100 }).events.find((e) => e.type === 'bridge_run_changed');
    expect(changed).toMatchObject({ previousRunId: firstRun });
    expect((await s.client.call('request_status', { request_id: 'm-old' })) as Record<string, unknown>).toMatchObject({ state: 'unknown' });
  });

  it('events the link missed while down are replayed once, none twice, in order', async () => {
    const s = await stack({ link: { reconnectMinMs: 400, reconnectMaxMs: 400 } });
    await s.client.call('mark', { text: 'm0' });
    s.sim.control!.dropReplyOf('mark', { close: true });
    await failure(s.client.call('mark', { text: 'm1' }));
    for (let i = 2; i <= 5; i++) s.sim.chat('Steve', `while down ${i}`);
    await waitUntil(() => s.daemon.host.link.connected, 5_000, 'the link to come back');
    await s.client.call('mark', { text: 'm6' });
    await waitUntil(() => s.daemon.host.events.query({ limit: 200 }).events.some((e) => e.type === 'mark' && e.text === 'm6'), 5_000, 'm6 recorded');
    const events = s.daemon.host.events.query({ limit: 200 }).events;
    const texts = events.filter((e) => e.type === 'chat' || e.type === 'mark').map((e) => String(e.text));
    expect(texts.filter((t) => t.startsWith('while down'))).toEqual(['while down 2', 'while down 3', 'while down 4', 'while down 5']);
    expect(texts.filter((t) => t === 'm1')).toHaveLength(1);
    const serverSeqs = events.map((e) => e.serverSeq).filter((n): n is number => typeof n === 'number');
    expect(new Set(serverSeqs).size).toBe(serverSeqs.length);
    expect([...serverSeqs].sort((a, b) => a - b)).toEqual(serverSeqs);
    expect(events.some((e) => e.replayed === true)).toBe(true);
  });

  it('events the server no longer holds are said: a bridge_events_lost with the count, then the rest in order', async () => {
    const s = await stack({ sim: { control: { eventBuffer: 4 } }, link: { reconnectMinMs: 600, reconnectMaxMs: 600 } });
    await s.client.call('mark', { text: 'm0' });
    s.sim.control!.dropReplyOf('mark', { close: true });
    await failure(s.client.call('mark', { text: 'm1' }));
    for (let i = 1; i <= 10; i++) s.sim.chat('Steve', `while down ${i}`);
    await waitUntil(() => s.daemon.host.link.connected, 5_000, 'the link to come back');
    await waitUntil(() => s.daemon.host.events.query({ limit: 100 }).events.some((e) => e.text === 'while down 10'), 5_000, 'the replay');
    const events = s.daemon.host.events.query({ limit: 100 }).events;
    const lost = events.find((e) => e.type === 'bridge_events_lost') as Record<string, unknown>;
    const replayedChats = events.filter((e) => e.type === 'chat').map((e) => e.text);
    expect(replayedChats).toEqual(['while down 7', 'while down 8', 'while down 9', 'while down 10']);
    // Everything between the last seq seen and the first the server still held: six chats, and the m1
    // events the session did not deliver before it closed (mark and write: 0 to 2 of them).
    expect(lost).toMatchObject({ missed: (lost.toSeq as number) - (lost.fromSeq as number) + 1 });
    expect(lost.missed).toBeGreaterThanOrEqual(6);
    expect(lost.missed).toBeLessThanOrEqual(8);
    expect(events.indexOf(lost as never)).toBeLessThan(events.findIndex((e) => e.text === 'while down 7'));
  });

  it("honours the server's idle limit: a quiet session is kept alive, not dropped", async () => {
    const s = await stack({ sim: { control: { idleSeconds: 1 } } });
    // A ping a third of the idle time: six of them span twice the server's idle limit.
    const pings = () => (s.daemon.host.link.status().control as { liveness: { pings: number } }).liveness.pings;
    await waitUntil(() => pings() >= 6, 10_000, 'six keep-alive pings');
    expect(s.daemon.host.link.connected).toBe(true);
    expect(s.daemon.host.link.stats.connections).toBe(1);
    expect(s.sim.control!.sessions).toBe(1);
  });

  it('a lease holder re-acquiring from a new session keeps the lease: the holder session moves, the renewals count on', async () => {
    const s = await stack();
    const sessionId = () => (s.daemon.host.link.status().control as { sessionId: string }).sessionId;
    const first = (await s.client.call('exclusive_acquire', { key: 'freeze', ttl_seconds: 60, label: 'run' })) as Record<string, unknown>;
    expect(first).toMatchObject({ holderSessionId: sessionId(), renewals: 0 });
    const before = sessionId();
    const tokenId = s.sim.control!.bootstrapToken!.split('.')[1]!;
    for (const session of s.sim.control!.sessionsOf(tokenId)) session.fatal('timeout', 'closed by the test');
    await waitUntil(() => s.daemon.host.link.connected && sessionId() !== before, 10_000, 'a new session');
    const again = (await s.client.call('exclusive_acquire', { key: 'freeze', ttl_seconds: 60, label: 'run' })) as Record<string, unknown>;
    expect(again).toMatchObject({ key: 'freeze', holderSessionId: sessionId(), renewals: 1, acquiredAtMillis: first.acquiredAtMillis });
  });

  // Exactly at the limit and one byte over, to the byte: hostile-welcome.test.ts ("the frame limit, to the byte").
  it('a request over the frame limit is refused unsent, and one well inside goes', async () => {
    const s = await stack({ sim: { control: { maxFrameBytes: 1024 } } });
    const err = await failure(s.client.call('mark', { text: 'x'.repeat(1500) }));
    expect(err.message).toMatch(/over the server's 1024-byte frame limit; nothing was sent/);
    expect(err.outcome).toMatchObject({ retryable: false, resultUnknown: false });
    expect(s.daemon.host.link.connected).toBe(true);
    // Well inside: the mark_ack echoes the text, and the reply must fit the limit too.
    await s.client.call('mark', { text: 'x'.repeat(400) });
  });
});

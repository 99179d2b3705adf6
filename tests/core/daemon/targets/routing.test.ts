import { describe, expect, it } from 'vitest';
import type { Daemon } from '../../../../core/daemon/daemon.js';
import type { SimulatedMod } from '../../../../core/sim/index.js';
import { failure } from '../../../support/errors.js';
import { twoTargets, waitForEvents } from '../../../support/targets.js';
import { waitUntil } from '../../../support/helpers.js';

describe('one daemon, two targets', () => {
  it('routes each call by its target, the default without one, and names the known targets for an unknown one', async () => {
    const { client, live, lab } = await twoTargets();
    const marks = (sim: SimulatedMod) => sim.received.filter((line) => line.startsWith('MARK'));
    await client.call('mark', { text: 'hello live', target: 'live' });
    expect(marks(live)).toEqual(['MARK hello live']);
    expect(marks(lab)).toEqual([]);
    await client.call('mark', { text: 'to the default' });
    expect(marks(lab)).toEqual(['MARK to the default']);
    expect(marks(live)).toHaveLength(1);

    const unknown = await failure(client.call('state', { target: 'staging' }));
    expect(unknown.code).toBe('target_unknown');
    expect(unknown.message).toContain('live, lab');
  });

  it('refuses a call that names no target when none is the default: target_required', async () => {
    const { client } = await twoTargets({ defaultTarget: null });
    const err = await failure(client.call('state', {}));
    expect(err.code).toBe('target_required');
    expect(err.message).toMatch(/--target|MCBRIDGE_TARGET/);
    await expect(client.call('state', { target: 'live' })).resolves.toBeTruthy();
  });

  it('stamps every event with its target and keeps each target’s seq its own', async () => {
    const { client, live, lab } = await twoTargets();
    const liveHost = (await client.call('events', { target: 'live', limit: 1 })) as { next: number };
    const labHost = (await client.call('events', { target: 'lab', limit: 1 })) as { next: number };
    live.chat('Alex', 'one');
    live.chat('Alex', 'two');
    lab.chat('Steve', 'three');
    const livePage = await waitForEvents(client, 'live', liveHost.next, 2);
    const labPage = await waitForEvents(client, 'lab', labHost.next, 1);
    expect(livePage.map((e) => [e.target, e.text])).toEqual([
      ['live', 'one'],
      ['live', 'two'],
    ]);
    expect(labPage.map((e) => [e.target, e.text])).toEqual([['lab', 'three']]);
    expect(livePage[1]!.seq).toBe((livePage[0]!.seq as number) + 1);
  });

  it('pushes a subscriber the targets it asked for, each event naming its own', async () => {
    const { daemon, client, live, lab } = await twoTargets();
    const seen: Array<Record<string, unknown>> = [];
    client.on('event', (frame: { data: Record<string, unknown> }) => seen.push(frame.data));
    const answer = (await client.call('subscribe', { events: ['chat'], target: ['live'] })) as { subscribed: string[]; targets: Record<string, string[]> };
    expect(answer.targets).toEqual({ live: ['chat'] });
    lab.chat('Steve', 'not pushed');
    live.chat('Alex', 'pushed');
    await waitUntil(() => seen.length >= 1, 2_000, 'the pushed chat');
    await client.call('subscribe', { events: ['chat'], target: '*' });
    lab.chat('Steve', 'now pushed');
    await waitUntil(() => seen.length >= 2, 2_000, 'the second pushed chat');
    expect(seen.map((e) => [e.target, e.text])).toEqual([
      ['live', 'pushed'],
      ['lab', 'now pushed'],
    ]);
    expect(daemon.targets.names()).toEqual(['live', 'lab']);
  });

  it('lists every target with its link, CAPS and default, and the tools list names the targets', async () => {
    const { client } = await twoTargets();
    const listed = (await client.call('targets', {})) as { targets: Array<Record<string, unknown>>; default: string; count: number };
    expect(listed.count).toBe(2);
    expect(listed.default).toBe('lab');
    expect(listed.targets.map((t) => [t.name, t.default, t.connected, t.transport])).toEqual([
      ['live', false, true, 'legacy'],
      ['lab', true, true, 'legacy'],
    ]);
    expect(listed.targets[0]!.capabilities).toEqual(expect.arrayContaining(['state', 'entities']));
    const manifest = (await client.call('tools', {})) as { targets: Array<{ name: string }>; tools: Array<{ name: string; targets: string[] }> };
    expect(manifest.targets.map((t) => t.name)).toEqual(['live', 'lab']);
    expect(manifest.tools.find((t) => t.name === 'state')?.targets).toEqual(['live', 'lab']);
  });
});

/** Give a target's sim other CAPS and wait until its link is back with them (a reconnect). */
async function recaps(daemon: Daemon, sim: SimulatedMod, name: string, caps: string[]): Promise<void> {
  const link = daemon.targets.pick(name).link;
  const connectedAt = link.status().connectedAt;
  sim.setCapabilities(caps);
  sim.hangUp();
  await waitUntil(() => link.connected && link.status().connectedAt !== connectedAt, 5_000, `${name} back with its new CAPS`);
}

describe('a tool one target cannot serve', () => {
  it('that only the second target serves is available, names that target, and routes there', async () => {
    const { daemon, client, live, lab } = await twoTargets({ defaultTarget: 'live' });
    await recaps(daemon, live, 'live', ['state', 'status', 'events', 'capabilities']);
    const manifest = (await client.call('tools', {})) as { tools: Array<{ name: string; available: boolean; targets: string[] }> };
    expect(manifest.tools.find((t) => t.name === 'entities')).toMatchObject({ available: true, targets: ['lab'] });
    await expect(client.call('entities', { target: 'lab', radius: 4 })).resolves.toBeTruthy();
    expect(lab.received.filter((l) => l.startsWith('ENTITIES'))).toHaveLength(1);
    expect(live.received.filter((l) => l.startsWith('ENTITIES'))).toEqual([]);
    // The default cannot serve it: refused there, naming the target, not sent elsewhere.
    expect((await failure(client.call('entities', { radius: 4 }))).message).toContain("target 'live'");
  });

  it('is listed while another serves it, and refused on that target naming the target and the missing CAPS', async () => {
    const { daemon, client, lab } = await twoTargets();
    await recaps(daemon, lab, 'lab', ['state', 'status', 'events', 'capabilities']);
    const manifest = (await client.call('tools', {})) as { tools: Array<{ name: string; available: boolean; targets: string[] }> };
    expect(manifest.tools.find((t) => t.name === 'entities')!.targets).toEqual(['live']);
    expect(manifest.tools.find((t) => t.name === 'entities')!.available).toBe(true);
    const refused = await failure(client.call('entities', { target: 'lab' }));
    expect(refused.code).toBe('unsupported_capability');
    expect(refused.message).toContain("target 'lab'");
    expect(refused.details).toMatchObject({ target: 'lab' });
    await expect(client.call('entities', { target: 'live' })).resolves.toBeTruthy();
    const listed = (await client.call('targets', {})) as { targets: Array<{ name: string; hidden: Array<{ name: string; reason: string }> }> };
    const hidden = listed.targets.find((t) => t.name === 'lab')!.hidden;
    expect(hidden.find((h) => h.name === 'entities')?.reason).toBeTruthy();
    expect(listed.targets.find((t) => t.name === 'live')!.hidden.map((h) => h.name)).not.toContain('entities');
  });
});

describe('one call, several targets', () => {
  it('answers a read on `*` per target, and an events page across targets gives a cursor per target that replays exactly', async () => {
    const { client, live, lab } = await twoTargets();
    const start = (await client.call('events', { target: '*', limit: 1 })) as { next: Record<string, number> };
    expect(Object.keys(start.next)).toEqual(['live', 'lab']);
    live.chat('Alex', 'a');
    lab.chat('Steve', 'b');
    live.chat('Alex', 'c');
    await waitForEvents(client, 'live', start.next.live!, 2);
    await waitForEvents(client, 'lab', start.next.lab!, 1);
    const page = (await client.call('events', { target: ['live', 'lab'], since: start.next, category: 'chat' })) as {
      targets: Record<string, { events: Array<{ text: string; target: string }> }>;
      next: Record<string, number>;
    };
    expect(page.targets.live!.events.map((e) => e.text)).toEqual(['a', 'c']);
    expect(page.targets.lab!.events.map((e) => e.text)).toEqual(['b']);
    // Fed back as it came, the cursor gives nothing again: no event lost or repeated on either target.
    const again = (await client.call('events', { target: '*', since: page.next })) as { targets: Record<string, { events: unknown[] }> };
    expect(again.targets.live!.events).toEqual([]);
    expect(again.targets.lab!.events).toEqual([]);
    const bad = await failure(client.call('events', { target: '*', since: 3 }));
    expect(bad.code).toBe('invalid_params');
    expect(bad.message).toContain('{"live": 12, "lab": 40}');
  });

  it('refuses a call that can change a game on several targets, and a wait on several answers with the first target that sees its event', async () => {
    const { daemon, client, lab } = await twoTargets();
    const listening = () => daemon.targets.hostsList().map((h) => h.events.stats().listeners);
    const before = listening();
    const refused = await failure(client.call('mark', { text: 'everywhere', target: '*' }));
    expect(refused.code).toBe('invalid_params');
    expect(refused.message).toContain('one target at a time');
    const waiting = client.call('wait_for', { target: '*', match: { type: 'chat', text: 'ready' }, timeout_ms: 5_000 }) as Promise<{
      target: string;
      result: { event: { text: string; target: string } };
    }>;
    // Both targets' waits are listening before the chat is said.
    await waitUntil(() => listening().every((n, i) => n > before[i]!), 2_000, 'the wait on each target');
    lab.chat('Steve', 'ready');
    const answer = await waiting;
    expect(answer.target).toBe('lab');
    expect(answer.result.event.target).toBe('lab');
  });

  it('gives each target a webhook and snapshot plugin of its own, so no state is shared', async () => {
    const { daemon } = await twoTargets();
    const [live, lab] = daemon.targets.hostsList();
    const pluginOf = (host: typeof live, name: string) => (host as unknown as { records: Map<string, { plugin: unknown }> }).records.get(name)!.plugin;
    expect(pluginOf(live!, 'webhook')).not.toBe(pluginOf(lab!, 'webhook'));
    expect(pluginOf(live!, 'snapshot')).not.toBe(pluginOf(lab!, 'snapshot'));
    // A plugin without state of its own is one object, set up once per target.
    expect(pluginOf(live!, 'state')).toBe(pluginOf(lab!, 'state'));
  });
});

describe('a write that fails on one of two targets', () => {
  it('keeps its outcome: a link that drops after the write left says resultUnknown with its request id, as on a daemon of one target', async () => {
    const { client, live } = await twoTargets();
    live.silentVerbs = ['CMD'];
    const pending = failure(client.call('command', { command: 'say hi', target: 'live', request_id: 'drop-1' }));
    await waitUntil(() => live.received.some((line) => line.startsWith('CMD')), 2_000, 'CMD at the live sim');
    live.silentVerbs = [];
    live.hangUp();
    const err = await pending;
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(/^target 'live': /);
    expect(err.details).toMatchObject({ target: 'live' });
    expect(err.outcome).toEqual({ retryable: false, resultUnknown: true, requestId: 'drop-1' });
  });

  it('a write refused before it left is retryable, with its request id', async () => {
    const { daemon, client, live } = await twoTargets();
    await live.stop();
    await waitUntil(() => !daemon.targets.pick('live').link.connected, 2_000, 'the live link to drop');
    const err = await failure(client.call('command', { command: 'say hi', target: 'live', request_id: 'unsent-1' }));
    expect(err.code).toBe('not_connected');
    expect(err.outcome).toEqual({ retryable: true, resultUnknown: false, requestId: 'unsent-1' });
  });
});

describe('a target removed while calls are in flight', () => {
  it('answers them that a reload removed the target, with the write outcome: the one sent may have run, the one queued did not leave', async () => {
    const { daemon, client, live } = await twoTargets();
    live.silentVerbs = ['CMD'];
    const sent = failure(client.call('command', { command: 'say one', target: 'live', request_id: 'gone-1' }));
    await waitUntil(() => live.received.some((line) => line.startsWith('CMD')), 2_000, 'the first CMD at the live sim');
    const queued = failure(client.call('command', { command: 'say two', target: 'live', request_id: 'gone-2' }));
    await waitUntil(() => daemon.targets.pick('live').link.status().queued >= 1, 2_000, 'the second CMD queued');
    await daemon.targets.remove('live')?.stop();

    const [first, second] = await Promise.all([sent, queued]);
    expect(first.message).toMatch(/^target 'live' was removed by a reload/);
    expect(first.details).toMatchObject({ target: 'live', removed: true });
    expect(first.outcome).toMatchObject({ resultUnknown: true, requestId: 'gone-1' });
    expect(second.message).toBe("target 'live' was removed by a reload before 'CMD say two' was sent");
    expect(second.outcome).toEqual({ retryable: true, resultUnknown: false, requestId: 'gone-2' });
    // The daemon goes on: the other target answers.
    await expect(client.call('state', { target: 'lab' })).resolves.toMatchObject({ type: 'state' });
  });
});

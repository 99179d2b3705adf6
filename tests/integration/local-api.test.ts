import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import type { EventPage, RecordedEvent } from '../../core/host/events/event-log.js';
import type { Manifest } from '../../core/host/plugin-api.js';
import { failure } from '../support/errors.js';
import { rawConnection, startStack, waitUntil, type Stack } from '../support/helpers.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('local API against the simulated mod', () => {
  it('serves status, capabilities, state, entities, command, mark, events and wait', async () => {
    stack = await startStack();
    const { client } = stack;

    const status = (await client.call('status')) as Record<string, any>;
    expect(status.connected).toBe(true);
    expect(status.vantage).toBe('server');
    expect(status.instance).toBe('server');
    expect(status.mod.port).toBe(stack.sim.port);
    expect(status.api.port).toBe(stack.daemon.apiAddress.port);
    expect(status.events.streamId).toMatch(/^[0-9a-f]{32}$/);

    const caps = (await client.call('capabilities')) as Record<string, any>;
    expect(caps.type).toBe('capabilities');
    expect(caps.capabilities).toContain('state');
    expect(caps.surface.supported).toEqual(expect.arrayContaining(['state', 'entities', 'command', 'events', 'mark', 'wait']));

    const state = (await client.call('state')) as Record<string, any>;
    expect(state.type).toBe('state');
    expect(state.instance).toBe('server');
    expect(Array.isArray(state.playerList)).toBe(true);

    const entities = (await client.call('entities')) as Record<string, any>;
    expect(entities.type).toBe('entities');
    expect(entities.entities.length).toBeGreaterThan(0);
    const near = (await client.call('entities', { radius: 2 })) as Record<string, any>;
    expect(near.radius).toBe(2);
    expect(near.entities.length).toBeLessThanOrEqual(entities.entities.length);

    const ack = (await client.call('command', { command: '/time query daytime' })) as Record<string, any>;
    expect(ack.type).toBe('cmd_ack');
    expect(ack.detail).toBe('time query daytime');
    expect(ack.output[0]).toMatch(/^The time is \d+$/);

    const mark = (await client.call('mark', { text: 'experiment 3 begins' })) as Record<string, any>;
    expect(mark).toMatchObject({ type: 'mark_ack', detail: 'experiment 3 begins' });
    await waitUntil(() => stack!.daemon.host.events.query({ since: { seq: 0 } }).events.some((e) => e.type === 'mark'), 2_000, 'the mark event');

    const page = (await client.call('events', { since: 0, category: 'mark' })) as EventPage;
    expect(page.events.map((e) => e.text)).toEqual(['experiment 3 begins']);
    expect(page.dropped).toBe(false);

    const waited = (await client.call('wait', { ticks: 2 })) as Record<string, any>;
    expect(waited).toMatchObject({ type: 'wait_ack', ticks: 2 });
    expect(waited).not.toHaveProperty('detail'); // the mod's is always "ticks=0"
  });

  it('lists tools with schemas, availability and a revision', async () => {
    stack = await startStack({ sim: { vantage: 'server' } });
    const manifest = (await stack.client.call('tools')) as Manifest;
    const entities = manifest.tools.find((t) => t.name === 'entities')!;
    expect(entities.available).toBe(true);
    expect(entities.inputSchema).toMatchObject({ type: 'object', properties: { radius: { type: 'number' } } });
    expect(entities.annotations.readOnly).toBe(true);
    expect(entities.plugin).toBe('entities');
    expect(manifest.connected).toBe(true);
    expect(manifest.capsSource).toBe('mod');
    expect(manifest.revision).toBeGreaterThan(0);
  });

  it('hides tools whose CAPS the mod does not advertise and refuses them before sending anything', async () => {
    stack = await startStack({ sim: { capabilities: ['state', 'entities'] } });
    const manifest = (await stack.client.call('tools')) as Manifest;
    const command = manifest.tools.find((t) => t.name === 'command')!;
    expect(command.available).toBe(false);
    expect(command.missing).toEqual(['command']);
    expect(command.reason).toMatch(/server-vantage mod does not advertise 'command'/);
    const before = stack.sim.received.length;
    const err = await failure(stack.client.call('command', { command: 'kill @e' }));
    expect(err.code).toBe('unsupported_capability');
    expect(err.message).toMatch(/nothing was sent to the game/);
    expect(stack.sim.received.length).toBe(before);
  });

  it('answers bad input with a clear error and keeps serving', async () => {
    stack = await startStack();
    const { client } = stack;
    const unknown = await failure(client.call('frobnicate'));
    expect(unknown.code).toBe('unknown_method');
    expect(unknown.message).toMatch(/frobnicate/);

    const invalid = await failure(client.call('entities', { radius: 'far' }));
    expect(invalid.code).toBe('invalid_params');
    expect(invalid.message).toMatch(/'radius'/);

    const extra = await failure(client.call('state', { verbose: true }));
    expect(extra.code).toBe('invalid_params');

    const raw = await rawConnection(stack.daemon.apiAddress.port);
    raw.send('this is not json');
    expect(await raw.next()).toMatchObject({ type: 'response', id: null, ok: false, code: 'invalid_request' });
    raw.send('[1,2,3]');
    expect(await raw.next()).toMatchObject({ id: null, ok: false, code: 'invalid_request' });
    raw.send(JSON.stringify({ id: 7 }));
    expect(await raw.next()).toMatchObject({ id: 7, ok: false, code: 'invalid_request' });
    raw.send(JSON.stringify({ id: 8, method: 'state', params: [1] }));
    expect(await raw.next()).toMatchObject({ id: 8, ok: false, code: 'invalid_params' });
    raw.send(JSON.stringify({ id: 9, method: 'ping' }));
    expect(await raw.next()).toMatchObject({ id: 9, ok: true, result: { pong: true } });
    raw.close();
    await expect(client.call('state')).resolves.toMatchObject({ type: 'state' });
  });

  it('refuses an oversize request line and keeps the connection', async () => {
    stack = await startStack();
    stack.daemon.api; // the default bound is 16 MiB; send just past it
    const raw = await rawConnection(stack.daemon.apiAddress.port);
    raw.send(Buffer.alloc(16 * 1024 * 1024 + 10, 0x61));
    raw.send('');
    const reply = await raw.next();
    expect(reply).toMatchObject({ ok: false, code: 'invalid_request' });
    expect(String(reply.error)).toMatch(/exceeds/);
    raw.send(JSON.stringify({ id: 1, method: 'ping' }));
    expect(await raw.next()).toMatchObject({ id: 1, ok: true });
    raw.close();
  });

  it('runs requests on one connection concurrently: ping answers while a wait is pending', async () => {
    stack = await startStack();
    const wait = stack.client.call('wait', { ticks: 40 });
    let waited = false;
    void wait.then(() => (waited = true));
    await stack.client.call('ping');
    await stack.client.call('state');
    // Answered while the two-second wait is still pending, not after it.
    expect(waited).toBe(false);
    await wait;
  });

  it('cancels a wait in flight: exactly one response, code cancelled, and the mod connection closes', async () => {
    stack = await startStack();
    const raw = await rawConnection(stack.daemon.apiAddress.port);
    raw.send(JSON.stringify({ id: 'w1', method: 'wait', params: { ticks: 2000 } }));
    await waitUntil(() => stack!.sim.received.includes('WAIT 2000'), 3_000, 'the WAIT to reach the mod');
    const connectionsDuringWait = stack.sim.connections;
    raw.send(JSON.stringify({ id: 'c1', method: 'cancel', params: { id: 'w1' } }));
    const frames = [await raw.next(), await raw.next()];
    const cancelAck = frames.find((f) => f.id === 'c1');
    const waitResponse = frames.find((f) => f.id === 'w1');
    expect(cancelAck).toMatchObject({ ok: true, result: { cancelled: true } });
    expect(waitResponse).toMatchObject({ ok: false, code: 'cancelled' });
    await waitUntil(() => stack!.sim.connections === connectionsDuringWait - 1, 3_000, 'the WAIT connection to close');
    raw.send(JSON.stringify({ id: 'p', method: 'ping' }));
    expect(await raw.next()).toMatchObject({ id: 'p', ok: true });
    raw.close();
  });

  it('a call whose signal is already aborted is refused before anything is sent', async () => {
    stack = await startStack();
    const controller = new AbortController();
    controller.abort();
    const err = await failure(stack.client.call('wait', { ticks: 100 }, { signal: controller.signal }));
    expect(err.code).toBe('cancelled');
    await stack.client.call('state');
    expect(stack.sim.received).not.toContain('WAIT 100');
  });

  it('sends progress frames before the response when asked', async () => {
    stack = await startStack();
    const progress: number[] = [];
    await stack.client.call('wait', { ticks: 70 }, { onProgress: (p) => progress.push(p.progress) });
    // One a second while it runs; none at the end, where the answer follows at once (issue 27).
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.every((p) => p <= 70)).toBe(true);
  });

  it('pushes events to subscribers by category, and not to others', async () => {
    stack = await startStack();
    const watcher = await ApiClient.connect({ port: stack.daemon.apiAddress.port });
    const other = await ApiClient.connect({ port: stack.daemon.apiAddress.port });
    const seen: RecordedEvent[] = [];
    const otherSeen: RecordedEvent[] = [];
    watcher.on('event', (f) => seen.push(f.data));
    other.on('event', (f) => otherSeen.push(f.data));
    expect(await watcher.subscribe(['mark'])).toEqual(['mark']);
    expect(await other.subscribe(['chat'])).toEqual(['chat']);
    await stack.client.call('mark', { text: 'pushed' });
    await waitUntil(() => seen.length === 1, 2_000, 'the pushed mark');
    expect(seen[0]).toMatchObject({ type: 'mark', text: 'pushed', category: 'mark' });
    expect(otherSeen).toEqual([]);
    // An unknown category is ignored, as the predecessor did, and the answer says so.
    expect(await watcher.call('subscribe', { events: ['nonsense'] })).toMatchObject({ subscribed: ['mark'], ignored: ['nonsense'], warning: expect.stringMatching(/nonsense/) });
    const bad = await failure(watcher.call('subscribe', { events: 42 }));
    expect(bad.code).toBe('invalid_params');
    watcher.close();
    other.close();
  });

  it('reports not_connected with the reason when the mod goes away, and recovers when it returns', async () => {
    stack = await startStack();
    stack.sim.hangUp();
    await waitUntil(() => !stack!.daemon.host.link.connected, 2_000, 'the disconnect');
    const page = (await stack.client.call('events', { since: 0, category: 'error' })) as EventPage;
    expect(page.events.some((e) => e.type === 'bridge_disconnected')).toBe(true);
    await waitUntil(() => stack!.daemon.host.link.connected, 5_000, 'the reconnect');
    await expect(stack.client.call('state')).resolves.toMatchObject({ type: 'state' });
  });
});

describe('local API binding and auth', () => {
  it('refuses a non-loopback bind without --allow-remote and a token', async () => {
    await expect(startStack({ daemon: { api: { host: '0.0.0.0' } } })).rejects.toThrow(/refusing to bind the local API to 0\.0\.0\.0/);
    await expect(startStack({ daemon: { api: { host: '0.0.0.0', allowRemote: true } } })).rejects.toThrow(/without a token/);
  });

  it('requires the token on every request when one is set', async () => {
    stack = await startStack({ daemon: { api: { token: 's3cret-but-long-enough' } } });
    await expect(stack.client.call('ping')).resolves.toMatchObject({ pong: true });
    const anonymous = await ApiClient.connect({ port: stack.daemon.apiAddress.port, token: 'wrong' });
    const err = await failure(anonymous.call('state'));
    expect(err.code).toBe('unauthorized');
    anonymous.close();
  });
});

/**
 * What the predecessor's clients and scripts do (docs/compatibility.md), against a real
 * `mcbridge run --sim` process: through a Node re-expression of its LocalApiClient, and through
 * a small Python client written from the same facts when python3 is on the machine. Each check
 * is something such a script relied on; docs/compatibility.md lists where we differ on purpose.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcesses } from '../support/cli-process.js';
import { startDaemonProcess, type DaemonProcess } from '../support/daemon-process.js';
import { LegacyClient } from './legacy-client.js';

const processes = new CliProcesses();
let server: DaemonProcess;
let client: LegacyClient;

beforeAll(async () => {
  server = await startDaemonProcess(processes, ['--sim']);
  client = await LegacyClient.connect(server.port);
}, 60_000);

afterAll(async () => {
  client?.close();
  await processes.stopAll();
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (err: Error) => err.message,
  );
const hasPython = spawnSync('python3', ['--version']).status === 0;

describe('a predecessor script against the daemon process', { timeout: 60_000 }, () => {
  it('call: status and state answer in the predecessor shape', async () => {
    const status = await client.call('status');
    expect(status).toMatchObject({ connected: true, vantage: 'server', instance: 'server', lastError: null });
    expect(status.mod).toMatchObject({ host: '127.0.0.1', port: expect.any(Number), portSource: expect.any(String) });
    expect(status.events).toMatchObject({ buffered: expect.any(Number), lastSeq: expect.any(Number), streamId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(status.capabilities).toEqual([...status.capabilities].sort());
    expect(await client.call('state')).toMatchObject({ type: 'state' });
  });

  it('capabilities: surface.supported / unsupported as names, operations with description and dependency', async () => {
    const caps = await client.call('capabilities');
    expect(caps).toMatchObject({ type: 'capabilities', instance: 'server', modCapabilities: expect.arrayContaining(['state']) });
    const { surface } = caps;
    expect(surface.supported).toEqual(expect.arrayContaining(['status', 'capabilities', 'state', 'entities', 'command', 'command_output', 'events', 'snapshot']));
    expect(surface.unsupported).toEqual(expect.arrayContaining(['chat', 'screen', 'connect', 'world', 'lan', 'record_start', 'record_stop']));
    for (const name of [...surface.supported, ...surface.unsupported]) expect(typeof name).toBe('string');
    const ops = new Map<string, any>(surface.operations.map((op: any) => [op.name, op]));
    for (const op of ops.values()) {
      expect(op).toMatchObject({ name: expect.any(String), description: expect.any(String), requires: expect.any(Array), supported: expect.any(Boolean) });
      expect(op.description).not.toBe('');
    }
    expect(ops.get('chat')).toMatchObject({ supported: false, missing: ['chat'], reason: expect.stringMatching(/server-vantage mod does not advertise 'chat'/) });
    expect(ops.get('chat')).not.toHaveProperty('dependency');
    // Present whether or not the mod supports them (the sim advertises both).
    expect(ops.get('player')).toMatchObject({
      supported: true,
      dependency: 'https://github.com/guajun/mc-agent-interface-mod/issues/1',
      dependencyLabel: 'mc-agent-interface-mod#1 (Expose server-side context for a named player)',
    });
    expect(ops.get('context')).toMatchObject({
      dependency: 'https://github.com/guajun/mc-agent-interface-mod/issues/2',
      dependencyLabel: 'mc-agent-interface-mod#2 (Capture and cache player context with chat events)',
    });
    // Ours, beside it.
    expect(surface.capsSource).toBe('mod');
    expect(surface.hidden.map((h: any) => h.name).sort()).toEqual([...surface.unsupported].sort());
  });

  it('subscribe: pushed frames as the client queue reads them; an unknown category is ignored with a warning', async () => {
    const sub = await LegacyClient.connect(server.port);
    try {
      const answer = await sub.call('subscribe', { events: ['mark', 'sample_done_typo'] });
      expect(answer).toMatchObject({ subscribed: ['mark'], ignored: ['sample_done_typo'] });
      expect(answer.warning).toMatch(/ignored unknown category 'sample_done_typo'/);
      await client.call('mark', { text: 'pushed-1' });
      const frame = await sub.nextEvent();
      expect(frame).toMatchObject({ type: 'event', event: 'mark', data: { type: 'mark', text: 'pushed-1', category: 'mark' } });
      expect(frame.data.eventId).toBe(`${frame.data.streamId}:${frame.data.seq}`);
      expect(await sub.call('unsubscribe', { events: ['mark'] })).toEqual({ subscribed: [] });
    } finally {
      sub.close();
    }
  });

  it('events paging: feeding next back as since returns every event once, with since null to start', async () => {
    const start = (await client.call('events', { since: null, limit: 1 })).next;
    const texts = ['a', 'b', 'c', 'd', 'e'].map((t) => `page-${t}`);
    for (const text of texts) await client.call('mark', { text });
    const seen: string[] = [];
    let since = start;
    for (;;) {
      const page = await client.call('events', { since, limit: '2', category: 'mark' });
      // `dropped` is also true for a page cut by the limit (docs/compatibility.md): not asserted here.
      expect(page).toMatchObject({ evicted: 0, next: expect.any(Number) });
      if (page.events.length === 0) break;
      seen.push(...page.events.map((e: any) => e.text));
      since = page.next;
    }
    expect(seen).toEqual(texts);
  });

  it('params as the predecessor read them: null is the default, numbers and booleans may be text', async () => {
    expect(await client.call('wait', {})).toMatchObject({ type: 'wait_ack', ticks: 0 });
    expect(await client.call('wait', { ticks: '2' })).toMatchObject({ ticks: 2 });
    expect(await client.call('entities', { radius: '16' })).toMatchObject({ type: 'entities' });
    expect(await client.call('entities', { radius: null })).toMatchObject({ type: 'entities' });
    expect((await client.call('events', { since: null, limit: null, category: null })).events.length).toBeGreaterThan(0);
    expect(await client.call('command_output', { command: 'list', wait: 60 })).toMatchObject({ type: 'command_output', waitClamped: { requested: 60, used: 30 } });
  });

  it('what is really wrong stays an error: wrong types, unknown methods and parameters', async () => {
    expect(await failure(client.call('entities', { radius: 'far' }))).toMatch(/invalid params for 'entities': 'radius'/);
    expect(await failure(client.call('wait', { ticks: 'soon' }))).toMatch(/'ticks'/);
    expect(await failure(client.call('wait', { ticks: '2.5' }))).toMatch(/whole number/);
    expect(await failure(client.call('command', { command: null }))).toMatch(/'command'/);
    expect(await failure(client.call('mark', { text: 'x', colour: 'red' }))).toMatch(/colour/);
    expect(await failure(client.call('no_such_method'))).toMatch(/unknown method 'no_such_method'/);
  });

  it('refusal texts: a client-only operation names its token and the vantage', async () => {
    const text = await failure(client.call('chat', { message: 'hi' }));
    expect(text).toMatch(/toolkit operation 'chat' is not available: the connected server-vantage mod does not advertise 'chat'/);
    expect(text).toMatch(/--vantage client/);
    expect(text).toMatch(/nothing was sent to the game/);
  });

  it.skipIf(!hasPython)('a Python LocalApiClient script passes unchanged', () => {
    const script = path.join(import.meta.dirname, 'legacy_script.py');
    const run = spawnSync('python3', [script, String(server.port)], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stdout + run.stderr).toMatch(/^ok$/m);
    expect(run.status).toBe(0);
  });
});

describe('refusal texts on a mod without player and context', { timeout: 60_000 }, () => {
  it('player and context name the mod issue and the predecessor token, and send nothing', async () => {
    const clientVantage = await startDaemonProcess(processes, ['--sim', '--vantage', 'client']);
    const legacy = await LegacyClient.connect(clientVantage.port);
    try {
      const player = await failure(legacy.call('player', { player: 'Alex' }));
      expect(player).toMatch(/^toolkit operation 'player' is not available: requires mc-agent-interface-mod#1 \(Expose server-side context for a named player\); /);
      expect(player).toMatch(/does not advertise 'player' \(or 'player_context'\)/);
      expect(player).toMatch(/The toolkit has no fallback for a missing mod capability, so nothing was sent to the game\.$/);
      const context = await failure(legacy.call('context', { id: 'ctx-1' }));
      expect(context).toMatch(/requires mc-agent-interface-mod#2 \(Capture and cache player context with chat events\)/);
      expect(context).toMatch(/'context_bundle'/);
      const caps = await legacy.call('capabilities');
      expect(caps.surface.unsupported).toEqual(expect.arrayContaining(['player', 'context', 'snapshot']));
      expect(caps.surface.operations.find((op: any) => op.name === 'player')).toMatchObject({ supported: false, dependencyLabel: expect.stringMatching(/^mc-agent-interface-mod#1/) });
    } finally {
      legacy.close();
    }
  });
});

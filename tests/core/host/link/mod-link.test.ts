import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McbridgeError } from '../../../../core/host/errors.js';
import { ModLink, type ModLinkOptions, type ModMessage } from '../../../../core/host/link/mod-link.js';
import { silentLogger } from '../../../../core/util/log.js';
import { waitUntil } from '../../../support/wait-until.js';
import { ScriptedMod, type ScriptedModOptions } from '../../../support/scripted-mod.js';
import { builtinVerbs } from '../../../support/verbs.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(modOptions: ScriptedModOptions = {}, linkOptions: Partial<ModLinkOptions> = {}) {
  const mod = await ScriptedMod.start(modOptions);
  const events: ModMessage[] = [];
  const link = new ModLink({
    vantage: 'server',
    modPort: mod.port,
    reconnectMinMs: 20,
    reconnectMaxMs: 100,
    log: silentLogger(),
    onEvent: (e) => events.push(e),
    verbs: builtinVerbs(),
    ...linkOptions,
  });
  link.start();
  cleanups.push(
    () => mod.stop(),
    () => link.stop(),
  );
  return { mod, link, events };
}

async function ready(link: ModLink) {
  await waitUntil(() => link.connected, 3_000, 'the link to be ready');
}

function errorCode(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (err: McbridgeError) => err.code,
  );
}

describe('ModLink handshake', () => {
  it('records events that arrive before the greeting and then the greeting itself', async () => {
    const { link, events } = await setup({
      preHello: [{ type: 'hello', millis: 1, text: 'mc-agent-interface server started port=1 dir=/x', event: true }],
    });
    await ready(link);
    expect(events[0]).toMatchObject({ type: 'hello', event: true });
    expect(events[1]).toMatchObject({ type: 'hello', mod: 'mc-agent-interface', instance: 'server' });
    expect(events[1]!.event).toBeUndefined();
    expect(link.status().hello).toMatchObject({ type: 'hello', version: '0.8.0' });
  });

  it('takes CAPS from the CAPS reply and normalises them', async () => {
    const { link } = await setup({
      respond: (line) => (line === 'CAPS' ? [{ line: { type: 'capabilities', millis: 1, instance: 'server', capabilities: [' STATE ', 'Player', 'state'] } }] : undefined),
    });
    await ready(link);
    expect([...link.caps!].sort()).toEqual(['player', 'state']);
    expect(link.status().capsSource).toBe('caps');
  });

  it('falls back to the greeting capabilities when CAPS is an error (legacy mod)', async () => {
    const { link } = await setup({
      hello: { capabilities: ['state', 'command'] },
      respond: (line) => (line === 'CAPS' ? [{ line: { type: 'error', millis: 1, message: 'unknown command: CAPS' } }] : undefined),
    });
    await ready(link);
    expect([...link.caps!].sort()).toEqual(['command', 'state']);
    expect(link.status().capsSource).toBe('hello');
  });

  it('treats a mod that advertises nothing anywhere as unknown caps (no filtering)', async () => {
    const { link } = await setup({
      hello: { capabilities: undefined },
      respond: (line) => (line === 'CAPS' ? [{ line: { type: 'error', millis: 1, message: 'unknown command: CAPS' } }] : undefined),
    });
    await ready(link);
    expect(link.caps).toBeNull();
  });

  it('accepts CRLF line endings from a Windows host', async () => {
    const { link } = await setup({ eol: '\r\n' });
    await ready(link);
    const reply = await link.request('STATE');
    expect(reply).toMatchObject({ type: 'state', tick: 1 });
  });

  it('refuses a client-vantage mod when driving the server vantage, and says how to fix it', async () => {
    const { link } = await setup({ hello: { instance: 'client' } });
    await waitUntil(() => link.status().lastError !== null, 3_000, 'an error');
    expect(link.connected).toBe(false);
    expect(link.status().lastError).toMatch(/client vantage.*--vantage client/);
  });

  it('stop() during the handshake returns at once and leaves no connection open', async () => {
    const { link, mod } = await setup({ hello: null }, { helloTimeoutMs: 60_000 });
    await waitUntil(() => mod.connections.length === 1, 2_000, 'the connection');
    // With a 60 s greeting timeout, a stop that waited for it would outlast the test's own timeout.
    await link.stop();
    await waitUntil(() => mod.open === 0, 2_000, 'the connection to close');
  });

  it('gives up on a mod that never greets, and keeps retrying', async () => {
    const { link, mod } = await setup({ hello: null }, { helloTimeoutMs: 100 });
    await waitUntil(() => mod.connections.length >= 2, 3_000, 'a second attempt');
    expect(link.status().lastError).toMatch(/hello greeting within 100 ms/);
  });
});

describe('ModLink reply matching', () => {
  it('discards a reply of the wrong type and hands the request its own', async () => {
    const { link } = await setup({
      respond: (line) => (line === 'STATE' ? [{ line: { type: 'pong', t: 1 } }, { delayMs: 20, line: { type: 'state', millis: 1, tick: 42 } }] : undefined),
    });
    await ready(link);
    await expect(link.request('STATE')).resolves.toMatchObject({ type: 'state', tick: 42 });
    expect(link.stats.strayReplies).toBe(1);
  });

  it('never hands a late reply to the next request: the next one of its type waits until it is discarded', async () => {
    let states = 0;
    const { link, mod } = await setup({
      respond: (line) => (line === 'STATE' ? [{ delayMs: 300, line: { type: 'state', millis: 1, tick: ++states } }] : undefined),
    });
    await ready(link);
    expect(await errorCode(link.request('STATE', { timeoutMs: 50 }))).toBe('timeout');
    // The first STATE's reply is owed: a PING overtakes it (a pong cannot be taken for a state),
    // and the next STATE goes out only once the late state has come and been discarded.
    const pong = await link.request('PING');
    expect(pong.type).toBe('pong');
    await expect(link.request('STATE')).resolves.toMatchObject({ type: 'state', tick: 2 });
    expect(link.stats.lateReplies).toBe(1);
    expect(mod.connections[0]!.received.slice(-3)).toEqual(['STATE', 'PING', 'STATE']);
  });

  it('never hands a late error reply to the next request', async () => {
    const { link } = await setup({
      respond: (line) => (line === 'CMD slow' ? [{ delayMs: 200, line: { type: 'error', millis: 1, message: 'task failed: boom' } }] : undefined),
    });
    await ready(link);
    expect(await errorCode(link.request('CMD slow', { timeoutMs: 30 }))).toBe('timeout');
    await expect(link.request('STATE')).resolves.toMatchObject({ type: 'state' });
  });

  it('resets the connection when an owed reply never comes, and serves the next request on a new one', async () => {
    const { link, mod, events } = await setup({ respond: (line) => (line === 'STATE' && mod.connections.length === 1 ? [] : undefined) }, { owedGraceMs: 100 });
    await ready(link);
    expect(await errorCode(link.request('STATE', { timeoutMs: 30 }))).toBe('timeout');
    await waitUntil(() => mod.connections.length === 2 && link.connected, 3_000, 'a fresh connection');
    await expect(link.request('STATE')).resolves.toMatchObject({ type: 'state' });
    expect(events.some((e) => e.type === 'bridge_disconnected')).toBe(true);
  });

  it('a cancelled in-flight request leaves its reply owed, like a timeout', async () => {
    let states = 0;
    const { link, mod } = await setup({
      respond: (line) => (line === 'STATE' ? [{ delayMs: 150, line: { type: 'state', millis: 1, tick: ++states } }] : undefined),
    });
    await ready(link);
    const controller = new AbortController();
    const pending = errorCode(link.request('STATE', { signal: controller.signal }));
    await waitUntil(() => mod.received.includes('STATE'), 2_000, 'STATE at the mod');
    controller.abort();
    expect(await pending).toBe('cancelled');
    await expect(link.request('STATE')).resolves.toMatchObject({ type: 'state', tick: 2 });
    expect(link.stats.lateReplies).toBe(1);
  });

  it('a request cancelled while queued is never sent', async () => {
    const { link, mod } = await setup({
      respond: (line) => (line === 'STATE' ? [{ delayMs: 100, line: { type: 'state', millis: 1, tick: 1 } }] : undefined),
    });
    await ready(link);
    const first = link.request('STATE');
    const controller = new AbortController();
    // A server-thread verb waits behind the one out (a reader-thread verb such as MARK would overtake it).
    const second = errorCode(link.request('ENTITIES never', { signal: controller.signal }));
    expect(link.status().queued).toBe(1);
    controller.abort();
    expect(await second).toBe('cancelled');
    await first;
    expect(mod.received).not.toContain('ENTITIES never');
  });

  it('surfaces a mod error reply as mod_error with the mod message', async () => {
    const { link } = await setup();
    await ready(link);
    const err = await link.request('FREEZE').catch((e: McbridgeError) => e);
    expect(err).toBeInstanceOf(McbridgeError);
    expect((err as McbridgeError).code).toBe('mod_error');
    expect((err as McbridgeError).message).toBe('unknown command: FREEZE');
  });

  it('refuses multi-line requests before sending anything', async () => {
    const { link, mod } = await setup();
    await ready(link);
    expect(await errorCode(link.request('CMD say a\nSTATE'))).toBe('invalid_params');
    expect(mod.received).toEqual(['CAPS']);
  });

  it('discards an oversize line, and the link keeps working', async () => {
    const { link } = await setup({ respond: (line) => (line === 'STATE' ? [{ line: 'x'.repeat(5000) }, { line: { type: 'state', millis: 1, tick: 3 } }] : undefined) }, { maxLineBytes: 1024 });
    await ready(link);
    await expect(link.request('STATE')).resolves.toMatchObject({ tick: 3 });
    expect(link.stats.badLines).toBe(1);
  });

  it('routes every event:true line to events, including a second hello', async () => {
    const { link, mod, events } = await setup();
    await ready(link);
    mod.broadcast({ type: 'chat', millis: 1, text: 'hi', sender: 'Steve', event: true });
    mod.broadcast({ type: 'hello', millis: 1, text: 'started', event: true });
    await waitUntil(() => events.length >= 3, 2_000, 'two events');
    expect(events.slice(-2).map((e) => e.type)).toEqual(['chat', 'hello']);
    await expect(link.request('STATE')).resolves.toMatchObject({ type: 'state' });
  });
});

describe('ModLink blocking verbs', () => {
  it('runs WAIT on a connection of its own: other calls are not held up', async () => {
    const { link, mod } = await setup();
    await ready(link);
    const wait = link.request('WAIT 20'); // 1 s in the scripted mod
    await waitUntil(() => mod.connections.length === 2, 2_000, 'a side connection');
    let waited = false;
    void wait.then(() => (waited = true));
    await link.request('STATE');
    // Answered while the WAIT is still pending on its own connection, not after it.
    expect(waited).toBe(false);
    await expect(wait).resolves.toMatchObject({ type: 'wait_ack' });
    expect(mod.connections[1]!.received).toEqual(['WAIT 20']);
    await waitUntil(() => mod.connections[1]!.socket.destroyed, 2_000, 'the side connection to close');
  });

  it('a cancelled WAIT closes its connection and leaves no stale ack for the next WAIT', async () => {
    const { link, mod } = await setup({
      respond: (line, conn) => {
        if (!line.startsWith('WAIT')) return undefined;
        const n = Number(line.split(' ')[1]);
        // The first WAIT would answer late, after the second one was sent.
        return [{ delayMs: n === 100 ? 400 : 100, line: { type: 'wait_ack', millis: Date.now(), detail: 'ticks=0', conn: mod.connections.indexOf(conn) } }];
      },
    });
    await ready(link);
    const controller = new AbortController();
    const first = errorCode(link.request('WAIT 100', { signal: controller.signal }));
    await waitUntil(() => mod.connections.length === 2, 2_000, 'the first side connection');
    controller.abort();
    expect(await first).toBe('cancelled');
    await waitUntil(() => mod.connections[1]!.socket.destroyed, 2_000, 'the cancelled WAIT connection to close');
    const second = await link.request('WAIT 5');
    expect(second.conn).toBe(2);
  });

  it('stop() ends a pending WAIT at once and closes its connection', async () => {
    const { link, mod } = await setup();
    await ready(link);
    const wait = errorCode(link.request('WAIT 2000'));
    await waitUntil(() => mod.connections.length === 2, 2_000, 'the side connection');
    await link.stop();
    expect(await wait).toBe('unavailable');
    await waitUntil(() => mod.open === 0, 2_000, 'every connection to close');
  });

  it('WAIT 0 answers on the main connection', async () => {
    const { link, mod } = await setup({ respond: (line) => (line === 'WAIT 0' ? [{ line: { type: 'wait_ack', millis: 1, detail: 'ticks=0' } }] : undefined) });
    await ready(link);
    await link.request('WAIT 0');
    expect(mod.connections).toHaveLength(1);
  });
});

describe('ModLink connection loss', () => {
  it('fails the in-flight request with not_connected, records bridge_disconnected, reconnects', async () => {
    const { link, mod, events } = await setup({ respond: (line) => (line === 'STATE' ? [] : undefined) });
    await ready(link);
    const pending = link.request('STATE').catch((e: McbridgeError) => e);
    await waitUntil(() => mod.received.includes('STATE'), 2_000, 'STATE to arrive');
    mod.hangUp();
    const err = (await pending) as McbridgeError;
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(/closed while waiting for the reply to 'STATE'/);
    expect(events.some((e) => e.type === 'bridge_disconnected')).toBe(true);
    await waitUntil(() => link.connected && mod.connections.length === 2, 3_000, 'a reconnect');
  });

  it('fails fast with not_connected when no mod is there, naming the last error', async () => {
    const { link, mod } = await setup();
    await ready(link);
    await mod.stop();
    await waitUntil(() => !link.connected, 2_000, 'the link to notice');
    const err = (await link.request('STATE').catch((e) => e)) as McbridgeError;
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(/not connected/);
    expect(err.message).toMatch(/mcbridge discover/);
  });

  it('follows the port file when the mod restarts on another port', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcbridge-link-'));
    mkdirSync(path.join(dir, 'mc-agent-server'));
    const first = await ScriptedMod.start();
    writeFileSync(path.join(dir, 'mc-agent-server', 'port.txt'), String(first.port));
    const events: ModMessage[] = [];
    const link = new ModLink({ vantage: 'server', serverDir: dir, reconnectMinMs: 20, reconnectMaxMs: 100, log: silentLogger(), onEvent: (e) => events.push(e) });
    link.start();
    cleanups.push(
      () => link.stop(),
      () => first.stop(),
    );
    await ready(link);
    expect(link.status().mod.port).toBe(first.port);

    const second = await ScriptedMod.start();
    cleanups.push(() => second.stop());
    writeFileSync(path.join(dir, 'mc-agent-server', 'port.txt'), String(second.port));
    await first.stop();
    await waitUntil(() => link.connected && link.status().mod.port === second.port, 5_000, 'the link to follow the new port');
    expect(link.status().mod.portSource).toBe(`port-file:${path.join(dir, 'mc-agent-server', 'port.txt')}`);
  });

  it('reports the discovery error while no port file exists, then connects when it appears', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcbridge-link-'));
    const link = new ModLink({ vantage: 'server', cwd: dir, env: {}, reconnectMinMs: 20, reconnectMaxMs: 50, log: silentLogger(), onEvent: () => {} });
    link.start();
    cleanups.push(() => link.stop());
    await waitUntil(() => link.status().lastError !== null, 2_000, 'a discovery error');
    expect(link.status().lastError).toMatch(/cannot find the server-vantage port file/);
    expect(link.status().state).toBe('discovering');
    const mod = await ScriptedMod.start();
    cleanups.push(() => mod.stop());
    mkdirSync(path.join(dir, 'mc-agent-server'));
    writeFileSync(path.join(dir, 'mc-agent-server', 'port.txt'), String(mod.port));
    await ready(link);
    expect(link.status().lastError).toBeNull();
  });
});

/**
 * The greeting and the CAPS negotiation (handshake.ts): what a mod must say first, and what a
 * request made while the link negotiates gets.
 */
import { getEventListeners, once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { McbridgeError } from '../../../../core/host/errors.js';
import { ModLink, type ModLinkOptions } from '../../../../core/host/link/mod-link.js';
import { silentLogger } from '../../../../core/util/log.js';
import { failure } from '../../../support/errors.js';
import { Gate, ScriptedMod, SERVER_HELLO, type ScriptedConnection, type ScriptedModOptions } from '../../../support/scripted-mod.js';
import { builtinVerbs } from '../../../support/verbs.js';
import { waitUntil } from '../../../support/wait-until.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A link to a scripted mod, started but not awaited: these tests watch it get ready, or not. */
async function dial(modOptions: ScriptedModOptions, linkOptions: Partial<ModLinkOptions> = {}) {
  const mod = await ScriptedMod.start(modOptions);
  const link = new ModLink({
    vantage: 'server',
    modPort: mod.port,
    verbs: builtinVerbs(),
    log: silentLogger(),
    onEvent: () => {},
    reconnectMinMs: 20,
    reconnectMaxMs: 50,
    ...linkOptions,
  });
  cleanups.push(
    () => mod.stop(),
    () => link.stop(),
  );
  link.start();
  return { mod, link };
}

/** A mod whose answer to the handshake's CAPS waits for the test. */
async function negotiating() {
  const caps = new Gate();
  let capsConn: ScriptedConnection | undefined;
  const { mod, link } = await dial({
    respond: (line, conn) => {
      if (line !== 'CAPS') return undefined;
      capsConn = conn;
      return caps.hold(conn, { type: 'capabilities', millis: 1, instance: 'server', capabilities: SERVER_HELLO.capabilities });
    },
  });
  await caps.untilHeld(1);
  expect(link.status().state).toBe('negotiating');
  return { mod, link, caps, conn: () => capsConn! };
}

describe('the greeting', () => {
  it('must be a hello: a mod that says something else first is refused, naming what it said', async () => {
    const { link } = await dial({ hello: null, respond: () => undefined, preHello: [{ type: 'state', tick: 1 }] });
    await waitUntil(() => link.status().lastError !== null, 5_000, 'an error');
    expect(link.connected).toBe(false);
    expect(link.status().lastError).toMatch(/the first line on port \d+ was not a hello greeting: \{"type":"state","tick":1\}/);
  });

  it('from a server mod, when driving the client vantage, is refused with the way back', async () => {
    const { link } = await dial({}, { vantage: 'client' });
    await waitUntil(() => link.status().lastError !== null, 5_000, 'an error');
    expect(link.connected).toBe(false);
    expect(link.status().lastError).toMatch(/is the server vantage but this daemon drives the client vantage; drop --vantage client to drive the server/);
  });

  it('from a client mod, when driving the server vantage, is refused with the way to drive it', async () => {
    const { link } = await dial({ hello: { instance: 'client' } });
    await waitUntil(() => link.status().lastError !== null, 5_000, 'an error');
    expect(link.connected).toBe(false);
    expect(link.status().lastError).toMatch(/is the client vantage but this daemon drives the server vantage; pass --vantage client to drive a client explicitly/);
  });

  it('quotes at most 200 characters of a first line that is not a hello', async () => {
    const said = { type: 'state', text: 'x'.repeat(300) };
    const { link } = await dial({ hello: null, respond: () => undefined, preHello: [said] });
    await waitUntil(() => link.status().lastError !== null, 5_000, 'an error');
    expect(link.status().lastError).toMatch(/was not a hello greeting: (.*)$/);
    expect(link.status().lastError!.split('was not a hello greeting: ')[1]).toBe(JSON.stringify(said).slice(0, 200));
  });

  it('never coming because the mod hangs up says so', async () => {
    const { mod, link } = await dial({ hello: null, respond: () => undefined }, { reconnectMinMs: 60_000, reconnectMaxMs: 60_000 });
    await waitUntil(() => mod.connections.length === 1, 5_000, 'the connection');
    mod.connections[0]!.socket.end();
    await waitUntil(() => link.status().lastError !== null, 5_000, 'an error');
    expect(link.status().lastError).toMatch(/^cannot reach interface mod on 127\.0\.0\.1:\d+: connection closed before the greeting$/);
  });

  it('never coming because the connection is reset names the socket error', async () => {
    const { mod, link } = await dial({ hello: null, respond: () => undefined }, { reconnectMinMs: 60_000, reconnectMaxMs: 60_000 });
    await waitUntil(() => mod.connections.length === 1, 5_000, 'the connection');
    mod.connections[0]!.socket.resetAndDestroy();
    await waitUntil(() => link.status().lastError !== null, 5_000, 'an error');
    expect(link.status().lastError).toMatch(/: connection closed before the greeting \(.*ECONNRESET.*\)$/);
  });

  it('naming no instance is accepted as the vantage asked for', async () => {
    const { link } = await dial({ hello: { instance: undefined } });
    await waitUntil(() => link.connected, 5_000, 'the link');
    expect(link.status().instance).toBe('server'); // from the CAPS reply
    expect(link.status().hello).not.toHaveProperty('instance');
  });
});

describe('a stop while the link greets the mod', () => {
  it('closes a connection that opens after the stop, without waiting for a hello', async () => {
    // No hello ever: a link that waited for one would hold stop() for the whole hello timeout.
    const mod = await ScriptedMod.start({ hello: null, respond: () => undefined });
    cleanups.push(() => mod.stop());
    const link = new ModLink({ vantage: 'server', modPort: mod.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: () => {}, helloTimeoutMs: 60_000 });
    link.start(); // the TCP connect is now under way
    await link.stop();
    await waitUntil(() => mod.connections.length === 1 && mod.open === 0, 5_000, 'the connection to be opened and closed');
    expect(link.status().stats.connections).toBe(0);
  });

  it('does not take up a greeting that arrives with the stop', async () => {
    // One write: an event the test answers by stopping the link, then the hello behind it.
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.write(`${JSON.stringify({ event: true, type: 'chat', text: 'hi' })}\n${JSON.stringify(SERVER_HELLO)}\n`);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const seen: string[] = [];
    let stopped: Promise<void> | undefined;
    const link: ModLink = new ModLink({
      vantage: 'server',
      modPort: (server.address() as net.AddressInfo).port,
      verbs: builtinVerbs(),
      log: silentLogger(),
      onEvent: (event) => {
        seen.push(String(event.type));
        stopped ??= link.stop();
      },
    });
    link.start();
    await waitUntil(() => stopped !== undefined, 5_000, 'the event');
    await stopped;
    expect(seen).toEqual(['chat']);
    expect(link.status().stats.connections).toBe(0);
  });
});

describe('a request made while the link negotiates CAPS', () => {
  it('waits, and is sent once the link is ready', async () => {
    const { link, caps, mod } = await negotiating();
    const state = link.request('STATE');
    expect(mod.received).toEqual(['CAPS']);
    caps.release();
    await expect(state).resolves.toMatchObject({ type: 'state' });
    expect(mod.received).toEqual(['CAPS', 'STATE']);
  });

  it('leaves no listener behind on the link or on its signal once sent', async () => {
    const { link, caps } = await negotiating();
    const signal = new AbortController().signal;
    const state = link.request('STATE', { signal });
    expect(link.listenerCount('state')).toBe(1);
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    caps.release();
    await state;
    expect(link.listenerCount('state')).toBe(0);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('is cancelled by its signal', async () => {
    const { link } = await negotiating();
    const cancel = new AbortController();
    const state = failure(link.request('STATE', { signal: cancel.signal }));
    cancel.abort();
    expect(await state).toMatchObject({ code: 'cancelled', message: "the request 'STATE' was cancelled" });
    expect(link.listenerCount('state')).toBe(0);
  });

  it('on a connection of its own, cancelled just as the link gets ready, is never sent nor counted', async () => {
    const { link, caps, mod } = await negotiating();
    const cancel = new AbortController();
    const wait = failure(link.request('WAIT 5', { signal: cancel.signal }));
    // Registered after the request's own listener: it aborts once the request has been let go.
    link.on('state', (state) => {
      if (state === 'ready') cancel.abort();
    });
    caps.release();
    expect(await wait).toMatchObject({ code: 'cancelled' });
    expect(link.stats.sideRequests).toBe(0);
    expect(mod.received).toEqual(['CAPS']);
  });

  it('fails with not_connected when the connection closes instead', async () => {
    const { link, conn } = await negotiating();
    // The link state when it fails: at once on the close, not once a later connection negotiates.
    const state = link.request('STATE').then(
      () => null,
      (err: McbridgeError) => ({ code: err.code, linkState: link.status().state }),
    );
    conn().socket.destroy();
    expect(await state).toEqual({ code: 'not_connected', linkState: 'connecting' });
  });
});

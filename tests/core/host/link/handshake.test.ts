/**
 * The greeting and the CAPS negotiation (handshake.ts): what a mod must say first, and what a
 * request made while the link negotiates gets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { McbridgeError } from '../../../../core/host/errors.js';
import { ModLink, type ModLinkOptions } from '../../../../core/host/link/mod-link.js';
import { silentLogger } from '../../../../core/util/log.js';
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
    vantage: 'server', modPort: mod.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: () => {}, reconnectMinMs: 20, reconnectMaxMs: 50, ...linkOptions,
  });
  cleanups.push(() => mod.stop(), () => link.stop());
  link.start();
  return { mod, link };
}

const failure = (promise: Promise<unknown>) => promise.then(() => null, (err: McbridgeError) => err);

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

  it('naming no instance is accepted as the vantage asked for', async () => {
    const { link } = await dial({ hello: { instance: undefined } });
    await waitUntil(() => link.connected, 5_000, 'the link');
    expect(link.status().instance).toBe('server'); // from the CAPS reply
    expect(link.status().hello).not.toHaveProperty('instance');
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

  it('is cancelled by its signal', async () => {
    const { link } = await negotiating();
    const cancel = new AbortController();
    const state = failure(link.request('STATE', { signal: cancel.signal }));
    cancel.abort();
    expect(await state).toMatchObject({ code: 'cancelled', message: "the request 'STATE' was cancelled" });
  });

  it('fails with not_connected when the connection closes instead', async () => {
    const { link, conn } = await negotiating();
    const state = failure(link.request('STATE'));
    conn().socket.destroy();
    expect(await state).toMatchObject({ code: 'not_connected' });
  });
});

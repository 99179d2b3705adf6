/**
 * The control link's own surface, word for word (issue 35, "Test strength"): what its constructor
 * refuses, what a request is refused before anything is sent, what `status` and `capsInfo` say
 * before, during and after a session, and the events and log lines a session's end leaves. A
 * ControlLink against a hostile server of the test's making (tests/support/hostile-control.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ControlLink, type ControlLinkOptions } from '../../../../../core/host/link/control/control-link.js';
import { encodeFrame } from '../../../../../core/host/link/control/frames.js';
import type { VerbSpec } from '../../../../../core/host/link/verbs.js';
import { failure } from '../../../../support/errors.js';
import { answering, capturingLog, hostileFixture, TOKEN, WELCOME } from '../../../../support/hostile-control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const fixture = hostileFixture();
const links: ControlLink[] = [];
afterEach(async () => {
  for (const link of links.splice(0)) await link.stop();
});

type Event = Record<string, unknown>;
const VERBS: Record<string, VerbSpec> = {
  MARK: { replies: ['mark_ack'], requires: ['mark'], write: true, control: { op: 'mark' } },
  STATE: { replies: ['state'], requires: ['state'], control: { op: 'state' } },
  BOTH: { replies: ['x'], requires: ['mark', 'chat'], control: { op: 'both' } },
  LEGACYONLY: { replies: ['x'] },
};

function linkOf(options: Partial<ControlLinkOptions> & { address: string }, events: Event[] = []): ControlLink {
  const link = new ControlLink({
    vantage: 'server',
    pin: 'ab'.repeat(32),
    token: TOKEN,
    reconnectMinMs: 50,
    reconnectMaxMs: 100,
    log: capturingLog().log,
    verbs: (verb) => VERBS[verb],
    onEvent: (event) => events.push(event),
    ...options,
  });
  links.push(link);
  return link;
}

async function connected(welcome: Record<string, unknown> = WELCOME, options: Partial<ControlLinkOptions> = {}) {
  const server = await fixture.server({ hello: (s) => s.write(encodeFrame(welcome)), frame: answering(() => ({ type: 'mark_ack' })) });
  const events: Event[] = [];
  const { log, lines } = capturingLog();
  const link = linkOf({ address: server.address, pin: server.pin, log, ...options }, events);
  link.start();
  await waitUntil(() => link.connected, 5_000, 'the session');
  return { server, link, events, lines };
}

describe('a control link refuses to be made', () => {
  it('without an address of host:port, a way to verify the server, or a credential, each said', () => {
    const base = { vantage: 'server' as const, log: capturingLog().log, onEvent: () => {} };
    expect(() => new ControlLink({ ...base, address: 'mc.example.org', pin: 'x', token: TOKEN })).toThrow(
      expect.objectContaining({ code: 'invalid_params', message: "address 'mc.example.org' is not host:port (e.g. mc.example.org:25565, or [::1]:25565)" }),
    );
    expect(() => new ControlLink({ ...base, address: 'h:1', token: TOKEN })).toThrow(
      expect.objectContaining({
        code: 'invalid_params',
        message: 'a control target needs the server verified: give pin (sha256:…), caFile, or serverDir (whose control/fingerprint.txt is read)',
      }),
    );
    expect(() => new ControlLink({ ...base, address: 'h:1', pin: 'x' })).toThrow(
      expect.objectContaining({ code: 'invalid_params', message: 'a control target needs a credential: tokenFile or tokenEnv' }),
    );
    // Each way to verify is enough on its own.
    for (const trust of [{ pin: 'x' }, { caFile: '/nowhere.crt' }, { serverDir: '/nowhere' }]) expect(() => new ControlLink({ ...base, address: 'h:1', token: TOKEN, ...trust })).not.toThrow();
  });
});

describe('before a session', () => {
  it('status says the address, the trust, the credential, and nothing of a session', () => {
    const link = linkOf({ address: '[::1]:25599', vantage: 'client', serverDir: '/srv/mc', pin: undefined });
    expect(link.vantage).toBe('client');
    expect(link.serverDir).toBe('/srv/mc');
    expect(link.caps).toBeNull();
    expect(link.permissions).toBeNull();
    expect(link.connected).toBe(false);
    expect(link.capsInfo()).toEqual({ connected: false, capsSource: null, instance: null, minecraft: null });
    const status = link.status();
    expect(status).toMatchObject({
      transport: 'control',
      state: 'idle',
      connected: false,
      vantage: 'client',
      instance: null,
      mod: { host: '::1', port: 25599, portSource: 'address' },
      discovery: null,
      hello: null,
      capabilities: null,
      capsSource: null,
      lastError: null,
      connectedAt: null,
      inFlight: [],
      queued: 0,
      owed: [],
      doubleAnswering: false,
    });
    expect(status.control).toMatchObject({
      address: '[::1]:25599',
      trust: 'pin from /srv/mc',
      credential: 'given',
      permissions: null,
      instanceId: null,
      runId: null,
      sessionId: null,
      limits: null,
      lastSeq: 0,
      // The keep-alive of the default 300 s idle time; no session, so no silence measured.
      liveness: { pingMs: 15_000, deadMs: 25_000, silentSessions: 0, pings: 0, silentMs: null },
      events: { events: 0, replayed: 0, duplicates: 0, lost: 0, gaps: 0, runChanges: 0, badEnvelopes: 0 },
      writes: { tracked: 0, unknown: 0, bytes: 0 },
    });
    expect(linkOf({ address: 'h:1' }).serverDir).toBeNull();
    expect(linkOf({ address: 'h:1' }).status().control).toMatchObject({ trust: 'pin' });
    expect(linkOf({ address: 'h:1', caFile: '/ca.crt', pin: undefined, token: undefined, tokenEnv: 'MC_TOKEN' }).status().control).toMatchObject({
      trust: 'caFile /ca.crt',
      credential: 'env MC_TOKEN',
    });
    // A CA file wins over a pin given beside it: the status says what the connect uses.
    expect(linkOf({ address: 'h:1', caFile: '/ca.crt' }).status().control).toMatchObject({ trust: 'caFile /ca.crt' });
  });

  it('a request is refused as not connected, with the last error said as none yet', async () => {
    const link = linkOf({ address: '127.0.0.1:1' });
    const err = await failure(link.request('PING'));
    expect(err.code).toBe('not_connected');
    expect(err.message).toBe('the control listener on 127.0.0.1:1 is not connected (last error: none yet; still connecting). Check it with `mcbridge status`');
    expect(err.details).toEqual({ state: 'idle', lastError: null });
  });

  it('an empty line, a line with a break, and a verb with no control form are refused, nothing sent', async () => {
    const link = linkOf({ address: '127.0.0.1:1' });
    expect(await failure(link.request('   '))).toMatchObject({ code: 'invalid_params', message: 'a mod request needs a verb, e.g. "PING"' });
    for (const line of ['PING a\nb', 'PING a\rb']) {
      expect(await failure(link.request(line))).toMatchObject({ code: 'invalid_params', message: 'a mod request must be a single line: remove the line breaks from its arguments' });
    }
    const none = await failure(link.request('  LEGACYONLY now '));
    expect(none).toMatchObject({
      code: 'unsupported_capability',
      message: "'LEGACYONLY now' has no form in the mod's control protocol (it needs the legacy link, or the world's disk), so nothing was sent to the server at 127.0.0.1:1",
      details: { request: 'LEGACYONLY now', transport: 'control' },
    });
    const aborted = new AbortController();
    aborted.abort();
    expect(await failure(link.request('PING', { signal: aborted.signal }))).toMatchObject({ code: 'cancelled' });
    expect(link.status().stats.requests).toBe(0);
  });

  it('after a stop, a request says the daemon is shutting down', async () => {
    const link = linkOf({ address: '127.0.0.1:1' });
    await link.stop();
    expect(await failure(link.request('PING'))).toMatchObject({ code: 'unavailable', message: 'the daemon is shutting down' });
    expect(link.status().state).toBe('stopped');
  });
});

describe('during a session', () => {
  it('status and capsInfo carry the welcome: permissions, ids, limits, caps sorted', async () => {
    const welcome = { ...WELCOME, minecraft: '1.21.4', sessionId: 'sess_1', capabilities: ['state', 'mark', 'chat'], limits: { maxFrameBytes: 4096, idleSeconds: 60 } };
    const before = Date.now();
    const { link, lines } = await connected(welcome);
    expect(link.caps).toEqual(new Set(['state', 'mark', 'chat']));
    expect(link.permissions).toEqual(['read', 'write']);
    expect(link.capsInfo()).toEqual({ connected: true, capsSource: 'hello', instance: 'server', minecraft: '1.21.4' });
    const status = link.status();
    expect(status).toMatchObject({ state: 'ready', connected: true, instance: 'server', capabilities: ['chat', 'mark', 'state'], capsSource: 'hello', lastError: null });
    expect(status.connectedAt).toBeGreaterThanOrEqual(before);
    expect(status.control).toMatchObject({
      permissions: ['read', 'write'],
      instanceId: 'inst_x',
      runId: 'run_x',
      sessionId: 'sess_1',
      limits: { maxFrameBytes: 4096, maxPendingRequests: 32, requestTimeoutMillis: 30_000, idleSeconds: 60 },
      liveness: { pingMs: 15_000, deadMs: 25_000, silentSessions: 0, pings: 0 },
    });
    expect(status.stats.connections).toBe(1);
    expect(lines).toContain(`connected to the control listener on ${link.status().control!.address as string} (run run_x, read+write permissions)`);
  });

  it('a credential with no permissions: a read is refused naming none, nothing sent', async () => {
    const { link, server } = await connected({ ...WELCOME, permissions: [] });
    const err = await failure(link.request('STATE'));
    expect(err).toMatchObject({
      code: 'forbidden',
      message:
        "'STATE' needs the read permission, and this target's credential (given) has none; nothing was sent. Mint one with read on the server console (/mcagent control token add <label> read+write)",
      details: { request: 'STATE', permissions: [] },
    });
    const write = await failure(link.request('MARK x', { requestId: 'm-1' }));
    expect(write.message).toMatch(/^'MARK x' needs the write permission, and this target's credential \(given\) has none; nothing was sent\. Mint one with write /);
    expect(server.frames).toEqual([]);
  });

  it('a write the read-only credential may not send names the permissions it has', async () => {
    const { link } = await connected({ ...WELCOME, permissions: ['read', 'admin'], capabilities: ['mark'] });
    const err = await failure(link.request('MARK x', { requestId: 'm-1' }));
    expect(err.message).toMatch(/^'MARK x' needs the write permission, and this target's credential \(given\) has read, admin; nothing was sent/);
    expect(err.details).toEqual({ request: 'MARK x', permissions: ['read', 'admin'] });
  });

  it('a verb the server does not advertise is refused naming what is missing; one it does goes', async () => {
    const { link, server } = await connected({ ...WELCOME, capabilities: ['state'] });
    const err = await failure(link.request('MARK hello', { requestId: 'm-1' }));
    expect(err).toMatchObject({
      code: 'unsupported_capability',
      message: "'MARK hello' needs 'mark', which the server does not advertise, so nothing was sent",
      details: { request: 'MARK hello', missing: ['mark'] },
    });
    expect(server.frames).toEqual([]);
    expect((await failure(link.request('BOTH'))).message).toBe("'BOTH' needs 'mark', 'chat', which the server does not advertise, so nothing was sent");
    await link.request('STATE');
    expect(server.frames.map((f) => [f.op, f.params])).toEqual([['state', {}]]);
    expect(link.status().stats.requests).toBe(1);
  });

  it('the request sent carries the caller timeout, and its op and params', async () => {
    const { link, server } = await connected({ ...WELCOME, capabilities: ['mark'] });
    await link.request('MARK hi', { requestId: 'm-9', timeoutMs: 4_000 });
    const frame = server.frames.find((f) => f.op === 'mark')!;
    expect(frame).toMatchObject({ type: 'request', id: 'm-9', op: 'mark', params: {} });
    expect(frame.timeoutMillis).toBeGreaterThan(3_000);
    expect(frame.timeoutMillis).toBeLessThanOrEqual(4_000);
  });
});

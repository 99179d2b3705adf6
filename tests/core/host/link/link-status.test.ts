import { describe, expect, it } from 'vitest';
import { ModLink, type LinkState } from '../../../../core/host/link/mod-link.js';
import { silentLogger } from '../../../../core/util/log.js';
import { failure } from '../../../support/errors.js';
import { freePort } from '../../../support/helpers.js';
import { ScriptedMod, SERVER_HELLO } from '../../../support/scripted-mod.js';
import { useScriptedLinks } from '../../../support/scripted-link.js';
import { builtinVerbs } from '../../../support/verbs.js';
import { waitUntil } from '../../../support/wait-until.js';

/**
 * What a ModLink tells about itself (status, capsInfo, its events) and how it refuses a request
 * it cannot send: the daemon's `status`, `doctor` and the CAPS filter read these.
 */
const startLink = useScriptedLinks();

describe('ModLink status', () => {
  it('describes a ready link in full', async () => {
    const before = Date.now();
    const { link, mod } = await startLink();
    const status = link.status();
    expect(status).toMatchObject({
      state: 'ready',
      connected: true,
      vantage: 'server',
      instance: 'server',
      mod: { host: '127.0.0.1', port: mod.port, portSource: 'argument' },
      discovery: { resolved: true, port: mod.port, source: 'argument' },
      hello: { type: 'hello', version: '0.8.0', minecraft: '26.2' },
      capabilities: [...SERVER_HELLO.capabilities].sort(),
      capsSource: 'caps',
      lastError: null,
    });
    expect(status.connectedAt).toBeGreaterThanOrEqual(before);
    expect(status.connectedAt).toBeLessThanOrEqual(Date.now());
    expect(status.stats.connections).toBe(1);
    expect(link.capsInfo()).toEqual({ connected: true, capsSource: 'caps', instance: 'server', minecraft: '26.2' });
    expect([...link.caps!].sort()).toEqual(status.capabilities);
    // A copy: changing what status() answered does not change the link.
    status.stats.requests = 99;
    expect(link.status().stats.requests).not.toBe(99);
  });

  it('counts the requests it sends, not the CAPS it negotiates', async () => {
    const { link } = await startLink();
    expect(link.status().stats.requests).toBe(0);
    await link.request('STATE');
    await link.request('PING');
    expect(link.status().stats.requests).toBe(2);
  });

  it('knows nothing before it starts, and says a link that never started is idle', () => {
    const link = new ModLink({ vantage: 'client', modPort: 1, log: silentLogger(), onEvent: () => {} });
    expect(link.capsInfo()).toEqual({ connected: false, capsSource: null, instance: null, minecraft: null });
    expect(link.status()).toMatchObject({ state: 'idle', connected: false, vantage: 'client', instance: null, hello: null, capabilities: null, capsSource: null, connectedAt: null, discovery: null });
    expect(link.vantage).toBe('client');
  });

  it('a minecraft version that is not a string is none', async () => {
    const { link } = await startLink({ hello: { ...SERVER_HELLO, minecraft: 262 } });
    expect(link.capsInfo().minecraft).toBeNull();
  });

  it('goes connecting → negotiating → ready when the mod comes back, and keeps the greeting once stopped', async () => {
    const { link, mod } = await startLink();
    const states: LinkState[] = [];
    link.on('state', (s: LinkState) => states.push(s));
    mod.hangUp();
    await waitUntil(() => states.includes('ready'), 5_000, 'the link to come back');
    expect(states).toEqual(['connecting', 'negotiating', 'ready']);
    expect(link.status().stats.connections).toBe(2);
    await link.stop();
    expect(link.status()).toMatchObject({ state: 'stopped', connected: false, hello: { type: 'hello' } });
    expect(states.at(-1)).toBe('stopped');
    // Stopped is final: nothing moves it.
    expect(states.filter((s) => s === 'stopped')).toHaveLength(1);
  });
});

describe('ModLink caps', () => {
  it("emits 'caps' when the set changes, not when a CAPS request repeats it, and takes the instance from the reply", async () => {
    let caps = ['state', 'command'];
    let instance = 'server';
    const { link } = await startLink({
      respond: (line) => (line === 'CAPS' ? [{ line: { type: 'capabilities', protocol: 1, instance, capabilities: caps } }] : undefined),
    });
    const seen: Array<string[] | null> = [];
    link.on('caps', (c: Set<string> | null) => seen.push(c ? [...c].sort() : null));
    await link.request('CAPS');
    expect(seen).toEqual([]);
    caps = ['state', 'command', 'mark'];
    instance = 'lab';
    const reply = await link.request('CAPS');
    expect(reply.type).toBe('capabilities');
    expect(seen).toEqual([['command', 'mark', 'state']]);
    expect(link.status()).toMatchObject({ instance: 'lab', capsSource: 'caps', capabilities: ['command', 'mark', 'state'] });
    // An empty instance, or one that is not a name, does not erase the one known.
    instance = '';
    await link.request('CAPS');
    expect(link.status().instance).toBe('lab');
    instance = 5 as unknown as string;
    await link.request('CAPS');
    expect(link.status().instance).toBe('lab');
    // The same set in another order is no change; a CAPS asked for with any reply still counts.
    caps = ['mark', 'state', 'command'];
    await link.request('CAPS');
    expect(seen).toHaveLength(1);
    caps = ['state'];
    await link.request('CAPS', { replies: [] });
    expect(seen).toEqual([['command', 'mark', 'state'], ['state']]);
    // A capabilities reply without a list changes nothing.
    caps = 'mark' as unknown as string[];
    await link.request('CAPS');
    expect(link.status().capabilities).toEqual(['state']);
  });

  it('a reply of another type to a CAPS request changes nothing', async () => {
    const { link } = await startLink();
    const before = link.status().capabilities;
    await link.request('CAPS', { replies: ['pong', 'capabilities'] }).catch(() => {});
    await link.request('PING', { replies: [] });
    expect(link.status().capabilities).toEqual(before);
  });

  it('refuses a verb whose CAPS the mod lacks, saying which, and sends nothing', async () => {
    const verbs = builtinVerbs();
    const { link, mod } = await startLink(
      {
        respond: (line) => (line === 'CAPS' ? [{ line: { type: 'capabilities', instance: 'lab', capabilities: SERVER_HELLO.capabilities } }] : undefined),
      },
      {
        verbs: (verb, arg) => (verb === 'FLY' ? { replies: ['fly_ack'], requires: ['flight', 'state', 'wings'] } : verbs(verb, arg)),
      },
    );
    const err = await failure(link.request('FLY high'));
    expect(err.code).toBe('unsupported_capability');
    expect(err.message).toBe("'FLY high' needs 'flight', 'wings', which the connected lab mod does not advertise, so nothing was sent. Run `mcbridge tools` for what this mod supports.");
    expect(err.details).toEqual({ request: 'FLY high', missing: ['flight', 'wings'], vantage: 'server', instance: 'lab' });
    expect(mod.received).not.toContain('FLY high');
    expect(link.status().stats.requests).toBe(0);
  });
});

describe('ModLink negotiation', () => {
  it('falls back to the greeting when the CAPS reply has no list, and keeps the greeting instance over one that is not a name', async () => {
    const { link } = await startLink({
      respond: (line) => (line === 'CAPS' ? [{ line: { type: 'capabilities', instance: 7, capabilities: 'state' } }] : undefined),
    });
    expect(link.status()).toMatchObject({ capsSource: 'hello', instance: 'server', capabilities: [...SERVER_HELLO.capabilities].sort() });
  });

  it('takes the CAPS list and keeps the greeting instance when the reply names none', async () => {
    const { link } = await startLink({
      respond: (line) => (line === 'CAPS' ? [{ line: { type: 'capabilities', instance: 7, capabilities: ['state'] } }] : undefined),
    });
    expect(link.status()).toMatchObject({ capsSource: 'caps', instance: 'server', capabilities: ['state'] });
  });

  it('a mod that hangs up during CAPS is reported as such, and the event log hears of it', async () => {
    const events: Array<Record<string, unknown>> = [];
    const mod = await ScriptedMod.start({
      respond: (line, conn) => {
        if (line === 'CAPS') conn.socket.destroy();
        return [];
      },
    });
    const link = new ModLink({ vantage: 'server', modPort: mod.port, reconnectMinMs: 5_000, reconnectMaxMs: 5_000, log: silentLogger(), onEvent: (e) => events.push(e), verbs: builtinVerbs() });
    link.start();
    try {
      await waitUntil(() => link.status().lastError?.includes('capability negotiation') === true, 5_000, 'the negotiation error');
      expect(link.status().lastError).toBe(`cannot reach interface mod on 127.0.0.1:${mod.port}: the connection closed during capability negotiation`);
      expect(events.filter((e) => e.type === 'bridge_disconnected')).toHaveLength(1);
      expect(link.connected).toBe(false);
    } finally {
      await link.stop();
      await mod.stop();
    }
  });

  it('starting twice opens one connection', async () => {
    const { link, mod } = await startLink();
    link.start();
    await link.request('PING');
    expect(mod.connections).toHaveLength(1);
  });

  it('a stop is not a disconnect: no event, no error', async () => {
    const events: Array<Record<string, unknown>> = [];
    const { link } = await startLink({}, { onEvent: (e) => events.push(e) });
    await link.stop();
    expect(events.some((e) => e.type === 'bridge_disconnected')).toBe(false);
    expect(link.status().lastError).toBeNull();
  });
});

describe('ModLink refusals', () => {
  it.each([
    ['an empty line', '', 'a mod request needs a verb, e.g. "PING"'],
    ['blanks only', ' \t ', 'a mod request needs a verb, e.g. "PING"'],
    ['a line break', 'SAY a\nb', 'a mod request must be a single line: remove the line breaks from its arguments'],
    ['a carriage return', 'SAY a\rb', 'a mod request must be a single line: remove the line breaks from its arguments'],
  ])('refuses %s with invalid_params, sending nothing', async (_what, line, message) => {
    const { link, mod } = await startLink();
    const sent = mod.received.length;
    const err = await failure(link.request(line));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toBe(message);
    expect(mod.received.length).toBe(sent);
  });

  it('sends a request with blanks around it trimmed', async () => {
    const { link, mod } = await startLink();
    await link.request('  STATE \n');
    expect(mod.received.at(-1)).toBe('STATE');
  });

  it('refuses with cancelled a request whose signal was already aborted', async () => {
    const { link, mod } = await startLink();
    const controller = new AbortController();
    controller.abort();
    const err = await failure(link.request('STATE', { signal: controller.signal }));
    expect(err.code).toBe('cancelled');
    expect(mod.received).not.toContain('STATE');
  });

  it('refuses with unavailable once stopped', async () => {
    const { link } = await startLink();
    await link.stop();
    const err = await failure(link.request('STATE'));
    expect(err).toMatchObject({ code: 'unavailable', message: 'the daemon is shutting down' });
  });

  it('names the port and the last error when the mod is not there', async () => {
    const port = await freePort();
    const link = new ModLink({ vantage: 'server', modPort: port, reconnectMinMs: 10, reconnectMaxMs: 20, log: silentLogger(), onEvent: () => {}, verbs: builtinVerbs() });
    const fresh = link.notConnectedError();
    expect(fresh.message).toBe(
      'the interface mod is not connected (last error: none yet; still connecting). Start the game (or `mcbridge sim`), or check where the daemon looks with `mcbridge discover`.',
    );
    expect(fresh.details).toEqual({ state: 'idle', lastError: null });
    link.start();
    try {
      await waitUntil(() => link.status().lastError !== null, 5_000, 'a connection error');
      const err = await failure(link.request('STATE'));
      expect(err.code).toBe('not_connected');
      expect(err.message).toMatch(new RegExp(`^the interface mod is not connected on port ${port} \\(last error: cannot reach interface mod on 127\\.0\\.0\\.1:${port}: `));
      expect(err.details).toMatchObject({ lastError: expect.stringContaining(`127.0.0.1:${port}`) });
      expect(['connecting', 'discovering']).toContain((err.details as { state: string }).state);
    } finally {
      await link.stop();
    }
  });

  it('says why the mod left, and tells the event log once', async () => {
    const events: Array<Record<string, unknown>> = [];
    const { link, mod } = await startLink({}, { onEvent: (e) => events.push(e) });
    const port = mod.port;
    mod.hangUp();
    await waitUntil(() => events.some((e) => e.type === 'bridge_disconnected'), 5_000, 'the disconnect event');
    expect(events.filter((e) => e.type === 'bridge_disconnected')).toEqual([{ type: 'bridge_disconnected', text: `mod connection on port ${port} closed` }]);
    await waitUntil(() => link.connected, 5_000, 'the link to come back');
    // The error is cleared by the new connection; the hello of each connection reaches the log.
    expect(link.status().lastError).toBeNull();
    expect(events.filter((e) => e.type === 'hello')).toHaveLength(2);
  });

  it('records why a connection closed while the link was up', async () => {
    const { link, mod } = await startLink(
      {
        respond: (line, conn) => {
          if (line !== 'STATE') return undefined;
          conn.socket.destroy();
          return [];
        },
      },
      { reconnectMinMs: 5_000, reconnectMaxMs: 5_000 },
    );
    await link.request('STATE').catch(() => {});
    await waitUntil(() => !link.connected, 5_000, 'the link to notice');
    expect(link.status().lastError).toMatch(new RegExp(`^the mod connection on port ${mod.port} closed`));
    expect(link.status()).toMatchObject({ state: 'connecting', connectedAt: null, hello: null });
  });
});

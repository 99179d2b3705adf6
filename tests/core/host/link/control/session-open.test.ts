/**
 * Opening one control session (`openSession`, issue 35 "Test strength"): the hello it sends, and
 * each way it fails before a welcome, said word for word with its code. Against a hostile TLS
 * server of the test's making, and a plain TCP one that never starts TLS.
 */
import net from 'node:net';
import type tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { readCredential } from '../../../../../core/host/link/control/credential.js';
import { encodeFrame } from '../../../../../core/host/link/control/frames.js';
import { openSession, type SessionOptions } from '../../../../../core/host/link/control/session.js';
import { VERSION } from '../../../../../core/util/version.js';
import { failure } from '../../../../support/errors.js';
import { type Frame, hostileFixture, TOKEN, WELCOME } from '../../../../support/hostile-control.js';

const fixture = hostileFixture();
const sockets: tls.TLSSocket[] = [];
const plain: net.Server[] = [];
const accepted: net.Socket[] = [];
afterEach(async () => {
  for (const s of [...sockets.splice(0), ...accepted.splice(0)]) s.destroy();
  for (const p of plain.splice(0)) await new Promise((r) => p.close(r));
});

function options(server: { address: string; pin: string }, more: Partial<SessionOptions> = {}): SessionOptions {
  const [host, port] = server.address.split(':');
  return {
    host: host!,
    port: Number(port),
    trust: { pin: server.pin },
    credential: readCredential({ token: TOKEN }),
    lastSeq: 0,
    runId: null,
    maxFrameBytes: 1 << 20,
    connectTimeoutMs: 5_000,
    handshakeTimeoutMs: 5_000,
    opening: (socket) => sockets.push(socket),
    ...more,
  };
}

describe('a session opened', () => {
  it('sends one hello with the token, the last seq and the client; the run only once known', async () => {
    const hellos: Frame[] = [];
    const server = await fixture.server((s, hello) => {
      hellos.push(hello);
      s.write(encodeFrame(WELCOME));
    });
    const first = await openSession(options(server));
    expect(first.welcome).toMatchObject({ runId: 'run_x', permissions: ['read', 'write'] });
    expect(first.early).toEqual([]);
    await openSession(options(server, { lastSeq: 41, runId: 'run_prev' }));
    expect(hellos).toEqual([
      { type: 'hello', protocol: 1, token: TOKEN, lastSeq: 0, client: { name: 'mcbridge', version: VERSION } },
      { type: 'hello', protocol: 1, token: TOKEN, lastSeq: 41, runId: 'run_prev', client: { name: 'mcbridge', version: VERSION } },
    ]);
    expect(sockets).toHaveLength(2);
  });

  it('a welcome cut across two reads is waited for; frames in the same read as it come back as early', async () => {
    const server = await fixture.server((s) => {
      const bytes = Buffer.concat([encodeFrame(WELCOME), encodeFrame({ type: 'event', seq: 1, event: { type: 'chat' } }), encodeFrame({ type: 'event', seq: 2, event: { type: 'chat' } })]);
      s.write(bytes.subarray(0, 10));
      setTimeout(() => s.write(bytes.subarray(10)), 30);
    });
    const session = await openSession(options(server));
    expect(session.welcome.runId).toBe('run_x');
    expect(session.early).toEqual([
      { type: 'event', seq: 1, event: { type: 'chat' } },
      { type: 'event', seq: 2, event: { type: 'chat' } },
    ]);
    // The session's own listeners are gone: the link reads what comes next.
    expect(session.socket.listenerCount('data')).toBe(0);
    expect(session.socket.listenerCount('close')).toBe(0);
    expect(session.socket.listenerCount('timeout')).toBe(0);
    expect(session.socket.listenerCount('error')).toBe(1);
  });

  it('with a caFile instead of a pin: the server verified by TLS, the welcome read', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame(WELCOME)));
    const session = await openSession(options(server, { trust: { caFile: server.certFile, serverName: 'localhost' } }));
    expect(session.welcome.runId).toBe('run_x');
  });

  it('a welcome slower than the connect timeout still opens: that timeout ends with the TLS handshake', async () => {
    const server = await fixture.server((s) => setTimeout(() => s.write(encodeFrame(WELCOME)), 300));
    const session = await openSession(options(server, { connectTimeoutMs: 100 }));
    expect(session.welcome.runId).toBe('run_x');
  });
});

describe('a session refused before its welcome', () => {
  it('no welcome within the handshake time: said with the seconds, the socket closed', async () => {
    const server = await fixture.server(() => {});
    const err = await failure(openSession(options(server, { handshakeTimeoutMs: 150 })));
    expect(err).toMatchObject({
      code: 'not_connected',
      message: `no welcome from ${server.address} within 0.15 s: is it the game port of a server with mcagent.control=true?`,
    });
    expect(sockets[0]!.destroyed).toBe(true);
  });

  it('a TCP port that never starts TLS: the connect timeout, said with the seconds', async () => {
    const silent = net.createServer((c) => accepted.push(c));
    plain.push(silent);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as net.AddressInfo).port;
    const err = await failure(openSession(options({ address: `127.0.0.1:${port}`, pin: 'ab'.repeat(32) }, { connectTimeoutMs: 150, handshakeTimeoutMs: 10_000 })));
    expect(err).toMatchObject({ code: 'not_connected', message: `127.0.0.1:${port} did not complete the TLS handshake within 0.15 s` });
  });

  it('nothing listening, or a listener that answers in plain text: the socket error said as what to do', async () => {
    const gone = net.createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const port = (gone.address() as net.AddressInfo).port;
    await new Promise((r) => gone.close(r));
    const refused = await failure(openSession(options({ address: `127.0.0.1:${port}`, pin: 'ab'.repeat(32) })));
    expect(refused.code).toBe('not_connected');
    expect(refused.message).toMatch(new RegExp(`^cannot reach the control listener on 127\\.0\\.0\\.1:${port}: connect ECONNREFUSED`));
    const http = net.createServer((c) => {
      accepted.push(c);
      c.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    });
    plain.push(http);
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const at = `127.0.0.1:${(http.address() as net.AddressInfo).port}`;
    const err = await failure(openSession(options({ address: at, pin: 'ab'.repeat(32) })));
    expect(err).toMatchObject({ code: 'not_connected' });
    expect(err.message).toMatch(new RegExp(`^${at} did not answer with TLS: it is not a control listener`));
  });

  it('closed after the hello: said as closed before its welcome', async () => {
    const server = await fixture.server((s) => s.end());
    const err = await failure(openSession(options(server)));
    expect(err).toMatchObject({ code: 'not_connected', message: `${server.address} closed the connection before its welcome` });
  });

  it('a bad frame first: said with the frame rule it broke', async () => {
    const server = await fixture.server((s) => s.write(Buffer.alloc(4)));
    const err = await failure(openSession(options(server)));
    expect(err).toMatchObject({
      code: 'not_connected',
      message: `${server.address} sent a bad frame before its welcome: a frame of 0 bytes: every frame holds one JSON object`,
    });
  });

  it('a frame over the session bound before the welcome is a bad frame', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame({ ...WELCOME, pad: 'x'.repeat(200) })));
    const err = await failure(openSession(options(server, { maxFrameBytes: 100 })));
    expect(err.message).toMatch(/sent a bad frame before its welcome: a frame of \d+ bytes is over the 100-byte limit$/);
  });

  it("a fatal unauthorized is unauthorized with the server's code; another fatal code is not_connected", async () => {
    const refused = await fixture.server((s) => s.write(encodeFrame({ type: 'error', code: 'unauthorized', message: 'revoked' })));
    const err = await failure(openSession(options(refused)));
    expect(err.code).toBe('unauthorized');
    expect(err.message).toMatch(/^the server ended the session \(unauthorized: revoked\); the server refused the credential/);
    expect(err.details).toEqual({ serverCode: 'unauthorized' });
    const other = await fixture.server((s) => s.write(encodeFrame({ type: 'error', code: 'busy_now' })));
    expect(await failure(openSession(options(other)))).toMatchObject({ code: 'not_connected', message: 'the server ended the session (busy_now)', details: { serverCode: 'busy_now' } });
  });

  it('an answer that is no welcome names the field and what is wrong with it', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame({ ...WELCOME, runId: '' })));
    const err = await failure(openSession(options(server)));
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(new RegExp(`^${server.address} answered the hello with no valid welcome \\(runId: .+\\)$`));
    const typeless = await fixture.server((s) => s.write(encodeFrame({ hello: 'there' })));
    expect((await failure(openSession(options(typeless)))).message).toMatch(/no valid welcome \(type: /);
  });

  it('the pin checked before the hello: another certificate sends nothing', async () => {
    const hellos: Frame[] = [];
    const server = await fixture.server((_s, hello) => hellos.push(hello));
    const err = await failure(openSession(options(server, { trust: { pin: 'cd'.repeat(32) } })));
    expect(err.code).toBe('not_connected');
    expect(err.message).toMatch(/does not match the pin \(pin\)/);
    expect(hellos).toEqual([]);
    expect(server.hellos).toBe(0);
  });
});

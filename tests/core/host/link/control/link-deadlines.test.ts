/**
 * The control link's own deadlines and bounds, given and by default (issue 35, "Test strength"):
 * the hello timeout, the TLS connect timeout, the 4,096 requests that may wait for the server,
 * an id already in flight, a caller's signal; and a stop, which ends every wait at once. A
 * ControlLink against a hostile TLS server, or a plain TCP one that never starts TLS.
 */
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeFrame } from '../../../../../core/host/link/control/frames.js';
import type { VerbSpec } from '../../../../../core/host/link/verbs.js';
import { controlLinks } from '../../../../support/control-link.js';
import { failure } from '../../../../support/errors.js';
import { type Frame, hostileFixture, WELCOME } from '../../../../support/hostile-control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const fixture = hostileFixture();
const start = controlLinks({ MARK: { replies: ['mark_ack'], write: true, control: { op: 'mark' } } } satisfies Record<string, VerbSpec>);
const plain: net.Server[] = [];
const accepted: net.Socket[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of accepted.splice(0)) s.destroy();
  for (const p of plain.splice(0)) await new Promise((r) => p.close(r));
});

/** A TCP port that accepts and never says a word: no TLS handshake ever completes. */
async function mute(): Promise<{ address: string; pin: string }> {
  const server = net.createServer((c) => accepted.push(c));
  plain.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`, pin: 'ab'.repeat(32) };
}

describe('the hello timeout', () => {
  it('given: a server that never welcomes is given up on after it, said with its seconds, and tried again', async () => {
    const server = await fixture.server(() => {});
    const { link } = start(server, { helloTimeoutMs: 200 });
    await waitUntil(() => server.hellos >= 2, 3_000, 'a second hello after the first timed out');
    expect(link.status().lastError).toBe(`no welcome from ${server.address} within 0.2 s: is it the game port of a server with mcagent.control=true?`);
    expect(link.connected).toBe(false);
  });

  it('by default it is long enough for a welcome that takes 400 ms', async () => {
    const server = await fixture.server((s) => setTimeout(() => s.write(encodeFrame(WELCOME)), 400));
    const { link } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the slow welcome');
    expect(server.hellos).toBe(1);
  });
});

describe('the connect timeout', () => {
  it('given: a port that never starts TLS is given up on after it, said with its seconds, before the hello timeout', async () => {
    const port = await mute();
    const { link } = start(port, { connectTimeoutMs: 150, helloTimeoutMs: 60_000 });
    await waitUntil(() => link.status().lastError !== null, 3_000, 'the connect to time out');
    expect(link.status().lastError).toBe(`${port.address} did not complete the TLS handshake within 0.15 s`);
  });

  it('by default the TLS connect is given 5 s, the whole handshake longer', async () => {
    const connect = vi.spyOn(tls, 'connect');
    const port = await mute();
    start(port);
    await waitUntil(() => connect.mock.calls.length >= 1, 3_000, 'the connect');
    expect(connect.mock.calls[0]![0]).toMatchObject({ host: '127.0.0.1', port: Number(port.address.split(':')[1]), timeout: 5_000 });
  });
});

describe('requests that wait for the server', () => {
  it('by default 4,096 may wait while the server has its pending limit out; the next is refused busy, unsent', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame({ ...WELCOME, limits: { maxPendingRequests: 1 } })));
    const { link } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the session');
    const waiting = Array.from({ length: 4_097 }, () => link.request('PING', { timeoutMs: 60_000 }).catch((e: Error) => e));
    expect(link.status()).toMatchObject({ queued: 4_096 });
    expect(await failure(link.request('PING'))).toMatchObject({
      code: 'busy',
      message: "4096 requests already wait for the server; 'ping' was not sent. Retry when fewer are pending",
    });
    await link.stop();
    expect((await Promise.all(waiting)).every((e) => (e as { code?: string }).code === 'not_connected')).toBe(true);
    await waitUntil(() => server.frames.length === 1, 3_000, 'the one request let out');
  });

  it('a write whose id is a request in flight is refused busy, unsent', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame(WELCOME)));
    const { link } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the session');
    const held = link.request('PING', { timeoutMs: 60_000 }).catch((e: Error) => e);
    await waitUntil(() => server.frames.length === 1, 3_000, 'the ping sent');
    const id = server.frames[0]!.id as string;
    const err = await failure(link.request('MARK x', { requestId: id }));
    expect(err).toMatchObject({ code: 'busy', message: `request ${id} is already in flight; wait for its answer`, details: { requestId: id } });
    expect(link.status().stats.requests).toBe(1);
    await link.stop();
    // The stop answers what it found in flight, before the socket's close could.
    expect(await held).toMatchObject({ code: 'not_connected', message: "the daemon stopped while waiting for the reply to 'ping'" });
    expect(server.frames.map((f) => f.op)).toEqual(['ping']);
  });

  it("a caller's signal aborted while its request is in flight answers it cancelled at once", async () => {
    const server = await fixture.server((s) => s.write(encodeFrame(WELCOME)));
    const { link } = start(server);
    await waitUntil(() => link.connected, 5_000, 'the session');
    const abort = new AbortController();
    const call = failure(link.request('PING', { timeoutMs: 60_000, signal: abort.signal }));
    await waitUntil(() => server.frames.length === 1, 3_000, 'the ping sent');
    abort.abort();
    expect(await call).toMatchObject({ code: 'cancelled' });
    expect(link.status().inFlight).toEqual([]);
  });
});

describe('a stop', () => {
  /** Resolves 'stopped', or 'still waiting' after 3 s: a reconnect pause of a minute must not hold it. */
  const promptly = (stop: Promise<void>) => Promise.race([stop.then(() => 'stopped'), new Promise((r) => setTimeout(() => r('still waiting'), 3_000).unref())]);
  const LONG = { reconnectMinMs: 60_000, reconnectMaxMs: 60_000 };

  it('in a reconnect pause ends the pause', async () => {
    const server = await fixture.server((s) => s.end(encodeFrame({ type: 'error', code: 'maintenance' })));
    const { link } = start(server, LONG);
    await waitUntil(() => link.status().lastError !== null, 5_000, 'the refusal');
    expect(await promptly(link.stop())).toBe('stopped');
    expect(server.hellos).toBe(1);
  });

  it('of a session that is up ends it without a pause', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame(WELCOME)));
    const { link, events } = start(server, LONG);
    await waitUntil(() => link.connected, 5_000, 'the session');
    expect(await promptly(link.stop())).toBe('stopped');
    // A stop is no disconnect: nothing says the session was lost.
    expect(events.filter((e: Frame) => e.type === 'bridge_disconnected')).toEqual([]);
  });

  it('in mid-handshake ends it without a pause and leaves no error behind', async () => {
    const server = await fixture.server(() => {});
    const { link } = start(server, { ...LONG, helloTimeoutMs: 60_000 });
    await waitUntil(() => server.hellos === 1, 5_000, 'the hello');
    expect(await promptly(link.stop())).toBe('stopped');
    expect(link.status().lastError).toBeNull();
  });
});

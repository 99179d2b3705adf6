/**
 * What a control server says about itself, held to bounds (issue 35, items 8, 9, 12): limits
 * floored and capped, a welcome cut to its known fields, the credential scrubbed from its texts.
 */
import { describe, expect, it } from 'vitest';
import { SCRUBBED, encodeFrame } from '../../../../../core/host/link/control/frames.js';
import { boundLimits, LIMIT_BOUNDS } from '../../../../../core/host/link/control/limits.js';
import { commandPlugin } from '../../../../../plugins/command/index.js';
import { markPlugin } from '../../../../../plugins/mark/index.js';
import { answering, capturingLog, hostileFixture, TOKEN, WELCOME } from '../../../../support/hostile-control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const fixture = hostileFixture();
const SECRET = TOKEN.split('.')[2]!;

describe("a server's announced limits", () => {
  it('each is floored and capped: idle, frame size, pending requests, request timeout', () => {
    const low = boundLimits({ idleSeconds: 0.003, maxFrameBytes: 10, maxPendingRequests: 0, requestTimeoutMillis: 1 });
    expect(low).toEqual({ idleSeconds: 1, maxFrameBytes: 1024, maxPendingRequests: 1, requestTimeoutMillis: 1_000 });
    const high = boundLimits({ idleSeconds: 1e12, maxFrameBytes: 2 ** 40, maxPendingRequests: 1e9, requestTimeoutMillis: 1e12 });
    expect(high).toEqual({ idleSeconds: 86_400, maxFrameBytes: 16 * 1024 * 1024, maxPendingRequests: 1024, requestTimeoutMillis: 3_600_000 });
    expect(boundLimits({ idleSeconds: Number.NaN })).toMatchObject({ idleSeconds: LIMIT_BOUNDS.idleSeconds[1] });
  });

  it('idleSeconds 0.003: pings at most three a second, not a thousand', async () => {
    const server = await fixture.server({ hello: (s) => s.write(encodeFrame({ ...WELCOME, limits: { idleSeconds: 0.003 } })), frame: answering() });
    const host = await fixture.host(server);
    const pingsAt: number[] = [];
    await waitUntil(
      () => {
        while (pingsAt.length < server.frames.filter((f) => f.op === 'ping').length) pingsAt.push(Date.now());
        return pingsAt.length >= 4;
      },
      10_000,
      'four pings',
    );
    // Three gaps of at least the 333 ms floor (a little less for the check's own polling).
    expect(pingsAt[3]! - pingsAt[0]!).toBeGreaterThanOrEqual(800);
    expect(host.link.status().control).toMatchObject({ limits: { idleSeconds: 1 } });
  });

  it('maxFrameBytes 10 is floored at 1 KiB: a 600-byte request goes', async () => {
    const server = await fixture.server({ hello: (s) => s.write(encodeFrame({ ...WELCOME, limits: { maxFrameBytes: 10 } })), frame: answering() });
    const host = await fixture.host(server);
    await waitUntil(() => host.link.connected, 5_000, 'the session');
    const big = host.link.request(`PING ${'x'.repeat(600)}`, { timeoutMs: 1_000 }).catch((err: Error) => err);
    await waitUntil(() => server.frames.some((f) => f.op === 'ping' && f.timeoutMillis !== undefined), 5_000, 'the request at the server');
    expect(await big).not.toMatchObject({ code: 'invalid_params' });
  });

  it('maxPendingRequests 1e9 is capped at 1,024 in flight; the rest wait in the daemon', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame({ ...WELCOME, limits: { maxPendingRequests: 1e9 } })));
    const host = await fixture.host(server);
    await waitUntil(() => host.link.connected, 5_000, 'the session');
    const calls = Array.from({ length: 1030 }, () =>
      host.link.request('PING', { timeoutMs: 20_000 }).then(
        () => 'answered',
        (err: { code: string }) => err.code,
      ),
    );
    await waitUntil(() => server.frames.length >= 1024, 10_000, '1,024 requests at the server');
    const status = host.link.status();
    expect(status.inFlight).toHaveLength(1024);
    expect(status.queued).toBe(6);
    expect(status.control).toMatchObject({ limits: { maxPendingRequests: 1024 } });
    // Those that waited in the daemon are answered too when the link stops, as never sent.
    await host.stop();
    const answers = await Promise.all(calls);
    expect(answers.filter((a) => a === 'not_connected')).toHaveLength(1030);
  });
});

describe('the frame limit, to the byte', () => {
  it('a request frame of exactly maxFrameBytes goes; one byte more is refused unsent', async () => {
    const server = await fixture.server({
      hello: (s) => s.write(encodeFrame({ ...WELCOME, capabilities: ['state', 'mark'] })),
      frame: answering(() => ({ type: 'mark_ack' })),
    });
    const host = await fixture.host(server, {}, { plugins: [{ plugin: markPlugin }] });
    await waitUntil(() => host.link.connected, 5_000, 'the session');
    // Ids of one length and a 4-digit timeout: the frame grows by exactly one byte per character.
    const mark = (id: string, length: number) => host.link.request(`MARK ${'x'.repeat(length)}`, { requestId: id, timeoutMs: 5_000 });
    await mark('id-1', 100);
    const atLimit = 100 + 1024 - server.sizes[0]!;
    await mark('id-2', atLimit);
    expect(server.sizes).toEqual([server.sizes[0], 1024]);
    const over = await mark('id-3', atLimit + 1).catch((e: Error) => e);
    expect(over).toMatchObject({ code: 'invalid_params', message: expect.stringMatching(/the request is 1025 bytes, over the server's 1024-byte frame limit; nothing was sent/) });
    expect(server.frames).toHaveLength(2);
  });
});

describe("a server's welcome", () => {
  it('an 8 MiB extra field is cut: status holds the known fields only', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame({ ...WELCOME, extra: 'x'.repeat(8 * 1024 * 1024), limits: { ...WELCOME.limits, more: 'y'.repeat(1000) } })));
    const host = await fixture.host(server);
    await waitUntil(() => host.link.connected, 10_000, 'the session');
    const status = host.link.status();
    expect(JSON.stringify(status).length).toBeLessThan(16 * 1024);
    expect(status.hello).not.toHaveProperty('extra');
    expect(status.hello).toMatchObject({ runId: 'run_x', limits: { maxFrameBytes: 1024 } });
    expect((status.hello as { limits: object }).limits).not.toHaveProperty('more');
  });
});

describe('a server text that quotes the credential', () => {
  it('a fatal error: the secret is in no log line, no lastError, no not_connected answer', async () => {
    const server = await fixture.server((s) => s.end(encodeFrame({ type: 'error', code: 'unauthorized', message: `token ${TOKEN} was rejected` })));
    const { log, lines } = capturingLog();
    const host = await fixture.host(server, {}, { log });
    await waitUntil(() => host.link.status().lastError !== null, 5_000, 'the refusal');
    const refused = await host.link.request('PING').catch((err: Error) => err);
    const texts = [host.link.status().lastError!, (refused as Error).message, ...lines];
    for (const text of texts) expect(text).not.toContain(SECRET);
    expect(host.link.status().lastError).toContain(`token mca1.tk_test.${SCRUBBED} was rejected`);
  });

  it('a reply error and an event that quote it reach the caller and the log scrubbed', async () => {
    const server = await fixture.server({
      hello: (s) => {
        s.write(encodeFrame(WELCOME));
        s.write(encodeFrame({ type: 'event', seq: 1, event: { type: 'chat', text: `someone typed ${TOKEN}` } }));
      },
      frame: (s, f) => s.write(encodeFrame({ type: 'reply', id: f.id, ok: false, error: { code: 'game_error', message: `no ${SECRET} here`, details: { token: TOKEN } } })),
    });
    const host = await fixture.host(server);
    await waitUntil(() => host.events.query({ limit: 10 }).events.some((e) => e.type === 'chat'), 5_000, 'the chat');
    const err = await host.link.request('PING').catch((e: Error) => e);
    expect(JSON.stringify({ message: (err as Error).message, details: (err as { details?: unknown }).details })).not.toContain(SECRET);
    expect(JSON.stringify(host.events.query({ limit: 10 }).events)).not.toContain(SECRET);
    expect((err as Error).message).toContain(`no ${SCRUBBED} here`);
  });
});

describe('a read-only credential', () => {
  const readOnly = () => fixture.server({ hello: (s) => s.write(encodeFrame({ ...WELCOME, permissions: ['read'], capabilities: ['state', 'command'] })), frame: answering() });

  it("a write tool is refused 'forbidden', as docs/control.md says, and nothing reaches the server", async () => {
    const server = await readOnly();
    const host = await fixture.host(server, {}, { plugins: [{ plugin: commandPlugin }] });
    await waitUntil(() => host.link.connected, 5_000, 'the session');
    await expect(host.call('command', { command: 'say hi' })).rejects.toMatchObject({ code: 'forbidden', message: expect.stringMatching(/needs the write permission/) });
    expect(server.frames.filter((f) => f.op !== 'ping')).toEqual([]);
  });

  it("the link's own check stops a write verb before it is sent: the server sees no frame", async () => {
    const server = await readOnly();
    const host = await fixture.host(server, {}, { plugins: [{ plugin: commandPlugin }] });
    await waitUntil(() => host.link.connected, 5_000, 'the session');
    const err = await host.link.request('CMD say hi').catch((e: { code: string; message: string }) => e);
    expect(err).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/needs the write permission.*nothing was sent/) });
    // A read goes through the same path and does reach it: the server is listening.
    await host.link.request('PING');
    expect(server.frames.map((f) => f.op)).toEqual(['ping']);
  });

  it("the server's own forbidden (a credential narrowed after the welcome) reaches the caller as forbidden", async () => {
    const server = await fixture.server({
      hello: (s) => s.write(encodeFrame({ ...WELCOME, capabilities: ['state', 'command'] })),
      frame: (s, f) =>
        s.write(encodeFrame({ type: 'reply', id: f.id, ok: false, error: { code: 'forbidden', message: 'this credential has no write permission', retryable: false, resultUnknown: false } })),
    });
    const host = await fixture.host(server, {}, { plugins: [{ plugin: commandPlugin }] });
    await waitUntil(() => host.link.connected, 5_000, 'the session');
    await expect(host.call('command', { command: 'say hi' })).rejects.toMatchObject({ code: 'forbidden', message: expect.stringMatching(/no write permission/) });
  });
});

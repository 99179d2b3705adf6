/**
 * What a control server sends after its welcome, held to the link's rules (issue 35, items 1, 10,
 * 11, and the test-strength list): big events counted at their size, an absurd seq dropped, a
 * repeated seq recorded once, a stray reply resolving nothing, a request_status about another id.
 */
import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../../../../core/host/link/control/frames.js';
import { MAX_SEQ_LEAD } from '../../../../../core/host/link/control/event-stream.js';
import { commandPlugin } from '../../../../../plugins/command/index.js';
import { requestStatusPlugin } from '../../../../../plugins/request-status/index.js';
import { hostileFixture, WELCOME } from '../../../../support/hostile-control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const fixture = hostileFixture();
const envelope = (seq: number, event: Record<string, unknown>) => encodeFrame({ type: 'event', seq, event });
type StreamStats = { events: number; duplicates: number; lost: number; badEnvelopes: number };
const streamOf = (status: { control?: Record<string, unknown> }) => status.control!.events as StreamStats;

describe('events from a control server', () => {
  it('forty events of 1 MiB are counted at their size: the ring stays within its 4 MiB', async () => {
    const text = 'x'.repeat(1024 * 1024);
    const server = await fixture.server((s) => {
      s.write(encodeFrame({ ...WELCOME, limits: {} }));
      for (let seq = 1; seq <= 40; seq++) s.write(envelope(seq, { type: 'game', text: `${seq}:${text}` }));
    });
    const host = await fixture.host(server, {}, { bufferBytes: 4 * 1024 * 1024 });
    await waitUntil(() => streamOf(host.link.status()).events >= 40, 20_000, 'the forty events');
    const stats = host.events.stats();
    expect(stats.bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(stats.bytes).toBeGreaterThan(3 * 1024 * 1024);
    expect(stats.buffered).toBeLessThanOrEqual(4);
    expect(stats.evicted).toBeGreaterThanOrEqual(36);
    // The newest is whole, and read back from the text it was measured by.
    const newest = host.events.at(stats.lastSeq)!;
    expect(JSON.parse(host.events.toJson(newest))).toEqual(newest);
    expect(newest.text).toBe(`40:${text}`);
  });

  it('an envelope with seq 2^53-1 is a bad envelope: the later ones are recorded, none counted lost', async () => {
    const server = await fixture.server((s) => {
      s.write(encodeFrame(WELCOME));
      s.write(envelope(1, { type: 'chat', text: 'one' }));
      s.write(envelope(Number.MAX_SAFE_INTEGER, { type: 'chat', text: 'absurd' }));
      s.write(envelope(2, { type: 'chat', text: 'two' }));
      s.write(envelope(3 + MAX_SEQ_LEAD, { type: 'chat', text: 'one past the window' }));
      s.write(envelope(2 + MAX_SEQ_LEAD, { type: 'chat', text: 'at the window' }));
    });
    const host = await fixture.host(server);
    await waitUntil(() => host.events.query({ limit: 10 }).events.some((e) => e.text === 'at the window'), 5_000, 'the last event');
    const texts = host.events
      .query({ limit: 10 })
      .events.filter((e) => e.type === 'chat')
      .map((e) => e.text);
    expect(texts).toEqual(['one', 'two', 'at the window']);
    expect(streamOf(host.link.status())).toMatchObject({ badEnvelopes: 2, duplicates: 0, lost: MAX_SEQ_LEAD - 1 });
    expect(host.link.connected).toBe(true);
  });

  it("the first envelope of a session is held to the welcome's newest seq", async () => {
    const server = await fixture.server((s) => {
      s.write(encodeFrame({ ...WELCOME, replay: { lost: false, to: 5 } }));
      s.write(envelope(Number.MAX_SAFE_INTEGER, { type: 'chat', text: 'absurd' }));
      s.write(envelope(6, { type: 'chat', text: 'six' }));
    });
    const host = await fixture.host(server);
    await waitUntil(() => host.events.query({ limit: 10 }).events.some((e) => e.text === 'six'), 5_000, 'the good event');
    expect(streamOf(host.link.status())).toMatchObject({ badEnvelopes: 1, events: 1 });
  });

  it('an event repeating the last seq is recorded once, counted as a duplicate', async () => {
    const server = await fixture.server((s) => {
      s.write(encodeFrame(WELCOME));
      s.write(envelope(1, { type: 'chat', text: 'a' }));
      s.write(envelope(1, { type: 'chat', text: 'a' }));
      s.write(envelope(2, { type: 'chat', text: 'b' }));
    });
    const host = await fixture.host(server);
    await waitUntil(() => host.events.query({ limit: 10 }).events.some((e) => e.text === 'b'), 5_000, 'the second event');
    expect(host.events.query({ limit: 10 }).events.filter((e) => e.text === 'a')).toHaveLength(1);
    expect(streamOf(host.link.status())).toMatchObject({ events: 2, duplicates: 1 });
  });
});

describe("one target's share of the event loop", () => {
  it('frames beyond the per-turn bound wait for the next turn, none lost or reordered, and the socket reads on', async () => {
    const server = await fixture.server((s) => {
      s.write(encodeFrame(WELCOME));
      // One write after the welcome's read: the link gets them in one or a few reads, far more than 3 per turn.
      setTimeout(() => s.write(Buffer.concat(Array.from({ length: 200 }, (_, i) => envelope(i + 1, { type: 'chat', text: `m${i + 1}` })))), 30);
      setTimeout(() => s.write(envelope(201, { type: 'chat', text: 'after' })), 100);
    });
    const host = await fixture.host(server, { framesPerTurn: 3 });
    await waitUntil(() => host.events.query({ limit: 300 }).events.some((e) => e.text === 'after'), 5_000, 'the event after the burst');
    const texts = host.events
      .query({ limit: 300 })
      .events.filter((e) => e.type === 'chat')
      .map((e) => e.text);
    expect(texts).toEqual([...Array.from({ length: 200 }, (_, i) => `m${i + 1}`), 'after']);
    expect(host.link.connected).toBe(true);
  });
});

describe('replies from a control server', () => {
  it('a stray reply (an id nobody asked) resolves nothing: the request waits for its own', async () => {
    const requests: Array<{ id: string }> = [];
    let answer: ((id: string) => void) | null = null;
    const server = await fixture.server({
      hello: (s) => {
        s.write(encodeFrame(WELCOME));
        answer = (id) => s.write(encodeFrame({ type: 'reply', id, ok: true, result: { type: 'pong', from: id } }));
      },
      frame: (_s, f) => requests.push(f as { id: string }),
    });
    const host = await fixture.host(server);
    await waitUntil(() => host.link.connected, 5_000, 'the session');
    let settled = false;
    const ping = host.link.request('PING').finally(() => (settled = true));
    await waitUntil(() => requests.length === 1, 5_000, 'the request at the server');
    answer!('stray-1');
    await waitUntil(() => host.link.stats.strayReplies === 1, 5_000, 'the stray counted');
    expect(settled).toBe(false);
    expect(host.link.status().inFlight).toHaveLength(1);
    answer!(requests[0]!.id);
    expect(await ping).toMatchObject({ from: requests[0]!.id });
  });

  it('request_status answered about another id is refused with a coded error, not passed on', async () => {
    const server = await fixture.server({
      hello: (s) => s.write(encodeFrame({ ...WELCOME, capabilities: ['state'] })),
      frame: (s, f) => {
        if (f.op !== 'request_status') return;
        const asked = (f.params as { requestId: string }).requestId;
        const requestId = asked === 'honest' ? asked : 'someone-else';
        s.write(encodeFrame({ type: 'reply', id: f.id, ok: true, result: { type: 'request_status', requestId, state: 'completed', result: { type: 'cmd_ack' } } }));
      },
    });
    const host = await fixture.host(server, {}, { plugins: [{ plugin: requestStatusPlugin }] });
    await waitUntil(() => host.link.connected, 5_000, 'the session');
    await expect(host.call('request_status', { request_id: 'asked-1' })).rejects.toMatchObject({
      code: 'mod_error',
      message: expect.stringMatching(/about 'someone-else', not the id asked; its answer was dropped/),
    });
    expect(await host.call('request_status', { request_id: 'honest' })).toMatchObject({ requestId: 'honest', state: 'completed' });
  });

  it('a timeout names the op as sent on the control wire, not the legacy verb', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame({ ...WELCOME, capabilities: ['state', 'command'] })));
    const host = await fixture.host(server, {}, { plugins: [{ plugin: commandPlugin }] });
    await waitUntil(() => host.link.connected, 5_000, 'the session');
    const err = (await host.link.request('CMD say hi', { timeoutMs: 100 }).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/^no response for 'command \{"command":"say hi"\}' within/);
    expect(err.message).not.toContain('CMD');
  });
});

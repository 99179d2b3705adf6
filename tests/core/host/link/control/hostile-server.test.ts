/**
 * A control server that breaks the protocol (issue 26, item 2; hostile input): a fatal error, a
 * welcome that is not one, a frame over the limit, a second welcome, garbage. The link reports
 * each, closes, and tries again; it never throws out of the daemon.
 */
import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../../../../core/host/link/control/frames.js';
import { hostileFixture, WELCOME } from '../../../../support/hostile-control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const fixture = hostileFixture();
const hostile = fixture.server;
const linkTo = (server: { address: string; pin: string }) => fixture.host(server);

describe('a control server that breaks the protocol', () => {
  it('a fatal protocol_version error: said with what to do, and tried again later', async () => {
    const server = await hostile((s) => s.end(encodeFrame({ type: 'error', code: 'protocol_version', message: 'protocol 2 only' })));
    const host = await linkTo(server);
    await waitUntil(() => server.hellos >= 2, 5_000, 'a second attempt');
    expect(host.link.status().lastError).toMatch(/ended the session \(protocol_version: protocol 2 only\); the mod speaks another control protocol version/);
  });

  it('an answer that is no welcome, and a welcome of another protocol, are refused', async () => {
    const server = await hostile((s) => s.write(encodeFrame({ ...WELCOME, protocol: 2 })));
    const host = await linkTo(server);
    await waitUntil(() => host.link.status().lastError !== null, 5_000, 'an error');
    expect(host.link.status().lastError).toMatch(/no valid welcome \(protocol/);
    expect(host.link.connected).toBe(false);
  });

  it('a frame header over the limit ends the session before any body is read', async () => {
    const server = await hostile((s) => {
      s.write(encodeFrame(WELCOME));
      const head = Buffer.alloc(4);
      head.writeUInt32BE(0x7fffffff, 0);
      setTimeout(() => s.write(head), 50);
    });
    const host = await linkTo(server);
    await waitUntil(() => /bad frame/.test(host.link.status().lastError ?? ''), 5_000, 'the bad frame to be reported');
    expect(host.link.status().lastError).toMatch(/over the 16777216-byte limit/);
  });

  it('a second welcome, or a frame type protocol 1 does not have, ends the session; then it reconnects', async () => {
    let n = 0;
    const server = await hostile((s) => {
      s.write(encodeFrame(WELCOME));
      n += 1;
      setTimeout(() => s.write(encodeFrame(n === 1 ? WELCOME : { type: 'surprise' })), 50);
    });
    const host = await linkTo(server);
    await waitUntil(() => server.hellos >= 3, 5_000, 'two reconnects');
    expect(host.status().link.stats.badLines).toBeGreaterThanOrEqual(2);
  });

  it('a reply for no request and an event with a bad envelope are counted and dropped; the session stays', async () => {
    const server = await hostile((s) => {
      s.write(encodeFrame(WELCOME));
      s.write(encodeFrame({ type: 'reply', ok: true, id: 'never-asked', result: {} }));
      s.write(encodeFrame({ type: 'event', seq: 'x', event: {} }));
      s.write(encodeFrame({ type: 'event', seq: 1, runId: 'run_x', event: { type: 'chat', text: 'fine' } }));
    });
    const host = await linkTo(server);
    await waitUntil(() => host.events.query({ limit: 10 }).events.some((e) => e.text === 'fine'), 5_000, 'the good event');
    expect(host.link.connected).toBe(true);
    expect(host.status().link.stats).toMatchObject({ lateReplies: 1, strayReplies: 1, badLines: 1 });
    expect(server.hellos).toBe(1);
  });
});

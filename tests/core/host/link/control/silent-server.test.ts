/**
 * A control server that falls silent (issue 35, item 5): frozen after its welcome, or a frame
 * whose body never ends. The link declares the session dead after its read deadline, says so,
 * counts it and reconnects; a quiet server that answers its pings is kept. Deadlines are the
 * link's internal `liveness` option, so no test waits the real 25 s.
 */
import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../../../../core/host/link/control/frames.js';
import { boundLimits } from '../../../../../core/host/link/control/limits.js';
import { livenessOf } from '../../../../../core/host/link/control/liveness.js';
import { answering, capturingLog, hostileFixture, WELCOME } from '../../../../support/hostile-control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const fixture = hostileFixture();
const FAST = { liveness: { pingMs: 100, deadMs: 500 } };

type Liveness = { pingMs: number; deadMs: number; silentSessions: number; pings: number };
const liveness = (status: { control?: Record<string, unknown> }) => status.control!.liveness as Liveness;

describe('a control server that falls silent', () => {
  it('frozen after its welcome: a ping goes unanswered, the session is declared dead, counted, and opened again', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame(WELCOME)));
    const { log, lines } = capturingLog();
    const host = await fixture.host(server, FAST, { log });
    await waitUntil(() => host.link.connected, 5_000, 'the first session');
    const call = host.link.request('PING').catch((err: Error) => err);
    await waitUntil(() => server.hellos >= 2, 5_000, 'a second session after the silence');
    const status = host.link.status();
    expect(liveness(status).silentSessions).toBeGreaterThanOrEqual(1);
    const said = /sent nothing for (\d+\.\d) s, a ping unanswered: the session is dead; reconnecting/.exec(lines.join('\n'));
    expect(said).not.toBeNull();
    // In seconds: the 500 ms deadline passed, said as 0.5 s or a little more.
    expect(Number(said![1])).toBeGreaterThanOrEqual(0.5);
    expect(Number(said![1])).toBeLessThan(5);
    // The call in flight was answered at once when the session died, not after its 15 s.
    expect(await call).toMatchObject({ code: 'not_connected' });
    expect(server.frames.some((f) => f.op === 'ping')).toBe(true);
  });

  it('a frame header whose body never ends: the read deadline ends the session', async () => {
    const server = await fixture.server((s) => {
      s.write(encodeFrame(WELCOME));
      const head = Buffer.alloc(4);
      head.writeUInt32BE(100, 0);
      s.write(Buffer.concat([head, Buffer.from('{"type":"ev')]));
    });
    const host = await fixture.host(server, FAST);
    await waitUntil(() => server.hellos >= 2, 5_000, 'a second session after the stalled frame');
    expect(liveness(host.link.status()).silentSessions).toBeGreaterThanOrEqual(1);
  });

  it('a quiet server that answers its pings is kept: one session, no silence counted', async () => {
    const server = await fixture.server({ hello: (s) => s.write(encodeFrame(WELCOME)), frame: answering() });
    const host = await fixture.host(server, FAST);
    // Eight pings span 800 ms or more: past the 500 ms deadline had they gone unanswered.
    await waitUntil(() => liveness(host.link.status()).pings >= 8, 10_000, 'eight keep-alive pings');
    expect(host.link.connected).toBe(true);
    expect(server.hellos).toBe(1);
    expect(liveness(host.link.status()).silentSessions).toBe(0);
  });

  it('without an override the deadlines come from the idle time: 25 s of silence at 300 s, floored for a tiny one', () => {
    expect(livenessOf(boundLimits({ idleSeconds: 300 }))).toEqual({ pingMs: 15_000, deadMs: 25_000 });
    expect(livenessOf(boundLimits(undefined))).toEqual({ pingMs: 15_000, deadMs: 25_000 });
    expect(livenessOf(boundLimits({ idleSeconds: 6 }))).toEqual({ pingMs: 2_000, deadMs: 12_000 });
    // idleSeconds 0.003 is floored at 1 s: a ping every 333 ms, not 1,231 a second.
    expect(livenessOf(boundLimits({ idleSeconds: 0.003 })).pingMs).toBeCloseTo(333.3, 0);
  });

  it('a timed-out call is counted among the timeouts', async () => {
    const server = await fixture.server((s) => s.write(encodeFrame(WELCOME)));
    const host = await fixture.host(server, FAST);
    await waitUntil(() => host.link.connected, 5_000, 'the session');
    await expect(host.link.request('PING', { timeoutMs: 100 })).rejects.toMatchObject({ code: 'timeout' });
    expect(host.link.stats.timeouts).toBe(1);
    // It had been sent: no queue timeout.
    expect(host.link.stats.queueTimeouts).toBe(0);
  });
});

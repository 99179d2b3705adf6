/**
 * Sequenced events of the simulated mod's control listener: replay from lastSeq after a
 * reconnect (nothing twice, nothing missed), a ring that no longer reaches back, a restart (new
 * run: ledger, leases and events of the old run are gone and that is reported), and a reader
 * that cannot keep up.
 */
import { describe, expect, it } from 'vitest';
import type { SimulatedMod } from '../../../../core/sim/index.js';
import { type ControlTestClient, controlFixture, type Frame } from '../../../support/control-client.js';
import { waitUntil } from '../../../support/wait-until.js';

const fixture = controlFixture();
const sim = fixture.sim;

async function hello(s: SimulatedMod, fields: Frame = {}): Promise<{ client: ControlTestClient; welcome: Frame }> {
  const { client, first } = await fixture.hello(s, fields);
  expect(first.type).toBe('welcome');
  return { client, welcome: first };
}

const marks = (client: ControlTestClient) =>
  client
    .events()
    .filter((e) => e.event.type === 'mark')
    .map((e) => ({ seq: e.seq, text: e.event.text, replay: e.replay === true }));

describe('replay', () => {
  it('after a reconnect from lastSeq: the missed events once, marked replay, then live ones; nothing twice, nothing missed', async () => {
    const s = await sim();
    const { client: first, welcome } = await hello(s);
    expect(welcome.replay).toMatchObject({ requestedSince: 1, lost: false, bufferedEvents: 0 }); // no lastSeq: from now on
    s.emit({ type: 'mark', millis: 1, text: 'a' });
    s.emit({ type: 'mark', millis: 2, text: 'b' });
    await waitUntil(() => marks(first).length === 2, 5000, 'two live marks');
    const lastSeq = Math.max(...first.events().map((e) => e.seq));
    first.close();
    await waitUntil(() => s.control!.sessions === 0, 5000, 'the session to end');
    s.emit({ type: 'mark', millis: 3, text: 'c' });
    s.emit({ type: 'mark', millis: 4, text: 'd' });

    const { client: second, welcome: again } = await hello(s, { lastSeq, runId: welcome.runId });
    expect(again.replay).toEqual({ requestedSince: lastSeq, from: lastSeq + 1, to: lastSeq + 2, lost: false, bufferedEvents: 2, persistedAcrossRuns: false });
    s.emit({ type: 'mark', millis: 5, text: 'e' });
    await waitUntil(() => marks(second).length === 3, 5000, 'two replayed marks and one live');
    expect(marks(second)).toEqual([
      { seq: lastSeq + 1, text: 'c', replay: true },
      { seq: lastSeq + 2, text: 'd', replay: true },
      { seq: lastSeq + 3, text: 'e', replay: false },
    ]);
  });

  it('lost:true when the ring no longer reaches lastSeq+1; what it holds is replayed', async () => {
    const s = await sim({ control: { eventBuffer: 4 } });
    for (let i = 0; i < 9; i++) s.emit({ type: 'mark', millis: i, text: `m${i}` }); // seq 2..10 after the startup event
    const { client, welcome } = await hello(s, { lastSeq: 3 });
    expect(welcome.replay).toEqual({ requestedSince: 3, from: 7, to: 10, lost: true, bufferedEvents: 4, persistedAcrossRuns: false });
    await waitUntil(() => client.events().length === 4, 5000, 'four replayed events');
    expect(client.events().map((e) => e.seq)).toEqual([7, 8, 9, 10]);
    const { welcome: justMissed } = await hello(s, { lastSeq: 5 });
    expect(justMissed.replay).toMatchObject({ from: 7, lost: true });
    const { welcome: full } = await hello(s, { lastSeq: 6 });
    expect(full.replay).toMatchObject({ from: 7, lost: false, bufferedEvents: 4 });
  });

  it('a restart is a new run: new runId, request_status unknown, leases gone, replay lost and from seq 1 of the new run', async () => {
    const s = await sim();
    const { client, welcome } = await hello(s);
    expect((await client.request('command', { command: 'time set 100' }, 'w1')).ok).toBe(true);
    expect((await client.request('exclusive_acquire', { key: 'k', ttlSeconds: 600 })).ok).toBe(true);
    const port = s.control!.port;
    await s.restart();
    await client.waitClosed();
    expect(s.control!.port).toBe(port);

    const { client: after, welcome: next } = await hello(s, { lastSeq: 5, runId: welcome.runId });
    expect(next.runId).not.toBe(welcome.runId);
    expect(next.replay).toMatchObject({ requestedSince: 5, from: 1, lost: true, persistedAcrossRuns: false });
    const startup = await after.next((f) => f.type === 'event');
    expect(startup).toMatchObject({ seq: 1, runId: next.runId, replay: true, event: { type: 'hello' } });
    expect((await after.request('request_status', { requestId: 'w1' })).result).toEqual({ requestId: 'w1', state: 'unknown' });
    expect((await after.request('exclusive_status')).result).toEqual({ leases: [] });
    expect((await after.request('command', { command: 'time set 100' }, 'w1')).result).toMatchObject({ writeSeq: 1, duplicate: false });
  });

  it('a reader that cannot keep up has events dropped and counted, then is closed; the sim and other sessions carry on', async () => {
    const s = await sim({ control: { maxDroppedEvents: 5 } });
    const { client: slow } = await hello(s);
    slow.socket.pause();
    const { client: fine } = await hello(s);
    const text = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 200 && !slow.closed; i++) {
      s.emit({ type: 'mark', millis: i, text });
      await new Promise((r) => setImmediate(r));
    }
    await waitUntil(() => s.control!.sessions === 1, 10_000, 'the slow session to be closed');
    expect((await fine.request('ping')).ok).toBe(true);
  });
});

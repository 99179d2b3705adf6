import { afterEach, describe, expect, it } from 'vitest';
import { startSim, STEVE_UUID, type SimOptions, type SimulatedMod } from '../../../core/sim/index.js';
import { LineClient, type Json } from '../../support/line-client.js';

let sim: SimulatedMod | undefined;
let client: LineClient | undefined;

afterEach(async () => {
  client?.close();
  await sim?.stop();
  sim = undefined;
});

async function open(options: SimOptions = {}): Promise<{ s: SimulatedMod; c: LineClient }> {
  // A frozen clock so ages are exact; advanceClock() moves it.
  sim = await startSim({ autoTick: false, now: () => 1_790_343_000_000, ...options });
  client = (await LineClient.open(sim.port)).client;
  return { s: sim, c: client };
}

describe('chat events', () => {
  it('receipt variant: key order, seq from 1, id and an inline summary', async () => {
    const { s, c } = await open();
    s.tick(12);
    s.chat('Steve', 'hello');
    const line = await c.nextLine();
    const event = JSON.parse(line);
    expect(Object.keys(event)).toEqual(['type', 'millis', 'seq', 'text', 'sender', 'context_id', 'context', 'event']);
    expect(event).toMatchObject({ type: 'chat', seq: 1, text: 'hello', sender: 'Steve', event: true });
    expect(event.context_id).toMatch(/^ctx-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(line).toContain(
      `"context":{"schema":"player-context/1","uuid":"${STEVE_UUID}","name":"Steve","tick":12,"timing":"receipt",` +
        '"dimension":"minecraft:overworld","x":0.5,"y":64.0,"z":0.5,"yaw":180.0,"pitch":45.0,"view":{"type":"block"}}',
    );
    s.chat('Steve', 'again');
    expect((await c.next()).seq).toBe(2);
  });

  it('broadcast, receipt_expired and sender_unavailable variants', async () => {
    const { s, c } = await open();
    s.chat('Steve', 'late', { variant: 'broadcast' });
    const broadcast = await c.next();
    expect(broadcast.context.timing).toBe('broadcast');
    expect(broadcast.context_id).toMatch(/^ctx-/);

    s.chat('Steve', 'slow', { variant: 'receipt_expired', receiptAgeMs: 61_500 });
    const expired = await c.next();
    expect(Object.keys(expired)).toEqual(['type', 'millis', 'seq', 'text', 'sender', 'context', 'event']);
    expect(expired.context).toEqual({ available: false, reason: 'receipt_expired', receivedAt: expired.millis - 61_500, ageMillis: 61_500 });

    s.chat('Ghost', 'who?', { variant: 'sender_unavailable' });
    const unknown = await c.next();
    expect(unknown).toEqual({ type: 'chat', millis: expect.any(Number), text: 'who?', context: { available: false, reason: 'sender_unavailable' }, event: true });
  });

  it('seq is assigned at receipt, so broadcasts can arrive out of order', async () => {
    const { s, c } = await open();
    const first = s.receiveChat('Steve', 'one');
    const second = s.receiveChat('Steve', 'two');
    s.broadcastChat(second);
    s.broadcastChat(first);
    expect([(await c.next()).seq, (await c.next()).seq]).toEqual([2, 1]);
  });
});

describe('CONTEXT', () => {
  it('returns the full bundle for a fresh id, not_found for unknown ids, and counts', async () => {
    const { s, c } = await open();
    s.chat('Steve', 'hi');
    const id = (await c.next()).context_id;
    s.advanceClock(842);
    const line = await c.requestRaw(`CONTEXT ${id}`);
    const ok = JSON.parse(line);
    expect(Object.keys(ok)).toEqual(['type', 'millis', 'context_id', 'status', 'ageMillis', 'context', 'cache']);
    expect(ok).toMatchObject({ type: 'context', context_id: id, status: 'ok', ageMillis: 842, cache: { capacity: 256, ttlMillis: 300000, size: 1 } });
    expect(Object.keys(ok.context)).toEqual(['schema', 'context_id', 'seq', 'capturedAt', 'tick', 'timing', 'uuid', 'name', 'dimension', 'x', 'y', 'z', 'yaw', 'pitch', 'view']);
    expect(ok.context.view).toEqual({ type: 'block', distance: 2.291, block: 'minecraft:stone', pos: [0, 63, -2], face: 'up', hit: [0.5, 64, -1.12] });
    expect(line).toContain('"view":{"type":"block","distance":2.291,"block":"minecraft:stone","pos":[0,63,-2],"face":"up","hit":[0.5,64.0,-1.12]}');

    const missing = await c.request('CONTEXT_GET ctx-nope');
    expect(missing).toEqual({ type: 'context', millis: expect.any(Number), context_id: 'ctx-nope', status: 'not_found', cache: { capacity: 256, ttlMillis: 300000, size: 1 } });
    expect((await c.request('CONTEXT a b')).context_id).toBe('a b');

    const stats = await c.request('CONTEXT');
    expect(stats).toEqual({
      type: 'context_stats',
      millis: expect.any(Number),
      status: 'ok',
      cache: { capacity: 256, ttlMillis: 300000, size: 1, hits: 1, misses: 2, expired: 0, evicted: 0 },
    });
    expect((await c.request('CONTEXT_STATS_GET')).type).toBe('context_stats');
  });

  it('reports an expired entry once, then not_found', async () => {
    const { s, c } = await open({ contextTtlSeconds: 10 });
    s.chat('Steve', 'hi');
    const event = await c.next();
    s.advanceClock(10_001);
    const expired = await c.request(`CONTEXT ${event.context_id}`);
    expect(Object.keys(expired)).toEqual(['type', 'millis', 'context_id', 'status', 'capturedAt', 'ageMillis', 'cache']);
    expect(expired).toMatchObject({ status: 'expired', ageMillis: 10_001, cache: { size: 0 } });
    expect(expired.capturedAt).toBe(expired.millis - 10_001);
    expect((await c.request(`CONTEXT ${event.context_id}`)).status).toBe('not_found');
    expect((await c.request('CONTEXT')).cache).toMatchObject({ expired: 1, misses: 1, hits: 0 });
  });

  it('purges expired entries on insert (straight to not_found) and evicts the oldest when full', async () => {
    const { s, c } = await open({ contextTtlSeconds: 10, contextCacheSize: 2 });
    const ids: string[] = [];
    const say = async (text: string) => {
      s.chat('Steve', text);
      ids.push((await c.next()).context_id);
    };
    await say('a');
    s.advanceClock(11_000);
    await say('b'); // purges a
    expect((await c.request(`CONTEXT ${ids[0]}`)).status).toBe('not_found');
    await say('c');
    await say('d'); // evicts b
    expect((await c.request(`CONTEXT ${ids[1]}`)).status).toBe('not_found');
    expect((await c.request(`CONTEXT ${ids[3]}`)).status).toBe('ok');
    expect((await c.request('CONTEXT')).cache).toEqual({ capacity: 2, ttlMillis: 10000, size: 2, hits: 1, misses: 2, expired: 1, evicted: 1 });
  });

  it('a receipt_expired chat never enters the cache', async () => {
    const { s, c } = await open();
    s.chat('Steve', 'x', { variant: 'receipt_expired' });
    await c.next();
    expect((await c.request('CONTEXT')).cache.size).toBe(0);
  });

  it('is reset by a server restart', async () => {
    const { s, c } = await open();
    s.chat('Steve', 'before');
    const id = (await c.next()).context_id;
    await s.restart();
    const fresh = (await LineClient.open(s.port)).client;
    client = fresh;
    c.close();
    expect((await fresh.request(`CONTEXT ${id}`)).status).toBe('not_found');
    s.chat('Steve', 'after');
    expect(((await fresh.next()) as Json).seq).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { STEVE_UUID } from 'mcbridge/testing';
import { normalizeContextReply } from '../../plugins/context/reply.js';
import type { Stack } from '../support/plugins.js';
import { ALEX_UUID, expectInvalidParams, failure, sentSince, steveAndAlex, useStacks } from '../support/plugins.js';

const stacks = useStacks();

/** Make a player chat in the sim and return the chat event as the daemon buffered it. */
async function chat(stack: Stack, player: string, text: string, variant?: 'receipt' | 'broadcast' | 'receipt_expired' | 'sender_unavailable') {
  const since = stack.lastSeq();
  stack.sim.chat(player, text, variant ? { variant } : {});
  const got = (await stack.client.call('wait_for', { match: { type: 'chat', text: `^${text}$` }, since, timeout_ms: 5_000 })) as any;
  expect(got.matched).toBe(true);
  return got.event as Record<string, any>;
}

describe('context on the server vantage', () => {
  it("returns the receipt-time bundle for a chat event's contextId (sent as CONTEXT <id>)", async () => {
    const stack = await stacks.start();
    const event = await chat(stack, 'Steve', 'hello');
    expect(event.contextId).toMatch(/^ctx-/);
    expect(event.context_id).toBe(event.contextId);
    const before = stack.sim.received.length;
    const result = (await stack.client.call('context', { id: event.contextId })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual([`CONTEXT ${event.contextId}`]);
    expect(result).toMatchObject({ type: 'context_bundle', id: event.contextId, found: true, status: 'ok', ttlMillis: 300_000, cacheLimit: 256 });
    expect(result.context).toMatchObject({
      schema: 'player-context/1',
      context_id: event.contextId,
      timing: 'receipt',
      uuid: STEVE_UUID,
      name: 'Steve',
      tick: expect.any(Number),
      view: { type: 'block', block: 'minecraft:stone', pos: [0, 63, -2] },
    });
    expect(result.expiresAt).toBe(result.context.capturedAt + 300_000);
  });

  it('a broadcast-time bundle is found too, and each player gets only their own bundle', async () => {
    const stack = await stacks.start({
      sim: { players: steveAndAlex({ x: 10.5, z: 10.5 }) },
    });
    const steve = await chat(stack, 'Steve', 'from steve');
    const alex = await chat(stack, 'Alex', 'from alex', 'broadcast');
    const a = (await stack.client.call('context', { id: alex.contextId })) as Record<string, any>;
    const s = (await stack.client.call('context', { id: steve.contextId })) as Record<string, any>;
    expect(a.context).toMatchObject({ timing: 'broadcast', uuid: ALEX_UUID, name: 'Alex', x: 10.5 });
    expect(s.context).toMatchObject({ timing: 'receipt', uuid: STEVE_UUID, name: 'Steve', x: 0.5 });
  });

  it("an unknown id is found:false with status not_found, never someone else's bundle", async () => {
    const stack = await stacks.start();
    await chat(stack, 'Steve', 'hello');
    const result = (await stack.client.call('context', { id: 'ctx-nope' })) as Record<string, any>;
    expect(result).toMatchObject({ type: 'context_bundle', id: 'ctx-nope', found: false, status: 'not_found', context: null });
  });

  it('an expired id is reported once as expired, then as not_found', async () => {
    const stack = await stacks.start();
    const event = await chat(stack, 'Steve', 'old news');
    stack.sim.advanceClock(301_000);
    const first = (await stack.client.call('context', { id: event.contextId })) as Record<string, any>;
    expect(first).toMatchObject({ found: false, status: 'expired', expired: true, context: null, capturedAt: expect.any(Number) });
    expect(first.ageMillis).toBeGreaterThan(300_000);
    const second = (await stack.client.call('context', { id: event.contextId })) as Record<string, any>;
    expect(second).toMatchObject({ found: false, status: 'not_found', context: null });
    expect(second).not.toHaveProperty('expired');
  });

  it('chat events without a bundle (receipt expired, sender unavailable) carry no contextId', async () => {
    const stack = await stacks.start();
    const expired = await chat(stack, 'Steve', 'slow filter', 'receipt_expired');
    expect(expired.contextId).toBeUndefined();
    expect(expired.context).toMatchObject({ available: false, reason: 'receipt_expired' });
    const unavailable = await chat(stack, 'Steve', 'who said that', 'sender_unavailable');
    expect(unavailable.contextId).toBeUndefined();
    expect(unavailable.context).toEqual({ available: false, reason: 'sender_unavailable' });
  });

  it('keeps 256 bundles: the oldest is evicted (not_found) while the newest is still there', async () => {
    const stack = await stacks.start();
    const first = await chat(stack, 'Steve', 'message 0');
    for (let i = 1; i <= 256; i += 1) stack.sim.chat('Steve', `message ${i}`);
    const last = await chat(stack, 'Steve', 'message 257');
    expect(((await stack.client.call('context', { id: first.contextId })) as any).status).toBe('not_found');
    expect(((await stack.client.call('context', { id: last.contextId })) as any).status).toBe('ok');
  });

  it("accepts the predecessor's parameter names context_id and contextId", async () => {
    const stack = await stacks.start();
    for (const key of ['context_id', 'contextId']) {
      const result = (await stack.client.call('context', { [key]: 'ctx-nope' })) as Record<string, any>;
      expect(result).toMatchObject({ found: false, status: 'not_found' });
    }
  });

  it('validates the id', async () => {
    const stack = await stacks.start();
    await expectInvalidParams(stack, [
      ['context', {}, /'id'/],
      ['context', { id: '' }, /id must not be empty/],
      ['context', { id: 'ctx-1\nSTATE' }, /single line/],
      ['context', { id: 12 }, /id must be a string/],
      ['context', { id: 'ctx-1', context_id: 'ctx-1' }, /'context_id'/],
      ['context', { ctx: 'ctx-1' }, /"ctx"/],
    ]);
  });
});

describe('context elsewhere', () => {
  it('is hidden on the client vantage, naming mc-agent-interface-mod#2, and nothing is sent', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const before = stack.sim.received.length;
    const err = await failure(stack.client.call('context', { id: 'ctx-1' }));
    expect(err.code).toBe('unsupported_capability');
    expect(err.message).toMatch(/mc-agent-interface-mod#2/);
    expect(sentSince(stack, before)).toEqual([]);
  });
});

describe('normalizeContextReply', () => {
  it('never returns a bundle whose id is not the one asked for', () => {
    const out = normalizeContextReply({ type: 'context', context_id: 'ctx-a', status: 'ok', context: { context_id: 'ctx-b', name: 'Other' } }, 'ctx-a');
    expect(out).toMatchObject({ found: false, status: 'mismatch', context: null });
  });

  it('reads flat replies of older mods and treats missing/evicted statuses as not found', () => {
    expect(normalizeContextReply({ type: 'context', id: 'ctx-42', tick: 7, sender: 'Notch' }, 'ctx-42')).toMatchObject({
      found: true,
      status: 'ok',
      context: { id: 'ctx-42', tick: 7, sender: 'Notch' },
    });
    expect(normalizeContextReply({ type: 'context', status: 'evicted' }, 'ctx-1')).toMatchObject({ found: false, status: 'evicted', context: null });
  });
});

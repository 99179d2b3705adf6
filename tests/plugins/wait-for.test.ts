import { describe, expect, it } from 'vitest';
import { STEVE_UUID } from 'mcbridge/testing';
import { conditionHolds, readPath } from '../../core/kit/condition.js';
import { rawConnection, waitUntil } from '../support/helpers.js';
import { expectInvalidParams, failure, sentSince, useStacks, type Stack } from '../support/plugins.js';

const stacks = useStacks();

/** The daemon's wait is listening (the API's own push listener is always there). */
async function waiting(stack: Stack): Promise<void> {
  const baseline = 1;
  await waitUntil(() => stack.daemon.host.events.stats().listeners > baseline, 5_000, 'the wait to listen');
}

describe('wait_for an event', () => {
  it('resolves when a matching event arrives, with the event and its seq as cursor', async () => {
    const stack = await stacks.start();
    const pending = stack.client.call('wait_for', { match: { type: 'chat', sender: 'steve', text: '^ready' }, timeout_ms: 10_000 });
    await waiting(stack);
    stack.sim.chat('Steve', 'not yet');
    stack.sim.emit({ type: 'game', millis: 1, text: 'ready (but not chat)' });
    stack.sim.chat('Steve', 'ready now');
    const result = (await pending) as Record<string, any>;
    expect(result.matched).toBe(true);
    expect(result.event).toMatchObject({ type: 'chat', text: 'ready now', sender: 'Steve', category: 'chat' });
    expect(result.event.contextId).toMatch(/^ctx-/);
    expect(result.cursor).toBe(result.event.seq);
    expect(result.waitedMs).toBeGreaterThanOrEqual(0);
  });

  it('with since, finds an event that arrived before the call, and continues after a returned cursor', async () => {
    const stack = await stacks.start();
    const since = stack.lastSeq();
    await stack.client.call('mark', { text: 'one' });
    await stack.client.call('mark', { text: 'two' });
    await waitUntil(() => stack.lastSeq() >= since + 2, 5_000, 'the marks');
    const first = (await stack.client.call('wait_for', { match: { category: 'mark' }, since, timeout_ms: 1_000 })) as Record<string, any>;
    expect(first.event.text).toBe('one');
    const second = (await stack.client.call('wait_for', { match: { category: 'mark' }, since: first.cursor, timeout_ms: 1_000 })) as Record<string, any>;
    expect(second.event.text).toBe('two');
    const eventId = (await stack.client.call('wait_for', { match: { category: 'mark' }, since: first.event.eventId, timeout_ms: 1_000 })) as Record<string, any>;
    expect(eventId.event.text).toBe('two');
  });

  it('on timeout returns matched:false with what did happen meanwhile', async () => {
    const stack = await stacks.start();
    const pending = stack.client.call('wait_for', { match: { type: 'chat', text: 'never' }, timeout_ms: 600 });
    await waiting(stack);
    stack.sim.chat('Steve', 'something else');
    await stack.client.call('mark', { text: 'meanwhile' });
    const result = (await pending) as Record<string, any>;
    expect(result).toMatchObject({ matched: false, timedOut: true });
    expect(result.waitedMs).toBeGreaterThanOrEqual(550);
    expect(result.seen).toMatchObject({ total: 2, byCategory: { chat: 1, mark: 1 }, byType: { chat: 1, mark: 1 }, dropped: false });
    expect(result.seen.recent.map((e: any) => e.text)).toEqual(['something else', 'meanwhile']);
    expect(result.seen.recent[0]).toMatchObject({ type: 'chat', sender: 'Steve', contextId: expect.stringMatching(/^ctx-/) });
    expect(result.cursor).toBe(stack.lastSeq());
  });

  it('stops waiting when cancelled: one response, code cancelled, and the daemon keeps serving', async () => {
    const stack = await stacks.start();
    const raw = await rawConnection(stack.port);
    raw.send(JSON.stringify({ id: 'w', method: 'wait_for', params: { match: { type: 'never' }, timeout_ms: 600_000 }, progress: true }));
    const first = await raw.next();
    expect(first).toMatchObject({ type: 'progress', id: 'w', progress: 0, total: 600_000 });
    raw.send(JSON.stringify({ id: 'c', method: 'cancel', params: { id: 'w' } }));
    const frames = [await raw.next(), await raw.next()];
    expect(frames.find((f) => f.id === 'c')).toMatchObject({ ok: true });
    expect(frames.find((f) => f.id === 'w' && f.type === 'response')).toMatchObject({ ok: false, code: 'cancelled' });
    raw.send(JSON.stringify({ id: 'p', method: 'ping' }));
    let next = await raw.next();
    while (next.type === 'progress') next = await raw.next();
    expect(next).toMatchObject({ id: 'p', ok: true });
    raw.close();
  });

  it('sends progress while it waits', async () => {
    const stack = await stacks.start();
    const progress: number[] = [];
    const result = (await stack.client.call('wait_for', { match: { type: 'never' }, timeout_ms: 1_500 }, { onProgress: (p) => progress.push(p.progress) })) as any;
    expect(result.matched).toBe(false);
    expect(progress[0]).toBe(0);
    expect(progress.length).toBeGreaterThanOrEqual(2);
  });
});

describe('wait_for a STATE value', () => {
  it('polls STATE until the path reaches the value', async () => {
    const stack = await stacks.start();
    const waiting = stack.client.call('wait_for', { match: { state: { path: 'players', gte: 2 } }, timeout_ms: 10_000, poll_ms: 100 });
    await waitUntil(() => stack.sim.received.filter((l) => l === 'STATE').length >= 2, 5_000, 'a couple of polls');
    stack.sim.addPlayer({ name: 'Alex', x: 5, y: 64, z: 5 });
    const result = (await waiting) as Record<string, any>;
    expect(result).toMatchObject({ matched: true, value: 2 });
    expect(result.state.type).toBe('state');
    expect(result.polls).toBeGreaterThanOrEqual(2);
    const byName = (await stack.client.call('wait_for', { match: { state: { path: 'playerList[1].name', equals: 'Alex' } }, timeout_ms: 2_000 })) as any;
    expect(byName).toMatchObject({ matched: true, value: 'Alex', polls: 1 });
    const contains = (await stack.client.call('wait_for', { match: { state: { path: 'playerList', contains: { name: 'Steve', uuid: STEVE_UUID } } }, timeout_ms: 2_000 })) as any;
    expect(contains.matched).toBe(true);
  });

  it('on timeout returns the last value seen and the number of polls', async () => {
    const stack = await stacks.start();
    const result = (await stack.client.call('wait_for', { match: { state: { path: 'players', equals: 5 } }, timeout_ms: 500, poll_ms: 100 })) as any;
    expect(result).toMatchObject({ matched: false, timedOut: true, lastValue: 1, pathPresent: true });
    expect(result.polls).toBeGreaterThanOrEqual(2);
    const missing = (await stack.client.call('wait_for', { match: { state: { path: 'nope.deeper', exists: true } }, timeout_ms: 200, poll_ms: 100 })) as any;
    expect(missing).toMatchObject({ matched: false, lastValue: null, pathPresent: false });
  });

  it('stops polling when cancelled', async () => {
    const stack = await stacks.start();
    const raw = await rawConnection(stack.port);
    raw.send(JSON.stringify({ id: 's', method: 'wait_for', params: { match: { state: { path: 'players', equals: 9 } }, timeout_ms: 600_000, poll_ms: 100 } }));
    await waitUntil(() => stack.sim.received.filter((l) => l === 'STATE').length >= 1, 5_000, 'the first poll');
    raw.send(JSON.stringify({ id: 'c', method: 'cancel', params: { id: 's' } }));
    const frames = [await raw.next(), await raw.next()];
    expect(frames.find((f) => f.id === 's')).toMatchObject({ ok: false, code: 'cancelled' });
    const polls = stack.sim.received.filter((l) => l === 'STATE').length;
    // Four poll intervals later, measured in the game's own requests: a poll still running would
    // have sent STATE again before these marks come back.
    for (let i = 0; i < 4; i++) await stack.client.call('wait', { ticks: 2 });
    expect(stack.sim.received.filter((l) => l === 'STATE').length).toBeLessThanOrEqual(polls + 1);
    raw.close();
  });

  it('needs the state capability for state conditions, but not for events', async () => {
    const stack = await stacks.start({ sim: { capabilities: ['mark', 'command'] } });
    const before = stack.sim.received.length;
    const err = await failure(stack.client.call('wait_for', { match: { state: { path: 'players', gte: 1 } }, timeout_ms: 1_000 }));
    expect(err.code).toBe('unsupported_capability');
    expect(sentSince(stack, before)).toEqual([]);
    await stack.client.call('mark', { text: 'x' });
    const ok = (await stack.client.call('wait_for', { match: { category: 'mark' }, since: 0, timeout_ms: 2_000 })) as any;
    expect(ok.matched).toBe(true);
  });

  it('works on the client vantage (STATE is the local player)', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const result = (await stack.client.call('wait_for', { match: { state: { path: 'inWorld', equals: true } }, timeout_ms: 2_000 })) as any;
    expect(result).toMatchObject({ matched: true, value: true });
  });
});

describe('wait_for parameters', () => {
  it('validates every parameter with a message that names it', async () => {
    const stack = await stacks.start();
    await expectInvalidParams(stack, [
      ['wait_for', {}, /'match'/],
      ['wait_for', { match: 'chat' }, /'match': match must be an object/],
      ['wait_for', { match: {} }, /match needs at least one of category, type, text, sender, or state/],
      ['wait_for', { match: { type: 'chat', state: { path: 'players', gte: 1 } } }, /either event fields .* or state, not both/],
      ['wait_for', { match: { category: 'gossip' } }, /'match.category'/],
      ['wait_for', { match: { text: '[' } }, /'match.text': text must be a valid JavaScript regular expression/],
      ['wait_for', { match: { colour: 'red' } }, /"colour"/],
      ['wait_for', { match: { state: { path: 'players' } } }, /state needs exactly one of equals, not_equals, gte, lte, contains, exists/],
      ['wait_for', { match: { state: { path: 'players', gte: 1, lte: 3 } } }, /exactly one of .* \(got gte, lte\)/],
      ['wait_for', { match: { state: { path: '../etc', equals: 1 } } }, /'match.state.path': state.path must be a dotted path/],
      ['wait_for', { match: { state: { path: 'players', gte: 'two' } } }, /state.gte must be a number/],
      ['wait_for', { match: { type: 'chat' }, timeout_ms: 0 }, /'timeout_ms': timeout_ms must be at least 1/],
      ['wait_for', { match: { type: 'chat' }, timeout_ms: 600_001 }, /timeout_ms must be at most 600000/],
      ['wait_for', { match: { type: 'chat' }, timeout_ms: 1.5 }, /whole number/],
      ['wait_for', { match: { type: 'chat' }, poll_ms: 50 }, /'poll_ms': poll_ms must be at least 100/],
      ['wait_for', { match: { type: 'chat' }, poll_ms: 500 }, /'poll_ms': poll_ms only applies to state conditions/],
      ['wait_for', { match: { type: 'chat' }, since: 'not a cursor' }, /since must be a seq number or an eventId/],
      ['wait_for', { match: { type: 'chat' }, sleep: 5 }, /"sleep"/],
    ]);
  });
});

describe('state conditions', () => {
  it('read paths with dots and brackets, and compare as documented', () => {
    const state = { players: 2, playerList: [{ name: 'A', uuid: 'u' }, { name: 'B' }], inWorld: true, v: null };
    expect(readPath(state, 'playerList[1].name')).toEqual({ present: true, value: 'B' });
    expect(readPath(state, 'playerList.0.uuid')).toEqual({ present: true, value: 'u' });
    expect(readPath(state, 'playerList.2.name')).toEqual({ present: false });
    expect(conditionHolds({ path: 'v', equals: null }, readPath(state, 'v'))).toBe(true);
    expect(conditionHolds({ path: 'x', not_equals: 1 }, readPath(state, 'x'))).toBe(true);
    expect(conditionHolds({ path: 'players', lte: 1 }, readPath(state, 'players'))).toBe(false);
    expect(conditionHolds({ path: 'playerList', contains: { name: 'B' } }, readPath(state, 'playerList'))).toBe(true);
    expect(conditionHolds({ path: 'playerList.0.name', contains: 'A' }, readPath(state, 'playerList.0.name'))).toBe(true);
    expect(conditionHolds({ path: 'players', gte: 2 }, { present: true, value: '2' })).toBe(false);
    expect(conditionHolds({ path: 'inWorld', exists: false }, readPath(state, 'inWorld'))).toBe(false);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import type { McbridgeError } from '../../../../core/host/errors.js';
import { ModLink, type ModLinkOptions } from '../../../../core/host/link/mod-link.js';
import { silentLogger } from '../../../../core/util/log.js';
import { Gate, ScriptedMod, SERVER_HELLO, type ScriptedConnection, type ScriptedReply } from '../../../support/scripted-mod.js';
import { builtinVerbs } from '../../../support/verbs.js';
import { waitUntil } from '../../../support/wait-until.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A mod whose STATE (server thread) and, optionally, MARK replies wait for the test; `answer`
 * overrides any other line.
 */
async function setup(options: { holdMarks?: boolean; answer?: (line: string, conn: ScriptedConnection) => ScriptedReply[] | undefined } = {}, linkOptions: Partial<ModLinkOptions> = {}) {
  const states = new Gate();
  const marks = new Gate();
  let tick = 0;
  const mod = await ScriptedMod.start({
    respond: (line, conn) => {
      const own = options.answer?.(line, conn);
      if (own) return own;
      if (line === 'STATE') return states.hold(conn, { type: 'state', millis: Date.now(), tick: ++tick });
      if (line.startsWith('MARK ')) {
        const ack = { type: 'mark_ack', millis: Date.now(), detail: line.slice(5) };
        return options.holdMarks ? marks.hold(conn, ack) : [{ line: ack }];
      }
      return undefined;
    },
  });
  const link = new ModLink({ vantage: 'server', modPort: mod.port, verbs: builtinVerbs(), log: silentLogger(), onEvent: () => {}, ...linkOptions });
  link.start();
  cleanups.push(
    () => mod.stop(),
    () => link.stop(),
  );
  await waitUntil(() => link.connected, 5_000, 'the link to be ready');
  const sent = () => mod.received.slice(1); // after CAPS
  return { mod, link, states, marks, sent };
}

function failure(promise: Promise<unknown>): Promise<McbridgeError> {
  return promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (err: McbridgeError) => err,
  );
}

describe('which requests may overtake a slow one', () => {
  it('a MARK waits behind an earlier MARK, never beside it: both expect mark_ack', async () => {
    const { link, states, marks, sent } = await setup({ holdMarks: true });
    const state = link.request('STATE');
    await states.untilHeld(1);
    const first = link.request('MARK a');
    const second = link.request('MARK b');
    await marks.untilHeld(1);
    expect(sent()).toEqual(['STATE', 'MARK a']);
    marks.release();
    await expect(first).resolves.toMatchObject({ detail: 'a' });
    await marks.untilHeld(1);
    marks.release();
    await expect(second).resolves.toMatchObject({ detail: 'b' });
    states.release();
    await state;
    expect(sent()).toEqual(['STATE', 'MARK a', 'MARK b']);
  });

  it('with only quick requests out, a queued slow one goes next: later quick ones do not starve it', async () => {
    const { link, states, marks, sent } = await setup({ holdMarks: true });
    const first = link.request('MARK 1');
    await marks.untilHeld(1);
    const state = link.request('STATE');
    const second = link.request('MARK 2');
    const ping = link.request('PING');
    // MARK 2 and PING expect nothing MARK 1 does, but they wait: STATE was asked first.
    await waitUntil(() => link.status().queued === 3, 5_000, 'STATE, MARK 2 and PING queued');
    expect(link.status().inFlight.map((r) => r.line)).toEqual(['MARK 1']);
    marks.release();
    await first;
    // MARK 1 answered: STATE goes, and the quick ones overtake it, as the slow one is out now.
    await expect(ping).resolves.toMatchObject({ type: 'pong' });
    await marks.untilHeld(1);
    expect(sent()).toEqual(['MARK 1', 'STATE', 'MARK 2', 'PING']);
    marks.release();
    states.release();
    await expect(Promise.all([state, second])).resolves.toMatchObject([{ type: 'state' }, { detail: '2' }]);
  });

  it('a verb nobody declared never overtakes: any reply could be its answer', async () => {
    const { link, states, sent } = await setup({ answer: (line) => (line === 'FROB' ? [{ line: { type: 'frob_ack', millis: 1 } }] : undefined) });
    const state = link.request('STATE');
    await states.untilHeld(1);
    const frob = link.request('FROB');
    await link.request('PING');
    expect(sent()).toEqual(['STATE', 'PING']);
    states.release();
    await state;
    await expect(frob).resolves.toMatchObject({ type: 'frob_ack' });
  });

  it('a quick request overtakes a slow one whose caller gave up, and the next slow one still waits for its late reply', async () => {
    const { link, states, sent } = await setup();
    expect((await failure(link.request('STATE', { timeoutMs: 50 }))).code).toBe('timeout');
    await expect(link.request('MARK after the timeout')).resolves.toMatchObject({ detail: 'after the timeout' });
    expect(link.status().owed).toEqual([{ line: 'STATE', ageMs: expect.any(Number), why: 'abandoned' }]);
    const next = link.request('STATE');
    expect(sent()).toEqual(['STATE', 'MARK after the timeout']);
    states.release(); // the late reply of the first: discarded, and the second goes out
    await states.untilHeld(1);
    states.release();
    await expect(next).resolves.toMatchObject({ tick: 2 });
    expect(link.stats.lateReplies).toBe(1);
  });
});

describe('overtaking, when reply types alone cannot tell the replies apart', () => {
  it('a quick verb waits while a verb nobody declared is out: that verb takes any reply', async () => {
    const frobs = new Gate();
    const { link, sent } = await setup({ answer: (line, conn) => (line === 'FROB' ? frobs.hold(conn, { type: 'frob_ack', millis: 1 }) : undefined) });
    const frob = link.request('FROB');
    await frobs.untilHeld(1);
    const ping = link.request('PING');
    expect(link.status()).toMatchObject({ inFlight: [{ line: 'FROB' }], queued: 1 });
    frobs.release();
    await expect(frob).resolves.toMatchObject({ type: 'frob_ack' });
    await expect(ping).resolves.toMatchObject({ type: 'pong' });
    expect(sent()).toEqual(['FROB', 'PING']);
  });

  it('a quick verb asked to take any reply waits too: it could take the reply of the one out', async () => {
    const { link, states, sent } = await setup();
    const state = link.request('STATE');
    await states.untilHeld(1);
    const ping = link.request('PING', { replies: [] });
    expect(link.status()).toMatchObject({ inFlight: [{ line: 'STATE' }], queued: 1 });
    states.release();
    await expect(state).resolves.toMatchObject({ type: 'state' });
    await expect(ping).resolves.toMatchObject({ type: 'pong' });
    expect(sent()).toEqual(['STATE', 'PING']);
  });

  it('a request that expects one of the reply types of one out waits, even if it expects others too', async () => {
    const { link, states, sent } = await setup();
    const state = link.request('STATE', { replies: ['state', 'mark_ack'] });
    await states.untilHeld(1);
    const mark = link.request('MARK x');
    expect(link.status()).toMatchObject({ inFlight: [{ line: 'STATE' }], queued: 1 });
    states.release();
    await expect(state).resolves.toMatchObject({ type: 'state' });
    await expect(mark).resolves.toMatchObject({ type: 'mark_ack', detail: 'x' });
    expect(sent()).toEqual(['STATE', 'MARK x']);
  });

  it('a quick request never passes a queued one that expects a reply type it expects', async () => {
    const { link, states, sent } = await setup();
    const state = link.request('STATE');
    await states.untilHeld(1);
    const one = link.request('MARK one', { replies: ['state', 'mark_ack'] });
    const two = link.request('MARK two');
    await waitUntil(() => link.status().queued === 2, 5_000, 'both marks queued');
    states.release();
    await expect(Promise.all([state, one, two])).resolves.toMatchObject([{ type: 'state' }, { detail: 'one' }, { detail: 'two' }]);
    expect(sent()).toEqual(['STATE', 'MARK one', 'MARK two']);
  });

  it('while a slow request is out, a quick one may pass a queued slow one', async () => {
    const { link, states, marks, sent } = await setup({ holdMarks: true });
    const first = link.request('STATE');
    await states.untilHeld(1);
    const mark = link.request('MARK beside');
    await marks.untilHeld(1);
    const second = link.request('STATE');
    await expect(link.request('PING')).resolves.toMatchObject({ type: 'pong' });
    expect(sent()).toEqual(['STATE', 'MARK beside', 'PING']);
    marks.release();
    states.release();
    await states.untilHeld(1);
    states.release();
    await expect(Promise.all([first, mark, second])).resolves.toMatchObject([{ tick: 1 }, { detail: 'beside' }, { tick: 2 }]);
  });
});

describe('error replies with two requests out', () => {
  it('`unknown command: <line>` goes to the request it names', async () => {
    const { link, states } = await setup({
      answer: (line) => (line === 'MARK x' ? [{ line: { type: 'error', millis: 1, message: 'unknown command: MARK x' } }] : undefined),
    });
    const state = link.request('STATE');
    await states.untilHeld(1);
    const err = await failure(link.request('MARK x'));
    expect(err).toMatchObject({ code: 'mod_error', message: 'unknown command: MARK x' });
    states.release();
    await expect(state).resolves.toMatchObject({ type: 'state', tick: 1 });
  });

  it('any other error goes to the slow request, not to the quick one beside it', async () => {
    let stateConn: ScriptedConnection | null = null;
    const { link, marks } = await setup({
      holdMarks: true,
      answer: (line, conn) => {
        if (line !== 'STATE') return undefined;
        stateConn = conn;
        return [];
      },
    });
    const state = failure(link.request('STATE'));
    const mark = link.request('MARK beside');
    await marks.untilHeld(1);
    stateConn!.write({ type: 'error', millis: 1, message: 'task failed: java.lang.IllegalStateException: boom' });
    expect(await state).toMatchObject({ code: 'mod_error', message: /task failed/ });
    marks.release();
    await expect(mark).resolves.toMatchObject({ detail: 'beside' });
  });

  it('with only quick requests out, any other error goes to the oldest: the reader thread answers in order', async () => {
    let markConn: ScriptedConnection | null = null;
    let capsAsked = 0;
    const { link, mod } = await setup({
      answer: (line, conn) => {
        if (line === 'MARK first') {
          markConn = conn;
          return [];
        }
        return line === 'CAPS' && ++capsAsked > 1 ? [] : undefined; // the handshake's CAPS is answered
      },
    });
    const mark = failure(link.request('MARK first'));
    const caps = link.request('CAPS');
    await waitUntil(() => mod.received.filter((l) => l === 'CAPS').length === 2, 5_000, 'MARK and CAPS both out');
    markConn!.write({ type: 'error', millis: 1, message: 'bad command: java.lang.IllegalArgumentException: nope' });
    expect(await mark).toMatchObject({ code: 'mod_error', message: /bad command/ });
    markConn!.write({ type: 'capabilities', millis: 1, capabilities: SERVER_HELLO.capabilities });
    await expect(caps).resolves.toMatchObject({ type: 'capabilities' });
  });
});

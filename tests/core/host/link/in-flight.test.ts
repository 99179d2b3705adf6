/**
 * What is out on the main connection (in-flight.ts): which request an error reply answers, which
 * requests may be out together, and what the PING barrier of a mod that answers twice keeps from
 * the request behind it.
 */
import { describe, expect, it } from 'vitest';
import { failure } from '../../../support/errors.js';
import { Gate, type ScriptedConnection, type ScriptedReply } from '../../../support/scripted-mod.js';
import { useScriptedLinks } from '../../../support/scripted-link.js';
import { waitUntil } from '../../../support/wait-until.js';

const startLink = useScriptedLinks();

/** A mod whose STATE replies (server thread) wait for the test; MARKs are acked at once; `answer` overrides. */
async function heldStates(answer: (line: string) => ScriptedReply[] | undefined = () => undefined) {
  const states = new Gate();
  const started = await startLink({
    respond: (line, conn: ScriptedConnection) => {
      const own = answer(line);
      if (own) return own;
      if (line === 'STATE') return states.hold(conn, { type: 'state', millis: 1, tick: 1 });
      if (line.startsWith('MARK ')) return [{ line: { type: 'mark_ack', millis: 1, detail: line.slice(5) } }];
      return undefined;
    },
  });
  return { ...started, states };
}

describe('a mod that answers twice: what it writes before the pong of the barrier', () => {
  // MARK is answered on the reader thread: with only quick requests out, an error goes to the oldest.
  it('was written before it read the request: neither an error nor a reply of its type answers it', async () => {
    const mark = (detail: string) => ({ type: 'mark_ack', millis: 1, detail });
    const { link, mod } = await startLink({
      respond: (line) => {
        if (line === 'MARK 0') return [{ line: mark('0') }, { line: mark('0') }];
        if (line === 'PING') {
          return [{ line: { type: 'error', millis: 2, message: 'task failed: stale' } }, { line: mark('stale') }, { line: { type: 'pong', t: 2 } }];
        }
        if (line === 'MARK 1') return [{ line: mark('1') }];
        return undefined;
      },
    });
    await link.request('MARK 0');
    await waitUntil(() => link.status().doubleAnswering, 5_000, 'the copy to be seen');
    const strays = link.stats.strayReplies;
    await expect(link.request('MARK 1')).resolves.toMatchObject({ detail: '1' });
    expect(mod.received.slice(-2)).toEqual(['PING', 'MARK 1']);
    expect(link.stats.strayReplies - strays).toBe(2);
  });
});

describe('a request that names error among its reply types', () => {
  // Every error could be its answer, so its replies and another's cannot be told apart.
  it('never goes out beside another request, nor another beside it', async () => {
    const { link, mod, states } = await heldStates();
    const state = link.request('STATE', { replies: ['state', 'error'] });
    await states.untilHeld(1);
    const mark = link.request('MARK a');
    expect(link.status().queued).toBe(1);
    states.release();
    await expect(Promise.all([state, mark])).resolves.toMatchObject([{ type: 'state' }, { detail: 'a' }]);

    const again = link.request('STATE');
    await states.untilHeld(1);
    const named = link.request('MARK b', { replies: ['mark_ack', 'error'] });
    expect(link.status().queued).toBe(1);
    states.release();
    await expect(Promise.all([again, named])).resolves.toMatchObject([{ type: 'state' }, { detail: 'b' }]);
    expect(mod.received.slice(1)).toEqual(['STATE', 'MARK a', 'STATE', 'MARK b']);
  });
});

describe('an error reply with a slow and a quick request out', () => {
  it('whose message is not a string names no request: it goes to the slow one', async () => {
    const { link, states } = await heldStates((line) =>
      line === 'MARK x' ? [{ line: { type: 'error', millis: 1, message: ['unknown command: MARK x'] } }, { line: { type: 'mark_ack', millis: 1, detail: 'x' } }] : undefined,
    );
    const state = failure(link.request('STATE'));
    await states.untilHeld(1);
    await expect(link.request('MARK x')).resolves.toMatchObject({ detail: 'x' });
    expect(await state).toMatchObject({ code: 'mod_error', message: 'mod reported an error' });
  });
});

/**
 * Requests on a connection of their own (blocking verbs, `ownConnection`): which of the lines the
 * mod writes there answers the request. Replies carry no ids, so the rule is the one the main
 * connection uses (replies.ts, matchesReply): the request's own reply type, or an `error`, or for
 * a verb nobody declared, any reply.
 */
import { describe, expect, it } from 'vitest';
import type { McbridgeError } from '../../../../core/host/errors.js';
import type { ScriptedReply } from '../../../support/scripted-mod.js';
import { useScriptedLinks } from '../../../support/scripted-link.js';

const startLink = useScriptedLinks();

/** A mod that answers every WAIT and every FROB with `replies`, in order, at once. */
const setup = (replies: ScriptedReply[]) => startLink({ respond: (line) => (line.startsWith('WAIT') || line.startsWith('FROB') ? replies : undefined) });

const failure = (promise: Promise<unknown>) => promise.then(() => null, (err: McbridgeError) => err);

describe('a request on a connection of its own', () => {
  it('passes over replies of another type and replies with no type, and takes its own', async () => {
    const { link, mod } = await setup([
      { line: { type: 'state', tick: 1 } },
      { line: { detail: 'no type at all' } },
      { line: { type: 7, detail: 'a type that is not a string' } },
      { line: { type: 'wait_ack', detail: 'ticks=5' } },
    ]);
    await expect(link.request('WAIT 5')).resolves.toEqual({ type: 'wait_ack', detail: 'ticks=5' });
    expect(mod.connections[1]!.received).toEqual(['WAIT 5']);
    expect(link.stats.sideRequests).toBe(1);
  });

  it('is answered by an error, which rejects with mod_error carrying the request and the reply', async () => {
    const reply = { type: 'error', millis: 3, message: 'the server is stopping' };
    const { link } = await setup([{ line: { type: 'state', tick: 1 } }, { line: reply }]);
    const err = (await failure(link.request('WAIT 5')))!;
    expect(err.code).toBe('mod_error');
    expect(err.message).toBe('the server is stopping');
    expect(err.details).toEqual({ request: 'WAIT 5', reply });
  });

  it('says the mod reported an error when the error reply has no message', async () => {
    const { link } = await setup([{ line: { type: 'error', millis: 3 } }]);
    const err = (await failure(link.request('WAIT 5')))!;
    expect(err.code).toBe('mod_error');
    expect(err.message).toBe('mod reported an error');
  });

  it('takes the first reply of any type for a verb nobody declared', async () => {
    const { link } = await setup([{ line: { type: 'frobbed', n: 1 } }, { line: { type: 'state', tick: 1 } }]);
    await expect(link.request('FROB it', { ownConnection: true })).resolves.toEqual({ type: 'frobbed', n: 1 });
    expect(link.stats.undeclaredVerbs).toBe(1);
  });
});

/**
 * The mod's own text of each reply the link delivers (reply-text.ts), which a passthrough tool's
 * response splices in instead of encoding the reply again: exactly the bytes the mod sent, and
 * none for a reply whose text a line reader could split.
 */
import { describe, expect, it } from 'vitest';
import { replyText } from '../../../../core/host/link/reply-text.js';
import { useScriptedLinks } from '../../../support/scripted-link.js';

const startLink = useScriptedLinks();

/** A link to a mod that answers each line in `answers` with the text given. */
async function linkTo(answers: Record<string, string>) {
  const { link } = await startLink({ respond: (line) => (answers[line] === undefined ? undefined : [{ line: answers[line]! }]) });
  return link;
}

describe('the text of a delivered reply', () => {
  it('is the line the mod sent, byte for byte', async () => {
    const text = '{"type":"state", "tick":7,"pos":[1.50,64,-2]}';
    const link = await linkTo({ STATE: text });
    const reply = await link.request('STATE');
    expect(reply).toEqual({ type: 'state', tick: 7, pos: [1.5, 64, -2] });
    expect(replyText(reply)).toBe(text);
  });

  it('is not kept for a reply with a raw carriage return inside it', async () => {
    const link = await linkTo({ STATE: '{"type":"state",\r"tick":7}' });
    const reply = await link.request('STATE');
    expect(reply).toEqual({ type: 'state', tick: 7 });
    expect(replyText(reply)).toBeUndefined();
  });

  it('is unknown for values the link did not deliver', async () => {
    const link = await linkTo({});
    const reply = await link.request('STATE');
    expect(replyText({ ...reply })).toBeUndefined();
    expect(replyText(null)).toBeUndefined();
    expect(replyText('{"type":"state"}')).toBeUndefined();
  });
});

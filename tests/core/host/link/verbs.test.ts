import { describe, expect, it } from 'vitest';
import { resolveVerb, splitVerb } from '../../../../core/host/link/verbs.js';

describe('splitVerb', () => {
  it('upper-cases the verb and trims the line and the argument', () => {
    expect(splitVerb('  mark  hello there \n')).toEqual({ verb: 'MARK', arg: 'hello there' });
    expect(splitVerb(' state ')).toEqual({ verb: 'STATE', arg: '' });
    expect(splitVerb('Wait 20')).toEqual({ verb: 'WAIT', arg: '20' });
  });
});

describe('resolveVerb', () => {
  it("knows the protocol's own CAPS and PING in any case and spacing, without a lookup", () => {
    expect(resolveVerb('  ping ', undefined)).toMatchObject({ replies: ['pong'], immediate: true, declared: true });
    expect(resolveVerb('caps', undefined)).toMatchObject({ replies: ['capabilities'], immediate: true, declared: true });
    expect(resolveVerb('STATE', undefined)).toMatchObject({ replies: [], immediate: false, declared: false });
  });
});

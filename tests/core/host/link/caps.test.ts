import { describe, expect, it } from 'vitest';
import { canonicalCap, DEFAULT_CAPS, hasCap, missingCaps, normalizeCaps } from '../../../../core/host/link/caps.js';

describe('normalizeCaps', () => {
  it('lower-cases, trims, drops empties and de-duplicates', () => {
    const caps = normalizeCaps([' State ', 'STATE', 'entities', '', '   ', 'Events:Chat']);
    expect(caps).toEqual(new Set(['state', 'entities', 'events:chat']));
  });

  it('reads null and undefined as unknown', () => {
    expect(normalizeCaps(null)).toBeNull();
    expect(normalizeCaps(undefined)).toBeNull();
  });

  it('reads an empty list as "advertises nothing", not unknown', () => {
    const caps = normalizeCaps([]);
    expect(caps).not.toBeNull();
    expect(caps!.size).toBe(0);
  });

  it('reads a bare string as one token', () => {
    expect(normalizeCaps(' Chat ')).toEqual(new Set(['chat']));
  });

  it('reads a non-list as unknown and stringifies list items', () => {
    expect(normalizeCaps(42)).toBeNull();
    expect(normalizeCaps({ state: true })).toBeNull();
    expect(normalizeCaps([1, 'x'])).toEqual(new Set(['1', 'x']));
  });
});

describe('capability aliases', () => {
  it.each(['player', 'player_context', 'playercontext', 'context:player', 'PLAYER_CONTEXT', ' PlayerContext '])('%j satisfies player', (spelling) => {
    const caps = normalizeCaps([spelling])!;
    expect(hasCap(caps, 'player')).toBe(true);
    expect(missingCaps(caps, ['player'])).toEqual([]);
  });

  it.each(['context', 'context_bundle', 'contextbundle', 'chat_context', 'context:chat'])('%j satisfies context', (spelling) => {
    expect(hasCap(normalizeCaps([spelling])!, 'context')).toBe(true);
  });

  it('a requirement written as an alias is satisfied by the canonical token', () => {
    expect(hasCap(normalizeCaps(['player'])!, 'player_context')).toBe(true);
    expect(hasCap(normalizeCaps(['context'])!, 'chat_context')).toBe(true);
  });

  it('keeps the groups apart and leaves other tokens alone', () => {
    const caps = normalizeCaps(['player_context', 'chat_context'])!;
    expect(hasCap(caps, 'state')).toBe(false);
    expect(hasCap(normalizeCaps(['player_context'])!, 'context')).toBe(false);
    expect(hasCap(normalizeCaps(['chat_context'])!, 'player')).toBe(false);
    expect(hasCap(normalizeCaps(['state'])!, 'state')).toBe(true);
    expect(hasCap(normalizeCaps(['states'])!, 'state')).toBe(false);
  });

  it('canonicalises spellings', () => {
    expect(canonicalCap('Player_Context')).toBe('player');
    expect(canonicalCap('context_bundle')).toBe('context');
    expect(canonicalCap(' State ')).toBe('state');
  });

  it('missingCaps lists only the unmet tokens, and nothing when caps are unknown', () => {
    const caps = normalizeCaps(['state', 'player_context'])!;
    expect(missingCaps(caps, ['state', 'command', 'player', 'chat'])).toEqual(['command', 'chat']);
    expect(missingCaps(null, ['state', 'command', 'chat'])).toEqual([]);
    expect(missingCaps(new Set(), ['state'])).toEqual(['state']);
    expect(missingCaps(new Set(), [])).toEqual([]);
  });

  it('the released server default has snapshot but not chat; the client default the reverse', () => {
    expect(DEFAULT_CAPS.server).toContain('snapshot');
    expect(DEFAULT_CAPS.server).not.toContain('chat');
    expect(DEFAULT_CAPS.client).toContain('chat');
    expect(DEFAULT_CAPS.client).not.toContain('snapshot');
  });
});

// ---- validatePlugin ---------------------------------------------------------------

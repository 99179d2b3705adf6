import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { normalizeCaps } from '../../../../core/host/link/caps.js';
import { ToolRegistry, type CapsView } from '../../../../core/host/registry/registry.js';
import { HOST_API_VERSION, type Plugin, type ToolSpec } from '../../../../core/host/plugin-api.js';

// Tools made for some vantages, instances or game versions (`only`), and tools that call others
// (`uses`): when each is hidden, with which reason, and what a call is refused with.

function tool(name: string, extra: Partial<ToolSpec> = {}): ToolSpec {
  return { name, description: `the ${name} tool`, input: z.object({}), run: async () => null, ...extra };
}

function registry(tools: ToolSpec[]): ToolRegistry {
  const r = new ToolRegistry();
  r.registerPlugin({ name: 'p', version: '1.0.0', apiVersion: HOST_API_VERSION, tools } as Plugin);
  return r;
}

const caps = normalizeCaps(['state', 'command']);
const view = (extra: Partial<CapsView> = {}): CapsView => ({ caps, source: 'mod', vantage: 'server', instance: 'server', minecraft: '26.2', ...extra });
const availability = (r: ToolRegistry, name: string, v: CapsView) => r.availability(r.get(name)!, v);

describe('a tool scoped with `only`', () => {
  const r = registry([
    tool('client_only', { only: { vantage: 'client' } }),
    tool('either', { only: { vantage: ['client', 'server'] } }),
    tool('lobby_only', { only: { instance: ['lobby', 'hub'] } }),
    tool('new_game', { only: { minecraft: '26.2' } }),
    tool('old_games', { only: { minecraft: ['1.20', '1.21'] } }),
  ]);

  it('is hidden on another vantage, naming both', () => {
    expect(availability(r, 'client_only', view())).toEqual({
      name: 'client_only',
      available: false,
      hiddenBy: 'scope',
      reason: 'only for the client vantage; this daemon runs the server vantage',
    });
    expect(availability(r, 'client_only', view({ vantage: 'client' })).available).toBe(true);
    expect(availability(r, 'either', view()).available).toBe(true);
  });

  it('is hidden on another instance, and shown while the instance is unknown', () => {
    expect(availability(r, 'lobby_only', view()).reason).toBe("only for instance 'lobby' or 'hub'; the connected mod is instance 'server'");
    expect(availability(r, 'lobby_only', view({ instance: 'hub' })).available).toBe(true);
    expect(availability(r, 'lobby_only', view({ instance: null })).available).toBe(true);
  });

  it('matches a game version exactly or as a prefix at a dot, and is shown while the version is unknown', () => {
    expect(availability(r, 'new_game', view()).available).toBe(true);
    expect(availability(r, 'new_game', view({ minecraft: '26.2.1' })).available).toBe(true);
    expect(availability(r, 'new_game', view({ minecraft: '26.20' })).reason).toBe('only for Minecraft 26.2; the connected game is 26.20');
    expect(availability(r, 'old_games', view()).reason).toBe('only for Minecraft 1.20 or 1.21; the connected game is 26.2');
    expect(availability(r, 'old_games', view({ minecraft: '1.21.4' })).available).toBe(true);
    expect(availability(r, 'old_games', view({ minecraft: null })).available).toBe(true);
    expect(availability(r, 'old_games', view({ minecraft: undefined })).available).toBe(true);
  });

  it('is refused with unsupported_capability, the reason and where it ran, and nothing sent', () => {
    const err = r.refusal(r.get('client_only')!, view());
    expect(err?.code).toBe('unsupported_capability');
    expect(err?.message).toBe("toolkit operation 'client_only' is not available: only for the client vantage; this daemon runs the server vantage, so nothing was sent to the game.");
    expect(err?.details).toEqual({ tool: 'client_only', vantage: 'server', instance: 'server' });
    expect(r.refusal(r.get('either')!, view())).toBeNull();
  });
});

describe('a tool that calls others with `uses`', () => {
  const r = registry([
    tool('base', { requires: ['state'] }),
    tool('needs_entities', { requires: ['entities'] }),
    tool('client_only', { only: { vantage: 'client' } }),
    tool('fine', { uses: ['base'] }),
    tool('via_missing_caps', { uses: ['base', 'needs_entities'] }),
    tool('via_scope', { uses: ['client_only'] }),
    tool('via_nothing', { uses: ['no_such_tool'] }),
    tool('loop_a', { uses: ['loop_b'] }),
    tool('loop_b', { uses: ['loop_a', 'base'] }),
    tool('deep', { uses: ['via_missing_caps'] }),
  ]);

  it('is shown while everything it calls is', () => {
    expect(availability(r, 'fine', view())).toEqual({ name: 'fine', available: true });
    expect(availability(r, 'loop_a', view()).available).toBe(true); // a cycle adds nothing new
  });

  it('is hidden by a tool it calls, naming that tool, its reason and its missing CAPS', () => {
    expect(availability(r, 'via_missing_caps', view())).toEqual({
      name: 'via_missing_caps',
      available: false,
      hiddenBy: 'dependency',
      missing: ['entities'],
      reason: expect.stringMatching(/^calls the tool 'needs_entities', which is hidden: .*entities/),
    });
    expect(availability(r, 'deep', view()).reason).toMatch(/^calls the tool 'via_missing_caps', which is hidden: calls the tool 'needs_entities'/);
    expect(availability(r, 'via_scope', view())).toEqual({
      name: 'via_scope',
      available: false,
      hiddenBy: 'dependency',
      reason: "calls the tool 'client_only', which is hidden: only for the client vantage; this daemon runs the server vantage",
    });
  });

  it('is disabled when a tool it calls does not exist or is disabled by policy', () => {
    expect(availability(r, 'via_nothing', view())).toEqual({
      name: 'via_nothing',
      available: false,
      disabled: true,
      hiddenBy: 'dependency',
      reason: "calls the tool 'no_such_tool', which no loaded plugin defines",
    });
    r.setPolicy({ deny: ['base'] });
    try {
      const a = availability(r, 'fine', view());
      expect(a).toMatchObject({ available: false, disabled: true, hiddenBy: 'dependency' });
      expect(a.reason).toMatch(/^calls the tool 'base', which is hidden: /);
      expect(r.refusal(r.get('fine')!, view())?.code).toBe('tool_disabled');
    } finally {
      r.setPolicy({});
    }
  });

  it('is refused as unsupported, with the missing CAPS of what it calls', () => {
    const err = r.refusal(r.get('via_missing_caps')!, view());
    expect(err?.code).toBe('unsupported_capability');
    expect(err?.message).toMatch(/^toolkit operation 'via_missing_caps' is not available: calls the tool 'needs_entities'.*, so nothing was sent to the game\.$/);
    expect(err?.details).toEqual({ tool: 'via_missing_caps', missing: ['entities'], vantage: 'server', instance: 'server' });
  });
});

import { describe, expect, it } from 'vitest';
import { SERVER_CAPABILITIES, STEVE_UUID } from 'mcbridge/testing';
import { normalizePlayerReply } from '../../plugins/player/reply.js';
import { ALEX_UUID, expectInvalidParams, failure, sentSince, steveAndAlex, useStacks } from '../support/plugins.js';

const stacks = useStacks();

describe('player on the server vantage', () => {
  it('delegates PLAYER <uuid> and normalises the reply: identity, position, true game mode, view merged into player', async () => {
    const stack = await stacks.start();
    const before = stack.sim.received.length;
    const result = (await stack.client.call('player', { player: STEVE_UUID })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual([`PLAYER ${STEVE_UUID}`]);
    expect(result).toMatchObject({ type: 'player_context', found: true, uuid: STEVE_UUID, name: 'Steve', matchedBy: 'uuid' });
    expect(result.player).toMatchObject({ x: 0.5, y: 64, z: 0.5, gameMode: 'survival', dimension: 'minecraft:overworld', eye: [0.5, 65.62, 0.5] });
    // The mod sends the view at the top level (split shape); it ends up in player.view.
    expect(result.player.view).toMatchObject({
      blockRange: 4.5,
      target: { type: 'block', block: { x: 0, y: 63, z: -2, id: 'minecraft:stone', face: 'up' } },
    });
    expect(result).not.toHaveProperty('view');
  });

  it("accepts the predecessor's parameter names (uuid, name, id), but not two spellings at once", async () => {
    const stack = await stacks.start();
    for (const key of ['uuid', 'name', 'id']) {
      const result = (await stack.client.call('player', { [key]: 'Steve' })) as Record<string, any>;
      expect(result).toMatchObject({ found: true, name: 'Steve' });
    }
    const err = await failure(stack.client.call('player', { player: 'Steve', uuid: STEVE_UUID }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/'player' or its older name 'uuid'/);
  });

  it('matches names in any case and reports the true game mode where ENTITIES says survival', async () => {
    const stack = await stacks.start();
    await stack.client.call('command', { command: 'gamemode spectator Steve' });
    const result = (await stack.client.call('player', { player: 'steve' })) as Record<string, any>;
    expect(result).toMatchObject({ found: true, name: 'Steve', matchedBy: 'name' });
    expect(result.player.gameMode).toBe('spectator');
    const raw = (await stack.client.call('entities')) as Record<string, any>;
    expect(raw.entities.find((e: any) => e.name === 'Steve').gameMode).toBe('survival');
  });

  it('shows a pinned view target: an entity the player looks at', async () => {
    const stack = await stacks.start({
      sim: {
        players: steveAndAlex({ x: 2.5, gameMode: 'creative', view: { type: 'entity', uuid: STEVE_UUID } }),
      },
    });
    const result = (await stack.client.call('player', { player: 'Alex' })) as Record<string, any>;
    expect(result).toMatchObject({ uuid: ALEX_UUID, name: 'Alex' });
    expect(result.player.gameMode).toBe('creative');
    expect(result.player.view.target).toMatchObject({ type: 'entity', entity: { uuid: STEVE_UUID, name: 'Steve' } });
  });

  it('an unknown player is found:false with a message, not an error', async () => {
    const stack = await stacks.start();
    const result = (await stack.client.call('player', { player: 'ghost' })) as Record<string, any>;
    expect(result).toEqual({
      type: 'player_context',
      found: false,
      player: null,
      requested: 'ghost',
      tick: expect.any(Number),
      status: 'not_found',
      message: 'no online player matches ghost',
    });
  });

  it('leaves the view out when the mod does not advertise player:view', async () => {
    const caps = SERVER_CAPABILITIES.filter((c) => c !== 'player:view');
    const stack = await stacks.start({ sim: { capabilities: caps } });
    const result = (await stack.client.call('player', { player: 'Steve' })) as Record<string, any>;
    expect(result.found).toBe(true);
    expect(result.player).not.toHaveProperty('view');
  });

  it('validates the player parameter', async () => {
    const stack = await stacks.start();
    await expectInvalidParams(stack, [
      ['player', {}, /'player'/],
      ['player', { player: '' }, /player must not be empty/],
      ['player', { player: 'a\nb' }, /single line/],
      ['player', { player: 7 }, /player must be a string/],
      ['player', { player: 'x'.repeat(101) }, /at most 100/],
      ['player', { player: 'Steve', uuid: STEVE_UUID }, /'uuid'/],
      ['player', { player: 'Steve', extra: 1 }, /"extra"/],
    ]);
  });
});

describe('player elsewhere', () => {
  it('is hidden on the client vantage, naming the upstream dependency, and nothing is sent', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const manifest = (await stack.client.call('tools')) as any;
    const tool = manifest.tools.find((t: any) => t.name === 'player');
    expect(tool).toMatchObject({ available: false, missing: ['player'] });
    const before = stack.sim.received.length;
    const err = await failure(stack.client.call('player', { player: 'Steve' }));
    expect(err.code).toBe('unsupported_capability');
    expect(err.message).toMatch(/mc-agent-interface-mod#1/);
    expect(sentSince(stack, before)).toEqual([]);
  });

  it('accepts the alias spellings of the capability (player_context)', async () => {
    const caps = SERVER_CAPABILITIES.filter((c) => c !== 'player').concat('player_context');
    const stack = await stacks.start({ sim: { capabilities: caps } });
    const manifest = (await stack.client.call('tools')) as any;
    expect(manifest.tools.find((t: any) => t.name === 'player').available).toBe(true);
  });
});

describe('normalizePlayerReply (the predecessor adapter, for mod shapes the sim does not send)', () => {
  it('keeps a nested view when there is no top-level view', () => {
    const out = normalizePlayerReply({ type: 'player', found: true, player: { uuid: 'u', name: 'N', view: { eye: [1, 2, 3] } } }, 'N');
    expect(out.player!.view).toEqual({ eye: [1, 2, 3] });
  });

  it('does not overwrite a nested view with a top-level one', () => {
    const out = normalizePlayerReply({ type: 'player', player: { name: 'N', view: { a: 1 } }, view: { b: 2 } }, 'N');
    expect(out.player!.view).toEqual({ a: 1 });
  });

  it('never invents a view from a non-object top-level view', () => {
    const out = normalizePlayerReply({ type: 'player', player: { name: 'N' }, view: 'block' }, 'N');
    expect(out.player).not.toHaveProperty('view');
    expect(normalizePlayerReply({ type: 'player', player: { name: 'N' } }, 'N').player).not.toHaveProperty('view');
  });

  it('builds the player from flat fields of older mods, and found defaults to true', () => {
    const out = normalizePlayerReply({ type: 'player', uuid: 'u-1', name: 'Old', pos: [1, 2, 3], yaw: 90 }, 'Old');
    expect(out).toMatchObject({ found: true, uuid: 'u-1', name: 'Old', player: { uuid: 'u-1', name: 'Old', pos: [1, 2, 3], yaw: 90 } });
  });

  it('keeps status, reason and message of a structured refusal', () => {
    const out = normalizePlayerReply({ type: 'player', found: false, status: 'offline', reason: 'left', message: 'gone' }, 'x');
    expect(out).toMatchObject({ found: false, player: null, requested: 'x', status: 'offline', reason: 'left', message: 'gone' });
  });
});

import { describe, expect, it } from 'vitest';
import { STEVE_UUID } from 'mcbridge/testing';
import { ALEX_UUID, expectInvalidParams, failure, sentSince, steveAndAlex, useStacks } from '../support/plugins.js';

const stacks = useStacks();

describe('entities: the raw list stays the default', () => {
  it('returns the mod reply unchanged, and sends ENTITIES <double> for a radius', async () => {
    const stack = await stacks.start();
    const before = stack.sim.received.length;
    const raw = (await stack.client.call('entities')) as Record<string, any>;
    const near = (await stack.client.call('entities', { radius: 32 })) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['ENTITIES', 'ENTITIES 32.0']);
    expect(raw).toMatchObject({ type: 'entities', instance: 'server', dimension: 'minecraft:overworld' });
    expect(raw.entities.map((e: any) => e.type)).toEqual(['minecraft:pig', 'minecraft:cow', 'minecraft:zombie', 'minecraft:chicken', 'minecraft:item', 'minecraft:player']);
    expect(raw).not.toHaveProperty('truncated');
    expect(near.radius).toBe(32);
  });

  it('filters the raw list by types and cuts it to limit, saying so', async () => {
    const stack = await stacks.start();
    const some = (await stack.client.call('entities', { types: ['pig', 'minecraft:COW', 'zombie'], limit: 2 })) as Record<string, any>;
    expect(some.entities.map((e: any) => e.type)).toEqual(['minecraft:pig', 'minecraft:cow']);
    expect(some).toMatchObject({ total: 6, matched: 3, truncated: true });
    const comma = (await stack.client.call('entities', { types: 'chicken, item' })) as Record<string, any>;
    expect(comma.entities.map((e: any) => e.type)).toEqual(['minecraft:chicken', 'minecraft:item']);
    expect(comma.truncated).toBe(false);
  });
});

describe('entities summary', () => {
  it('counts by type and lists the nearest around the first player, the centre left out', async () => {
    const stack = await stacks.start();
    const s = (await stack.client.call('entities', { summary: true })) as Record<string, any>;
    expect(s).toMatchObject({
      type: 'entities_summary',
      dimension: 'minecraft:overworld',
      total: 6,
      matched: 6,
      truncated: false,
      radius: null,
      types: null,
      origin: { name: 'Steve', uuid: STEVE_UUID, x: 0.5, y: 64, z: 0.5 },
    });
    expect(Object.values(s.counts).reduce((a: number, b) => a + (b as number), 0)).toBe(6);
    expect(s.nearest).toHaveLength(5);
    expect(s.nearest.map((e: any) => e.type)).not.toContain('minecraft:player');
    const distances = s.nearest.map((e: any) => e.distance);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    // The diamond item at (2.25, 64, -1.75) is the closest: sqrt(1.75² + 2.25²) = 2.85.
    expect(s.nearest[0]).toMatchObject({ type: 'minecraft:item', pos: [2.25, 64, -1.75], distance: 2.85 });
    expect(s.nearest.find((e: any) => e.type === 'minecraft:pig')).toMatchObject({ health: 10, vel: [0, -0.078, 0] });
  });

  it('bounds the answer by nearest, filters types and radius around a named player', async () => {
    const entities = Array.from({ length: 300 }, (_, i) => ({ type: i % 3 === 0 ? 'minecraft:zombie' : 'minecraft:sheep', x: 100 + i, y: 64, z: 0 }));
    const stack = await stacks.start({
      sim: {
        players: steveAndAlex({ x: 100.5 }),
        entities,
      },
    });
    const s = (await stack.client.call('entities', { player: 'alex', nearest: 3, types: ['zombie'], radius: 20 })) as Record<string, any>;
    expect(s.origin).toMatchObject({ name: 'Alex', uuid: ALEX_UUID });
    expect(s.types).toEqual(['minecraft:zombie']);
    expect(s.counts).toEqual({ 'minecraft:zombie': 7 }); // x = 100, 103, ..., 118
    expect(s.nearest.map((e: any) => e.pos[0])).toEqual([100, 103, 106]);
    expect(s).toMatchObject({ total: 302, matched: 7, truncated: true });
    // The predecessor's mc_entities bounded its summary with `limit`: the same as nearest here.
    const limited = (await stack.client.call('entities', { summary: true, limit: 3, types: 'zombie', player: 'alex', radius: 20 })) as Record<string, any>;
    expect(limited.nearest).toEqual(s.nearest);
    const all = (await stack.client.call('entities', { summary: true, nearest: 500 })) as Record<string, any>;
    expect(all.counts).toEqual({ 'minecraft:sheep': 200, 'minecraft:zombie': 100, 'minecraft:player': 2 });
    expect(JSON.stringify(all.nearest[0]).length).toBeLessThan(300);
  });

  it('names the players that could be the centre when the player is not there', async () => {
    const stack = await stacks.start();
    const err = await failure(stack.client.call('entities', { player: 'Herobrine' }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/Herobrine/);
    expect(err.message).toMatch(/players there: Steve/);
  });

  it('without anyone online: counts, tick order, no distances, and a radius is refused', async () => {
    const stack = await stacks.start({ sim: { players: [] } });
    const s = (await stack.client.call('entities', { summary: true, nearest: 2 })) as Record<string, any>;
    expect(s.origin).toBeNull();
    expect(s.nearest.map((e: any) => e.type)).toEqual(['minecraft:pig', 'minecraft:cow']);
    expect(s.nearest[0]).not.toHaveProperty('distance');
    expect(s.note).toMatch(/no player/);
    const err = await failure(stack.client.call('entities', { summary: true, radius: 5 }));
    expect(err.code).toBe('invalid_params');
    expect(err.message).toMatch(/radius/);
  });

  it('on the client vantage measures from the local player', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const s = (await stack.client.call('entities', { summary: true, nearest: 1 })) as Record<string, any>;
    expect(s.origin).toMatchObject({ name: 'Steve', uuid: STEVE_UUID, x: 0.5, z: 0.5 });
    expect(s.nearest).toEqual([expect.objectContaining({ type: 'minecraft:item', distance: 2.85 })]);
    expect(s.dimension).toBeNull();
  });
});

describe('entities parameters', () => {
  it('validates each parameter with a message that names it', async () => {
    const stack = await stacks.start();
    await expectInvalidParams(stack, [
      ['entities', { radius: -1 }, /'radius': radius must be 0 or more/],
      ['entities', { radius: 'far' }, /'radius'/],
      ['entities', { summary: 'maybe' }, /'summary': summary must be true or false/],
      ['entities', { nearest: 0 }, /'nearest': nearest must be at least 1/],
      ['entities', { nearest: 501 }, /nearest must be at most 500/],
      ['entities', { nearest: 2.5 }, /nearest must be a whole number/],
      ['entities', { types: [] }, /'types'/],
      ['entities', { types: 5 }, /types must be an entity type/],
      ['entities', { player: '' }, /player must not be empty/],
      ['entities', { limit: 0 }, /'limit': limit must be at least 1/],
      ['entities', { summary: false, nearest: 3 }, /'nearest': nearest only applies to the summary/],
      ['entities', { summary: false, player: 'Steve' }, /'player': player only applies to the summary/],
      ['entities', { summary: true, limit: 3, nearest: 3 }, /'limit': limit and nearest mean the same in the summary/],
      ['entities', { radius: 4, sort: 'near' }, /"sort"/],
    ]);
  });
});

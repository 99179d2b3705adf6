/**
 * Sim options are checked at start, and the sim never writes a line that is not JSON: a player
 * without coordinates (docs/plugins.md's testing example) once put NaN into STATE, and every
 * `state` then waited 15 s for a reply no client could parse.
 */
import { describe, expect, it } from 'vitest';
import { SimOptionsError, startSim } from '../../../core/sim/index.js';
import { startTestHost } from '../../../core/testing/index.js';
import { useSims } from '../../support/line-client.js';

const sims = useSims();

describe('sim options', () => {
  it('a player given by name alone stands at the world spawn, and STATE is valid JSON', async () => {
    const { client } = await sims.start({ players: [{ name: 'Alex' }] });
    client.send('STATE');
    const line = await client.nextLine();
    const state = JSON.parse(line);
    expect(state).toMatchObject({ type: 'state', players: 1, playerList: [{ name: 'Alex', x: 0.5, y: 64, z: 0.5 }] });
  });

  it('the testing example of docs/plugins.md answers state at once', async () => {
    const t = await startTestHost({ sim: { autoTick: false, players: [{ name: 'Alex' }] } });
    try {
      expect(await t.call('state')).toMatchObject({ players: 1, playerList: [{ name: 'Alex' }] });
    } finally {
      await t.close();
    }
  });

  it('refuses a wrong option with a coded error that names it and says what to write', async () => {
    const err = await startSim({ players: [{ name: 'Alex', x: 'north' as unknown as number }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SimOptionsError);
    expect(err).toMatchObject({ code: 'invalid_params', problems: [{ path: 'players[0].x' }] });
    expect((err as Error).message).toMatch(/players\[0\]\.x: .*expected number/);
    expect((err as Error).message).toContain("write players: [{ name: 'Alex' }]");
  });

  it('refuses NaN coordinates and misspelt keys', async () => {
    await expect(startSim({ entities: [{ type: 'pig', x: Number.NaN, y: 64, z: 0 }] })).rejects.toMatchObject({
      code: 'invalid_params',
      problems: [{ path: 'entities[0].x' }],
    });
    await expect(startSim({ player: [{ name: 'Alex' }] } as never)).rejects.toThrow(/Unrecognized key: "player"/);
  });
});

describe('the sim never writes a line that is not JSON', () => {
  it('a world scripted into NaN answers STATE with an error reply, and the connection goes on', async () => {
    const { sim, client } = await sims.start();
    sim.world.players[0]!.x = Number.NaN;
    client.send('STATE');
    const reply = JSON.parse(await client.nextLine());
    expect(reply).toMatchObject({ type: 'error' });
    expect(reply.message).toMatch(/^task failed: .*NaN is not a valid double value/);
    expect(await client.request('PING')).toMatchObject({ type: 'pong' });
  });

  it('ENTITIES NaN (a radius the mod accepts) gets an error reply instead of a NaN token', async () => {
    const { client } = await sims.start();
    client.send('ENTITIES NaN');
    const reply = JSON.parse(await client.nextLine());
    expect(reply).toMatchObject({ type: 'error' });
  });

  it('an event carrying NaN is refused to the caller instead of being broadcast', async () => {
    const { sim } = await sims.start();
    expect(() => sim.emit({ type: 'game', millis: 1, value: Number.POSITIVE_INFINITY } as never)).toThrow(/Infinity is not a valid/);
  });
});

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normaliseWorldDir } from '../../plugins/save/world-save.js';
import { failure, sentSince, useStacks } from '../support/plugins.js';

const stacks = useStacks();

describe('save', () => {
  it('composes world_save from one STATE: level, normalised world dir that exists here, players, levels', async () => {
    const stack = await stacks.start();
    const before = stack.sim.received.length;
    const save = (await stack.client.call('save')) as Record<string, any>;
    expect(sentSince(stack, before)).toEqual(['STATE']);
    expect(save).toMatchObject({
      type: 'world_save',
      instance: 'server',
      inWorld: true,
      levelName: 'world',
      worldDirRaw: stack.sim.worldDir,
      worldDir: path.join(stack.sim.dir, 'world'),
      worldDirExistsOnBridgeHost: true,
      serverVersion: '26.2',
      players: 1,
    });
    expect(stack.sim.worldDir.endsWith(`${path.sep}.`)).toBe(true);
    expect(save.playerList).toEqual([expect.objectContaining({ name: 'Steve', dimension: 'minecraft:overworld' })]);
    expect(save.levels.map((l: any) => l.dimension)).toEqual(['minecraft:overworld', 'minecraft:the_nether', 'minecraft:the_end']);
    expect(typeof save.tick).toBe('number');
  });

  it('says when the world directory is not on this host', async () => {
    const stack = await stacks.start({ sim: { world: { levelName: 'elsewhere' } } });
    const dir = path.join(stack.sim.dir, 'elsewhere');
    (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
    const save = (await stack.client.call('save')) as Record<string, any>;
    expect(save.worldDir).toBe(dir);
    expect(save.worldDirExistsOnBridgeHost).toBe(false);
  });

  it('works on the client vantage, where STATE has no level or world directory', async () => {
    const stack = await stacks.start({ sim: { vantage: 'client' } });
    const save = (await stack.client.call('save')) as Record<string, any>;
    expect(save).toMatchObject({
      type: 'world_save',
      instance: 'client',
      inWorld: true,
      levelName: null,
      worldDir: null,
      worldDirRaw: null,
      worldDirExistsOnBridgeHost: null,
    });
  });

  it('takes no parameters', async () => {
    const stack = await stacks.start();
    const extra = await failure(stack.client.call('save', { level: 'x' }));
    expect(extra.code).toBe('invalid_params');
    expect(extra.message).toMatch(/"level"/);
  });

  it('is hidden, and refused before anything is sent, without the state capability', async () => {
    const stack = await stacks.start({ sim: { capabilities: ['entities', 'command'] } });
    const before = stack.sim.received.length;
    const err = await failure(stack.client.call('save'));
    expect(err.code).toBe('unsupported_capability');
    expect(err.message).toMatch(/'state'/);
    expect(sentSince(stack, before)).toEqual([]);
  });

  it('normalises POSIX and Windows world roots the way the mod reports them', () => {
    expect(normaliseWorldDir('/srv/mc/world/.')).toBe('/srv/mc/world');
    expect(normaliseWorldDir('/srv/mc/./world/')).toBe('/srv/mc/world');
    expect(normaliseWorldDir('C:\\srv\\mc\\world\\.')).toBe('C:\\srv\\mc\\world');
    expect(normaliseWorldDir('\\\\host\\share\\world\\.')).toBe('\\\\host\\share\\world');
    expect(normaliseWorldDir('/')).toBe('/');
  });
});

/**
 * Item 22 of issue 35: two embedded sims of one daemon process (config targets `live` and `lab`)
 * each derive their player UUIDs, entity UUIDs and chat context ids from the target's name
 * (docs/targets.md), so an id names its target; a restarted daemon gives each target the same
 * ids again; the one target of `run --sim` keeps the ids the sim always had.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../../core/api/client.js';
import { STEVE_UUID } from '../../../../core/sim/index.js';
import { CliProcesses } from '../../../support/cli-process.js';
import { project, removeProjects } from '../../../support/config-project.js';
import { allTargetsConnected, startDaemonProcess } from '../../../support/daemon-process.js';

const processes = new CliProcesses();
afterAll(async () => {
  await processes.stopAll();
  removeProjects();
});

interface Ids {
  steve: string;
  pig: string;
  joined: string;
  contexts: string[];
}

/** The ids one target hands out: its Steve and pig, a player it makes up, two chats' contexts. */
async function idsOf(api: ApiClient, target?: string): Promise<Ids> {
  const on = target === undefined ? {} : { target };
  const call = (tool: string, params: Record<string, unknown>) => api.call(tool, { ...params, ...on });
  const steve = (await api.call('player', { player: 'Steve', ...on })) as { uuid: string };
  const entities = (await api.call('entities', { types: ['minecraft:pig'], ...on })) as { entities: Array<{ uuid: string }> };
  const joined = (await call('sim_join', { player: 'Alex' })) as { joined: { uuid: string } };
  const contexts: string[] = [];
  for (const text of ['one', 'two']) {
    const chat = (await call('sim_chat', { player: 'Steve', text })) as { event: { context_id: string } };
    contexts.push(chat.event.context_id);
  }
  return { steve: steve.uuid, pig: entities.entities[0]!.uuid, joined: joined.joined.uuid, contexts };
}

/** A daemon of the config (or of `run --sim` without one), the ids of each target named, stopped again. */
async function run(targets: string[], config?: string): Promise<Ids[]> {
  const daemon = await startDaemonProcess(processes, config ? [] : ['--sim'], { MCBRIDGE_TARGET: '' }, config);
  const api = await ApiClient.connect({ port: daemon.port });
  try {
    await allTargetsConnected(api);
    const ids: Ids[] = [];
    for (const target of targets) ids.push(await idsOf(api, target === 'default' ? undefined : target));
    return ids;
  } finally {
    api.close();
    await daemon.kill('SIGTERM');
  }
}

describe('the sims of a daemon of two targets', { timeout: 90_000 }, () => {
  it('hand out ids of their own per target, the same after a restart; the one sim of run --sim keeps its ids', async () => {
    const config = project({ install: false }).write('mcbridge.config.json', JSON.stringify({ targets: { live: { sim: true }, lab: { sim: true } } }));
    const [live, lab] = await run(['live', 'lab'], config);
    const all = (ids: Ids) => [ids.steve, ids.pig, ids.joined, ...ids.contexts];
    // No id of one target is any id of the other.
    expect(all(live!).filter((id) => all(lab!).includes(id))).toEqual([]);
    expect(new Set(all(live!)).size).toBe(5);
    expect(live!.contexts.every((id) => /^ctx-[0-9a-f-]{36}$/.test(id))).toBe(true);
    // Derived from the name: a restarted daemon gives each target its ids again.
    const [liveAgain, labAgain] = await run(['live', 'lab'], config);
    expect(liveAgain).toEqual(live);
    expect(labAgain).toEqual(lab);
    const [single] = await run(['default']);
    expect(single!.steve).toBe(STEVE_UUID);
    expect(single!.pig).toBe('1f6a3c2e-8b4d-4f7a-9e05-3c2b1a0f9e8d');
  });
});

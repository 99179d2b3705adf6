/** A daemon of two targets on two sims, in this process, for the targets tests. */
import { afterEach } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { startDaemon, type Daemon } from '../../core/daemon/daemon.js';
import { silentLogger } from '../../core/util/log.js';
import { startSim, type SimulatedMod } from '../../core/sim/index.js';
import { waitUntil } from './helpers.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** Two sims, `live` and `lab`, each a target of one daemon; `lab` the default unless told otherwise. */
export async function twoTargets(options: { defaultTarget?: 'live' | 'lab' | null } = {}): Promise<{ daemon: Daemon; client: ApiClient; live: SimulatedMod; lab: SimulatedMod }> {
  const live = await startSim({ port: 0, seed: 1 });
  const lab = await startSim({ port: 0, seed: 2 });
  cleanups.push(
    () => live.stop(),
    () => lab.stop(),
  );
  const fast = { reconnectMinMs: 20, reconnectMaxMs: 200 };
  const chosen = options.defaultTarget === undefined ? 'lab' : options.defaultTarget;
  const daemon = await startDaemon({
    log: silentLogger(),
    configDir: live.dir,
    api: { port: 0 },
    targets: [
      { name: 'live', default: chosen === 'live', link: { modPort: live.port, ...fast }, sim: false },
      { name: 'lab', default: chosen === 'lab', link: { modPort: lab.port, ...fast }, sim: false },
    ],
  });
  cleanups.push(() => daemon.stop());
  await waitUntil(() => daemon.targets.hostsList().every((h) => h.link.connected), 5_000, 'both targets to connect');
  const client = await ApiClient.connect({ port: daemon.apiAddress.port });
  cleanups.push(() => client.close());
  return { daemon, client, live, lab };
}

/** Poll `events` on one target until `count` chat events came after `since`. */
export async function waitForEvents(client: ApiClient, target: string, since: number, count: number): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const page = (await client.call('events', { target, since, category: 'chat' })) as { events: Array<Record<string, unknown>> };
    if (page.events.length >= count) return page.events;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} events on ${target}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

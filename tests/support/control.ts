/**
 * A daemon whose target reaches a simulated mod over control protocol 1 (real TLS), and the API
 * client to call it: the stack every control-link test starts from.
 */
import { ApiClient } from '../../core/api/client.js';
import { startDaemon, type Daemon } from '../../core/daemon/daemon.js';
import type { LinkSettings } from '../../core/host/host.js';
import { startSim, type SimOptions, type SimulatedMod } from '../../core/sim/index.js';
import { silentLogger } from '../../core/util/log.js';
import { waitUntil } from './wait-until.js';

export interface ControlStack {
  sim: SimulatedMod;
  daemon: Daemon;
  client: ApiClient;
  close(): Promise<void>;
}

type ControlSettings = Extract<LinkSettings, { transport: 'control' }>;

/** The link settings that reach `sim`'s control listener with its bootstrap credential, pinned. */
export function controlLink(sim: SimulatedMod, extra: Partial<ControlSettings> = {}): ControlSettings {
  const control = sim.control!;
  return { transport: 'control', address: `127.0.0.1:${control.port}`, pin: control.fingerprint, token: control.bootstrapToken!, reconnectMinMs: 30, reconnectMaxMs: 200, ...extra };
}

export async function startControlStack(options: { sim?: SimOptions; link?: Partial<ControlSettings>; waitConnected?: boolean; sharedSim?: SimulatedMod } = {}): Promise<ControlStack> {
  const sim = options.sharedSim ?? (await startSim({ port: 0, control: true, ...options.sim }));
  const daemon = await startDaemon({ log: silentLogger(), configDir: sim.dir, vantage: 'server', link: controlLink(sim, options.link), api: { port: 0 } });
  if (options.waitConnected !== false) await waitUntil(() => daemon.host.link.connected, 10_000, 'the daemon to reach the control listener');
  const client = await ApiClient.connect({ port: daemon.apiAddress.port });
  return {
    sim,
    daemon,
    client,
    async close() {
      client.close();
      await daemon.stop();
      if (!options.sharedSim) await sim.stop();
    },
  };
}

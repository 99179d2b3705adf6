/**
 * The webhook on a daemon of two targets, in process (targets.test.ts runs dist/, which Stryker
 * does not mutate): each target's service spools to a file named after its target, and a target
 * with no spool configured starts without one.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { ApiClient } from '../../../core/api/client.js';
import { inlineConfig } from '../../../core/daemon/config/load.js';
import { startDaemon } from '../../../core/daemon/daemon.js';
import { startSim } from '../../../core/sim/index.js';
import { silentLogger } from '../../../core/util/log.js';
import { waitUntil } from '../../support/wait-until.js';

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const x of open.splice(0).reverse()) await x.close();
});

async function twoTargets(webhook: Record<string, unknown> | undefined) {
  const dir = mkdtempSync(join(tmpdir(), 'mcbridge-webhook-targets-'));
  const live = await startSim({ port: 0, seed: 1 });
  const lab = await startSim({ port: 0, seed: 2 });
  open.push({ close: () => live.stop() }, { close: () => lab.stop() });
  const fast = { reconnectMinMs: 20, reconnectMaxMs: 200 };
  const daemon = await startDaemon({
    log: silentLogger(),
    configDir: dir,
    api: { port: 0 },
    config: { loaded: inlineConfig(webhook ? { plugins: [['webhook', webhook]] } : {}, dir) },
    targets: [
      { name: 'live', default: false, link: { modPort: live.port, ...fast }, sim: false },
      { name: 'lab', default: true, link: { modPort: lab.port, ...fast }, sim: false },
    ],
  });
  open.push({ close: () => daemon.stop() });
  await waitUntil(() => daemon.targets.hostsList().every((h) => h.link.connected), 5_000, 'both targets to connect');
  const client = await ApiClient.connect({ port: daemon.apiAddress.port });
  open.push(client);
  return { dir, daemon, client };
}

it("names each target's spool after its target", async () => {
  vi.stubEnv('TARGETS_HOOK_URL', 'http://127.0.0.1:9/hook');
  vi.stubEnv('TARGETS_HOOK_SECRET', 'whsec-targets-in-process');
  const { dir, client } = await twoTargets({ receivers: [{ urlEnv: 'TARGETS_HOOK_URL', secretEnv: 'TARGETS_HOOK_SECRET', events: ['mark'] }], spool: 'state/webhook.spool' });
  const spool = async (target: string) => ((await client.call('webhook_status', { target })) as { spool?: string }).spool;
  expect(await spool('live')).toBe(join(dir, 'state', 'webhook.live.spool'));
  expect(await spool('lab')).toBe(join(dir, 'state', 'webhook.lab.spool'));
});

it('starts every target’s webhook service without a spool when none is configured', async () => {
  vi.stubEnv('MC_AGENT_WEBHOOK_URL', '');
  const { daemon } = await twoTargets(undefined);
  for (const host of daemon.targets.hostsList()) expect(host.plugins().find((p) => p.name === 'webhook')).toMatchObject({ state: 'loaded' });
});

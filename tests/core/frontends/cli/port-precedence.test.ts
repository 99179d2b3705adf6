/** docs/cli.md "Finding the mod": "first match wins: --mod-port; --port-file or MC_AGENT_PORT_FILE; <dir>/mc-agent-server/port.txt ...". */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSim, type SimulatedMod } from '../../../../core/sim/index.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { freePort, waitUntil } from '../../../support/helpers.js';

const processes = new CliProcesses();
const sims: SimulatedMod[] = [];
afterEach(async () => {
  await processes.stopAll();
  for (const sim of sims.splice(0)) await sim.stop();
});

/** A game dir whose port files all name ports where nothing listens. */
async function decoys(): Promise<{ dir: string; portFile: string; envFile: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-ports-'));
  const write = async (file: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, String(await freePort()));
    return file;
  };
  await write(path.join(dir, 'mc-agent-server/port.txt'));
  return { dir, portFile: await write(path.join(dir, 'flag/port.txt')), envFile: await write(path.join(dir, 'env/port.txt')) };
}

describe('--mod-port wins over --port-file and MC_AGENT_PORT_FILE', { timeout: 60_000 }, () => {
  it('in `discover`', async () => {
    const d = await decoys();
    const run = await runCli(['discover', '--mod-port', '25590', '--port-file', d.portFile, '--server-dir', d.dir], {
      cwd: d.dir,
      env: { MC_AGENT_PORT_FILE: d.envFile },
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ port: 25590, source: 'argument', resolved: true });
  });

  it('in `run`: the daemon connects to the --mod-port mod, not to the port files', async () => {
    const d = await decoys();
    const sim = await startSim({ port: 0 });
    sims.push(sim);
    const apiPort = await freePort();
    const daemon = processes.start(['run', '--api-port', String(apiPort), '--mod-port', String(sim.port), '--port-file', d.portFile, '--server-dir', d.dir, '--no-config'], {
      cwd: d.dir,
      env: { MC_AGENT_PORT_FILE: d.envFile },
    });
    await waitUntil(() => /"msg":"connected to server mod/.test(daemon.out.stderr), 30_000, 'the daemon to connect');
    const status = await runCli(['call', 'status', '--api-port', String(apiPort)]);
    expect(JSON.parse(status.stdout)).toMatchObject({ connected: true, mod: { port: sim.port, portSource: 'argument' } });
  });

  it('in `run`: --port-file wins over MC_AGENT_PORT_FILE', async () => {
    const d = await decoys();
    const sim = await startSim({ port: 0 });
    sims.push(sim);
    fs.writeFileSync(d.portFile, String(sim.port));
    const apiPort = await freePort();
    const daemon = processes.start(['run', '--api-port', String(apiPort), '--port-file', d.portFile, '--no-config'], {
      cwd: d.dir,
      env: { MC_AGENT_PORT_FILE: d.envFile },
    });
    await waitUntil(() => /"msg":"connected to server mod/.test(daemon.out.stderr), 30_000, 'the daemon to connect');
    const status = await runCli(['call', 'status', '--api-port', String(apiPort)]);
    expect(JSON.parse(status.stdout)).toMatchObject({ connected: true, mod: { port: sim.port, portSource: `port-file:${d.portFile}` } });
  });
});

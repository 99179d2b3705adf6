/** docs/cli.md, `status` and `doctor` in "Commands": one line per check, advice under each failure, exit 1 when one fails. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSim, type SimulatedMod } from '../../../../core/sim/index.js';
import { runCli } from '../../../support/cli-process.js';
import { project, removeProjects } from '../../../support/config-project.js';
import { freePort, startStack, waitUntil, type Stack } from '../../../support/helpers.js';

const stacks: Stack[] = [];
const sims: SimulatedMod[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
  for (const sim of sims.splice(0)) await sim.stop();
});
afterAll(() => removeProjects());

/** Nothing from the test runner's environment may point discovery or the client elsewhere. */
const env = { MC_AGENT_PORT_FILE: '', MC_AGENT_SERVER_DIR: '', MCBRIDGE_API_PORT: '', MC_AGENT_API_PORT: '', MCBRIDGE_API_HOST: '', MC_AGENT_API_HOST: '' };

function line(stdout: string, name: string): string {
  return stdout.split('\n').find((l) => new RegExp(`^(ok|FAIL|--)\\s+${name}\\s`).test(l)) ?? `(no ${name} line)`;
}

describe('mcbridge status and doctor', { timeout: 90_000 }, () => {
  it('all pass against a running daemon on a connected sim', async () => {
    const s = await startStack();
    stacks.push(s);
    const port = String(s.daemon.apiAddress.port);
    const p = project({ install: false });
    p.write('mcbridge.config.json', JSON.stringify({ apiPort: Number(port) }));

    const status = await runCli(['status'], { cwd: p.dir, env });
    expect(status.code, status.stdout).toBe(0);
    for (const name of ['daemon', 'discovery', 'mod', 'caps', 'plugins']) expect(line(status.stdout, name)).toMatch(/^ok /);
    expect(line(status.stdout, 'daemon')).toContain(`answers on 127.0.0.1:${port}`);
    expect(line(status.stdout, 'mod')).toMatch(/connected on 127\.0\.0\.1:\d+ \(server vantage, mod [\d.]+, Minecraft/);
    expect(line(status.stdout, 'caps')).toMatch(/\d+ capabilities .*state/);
    expect(line(status.stdout, 'memory')).toMatch(/^ok +memory +the daemon holds \d+\.\d MB resident, \d+\.\d MB of it V8 heap in use$/);
    expect(status.stdout.trimEnd().split('\n').at(-1)).toBe('all checks passed');

    const doctor = await runCli(['doctor', '--json'], { cwd: p.dir, env });
    expect(doctor.code).toBe(0);
    const report = JSON.parse(doctor.stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean | null; detail: string }> };
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual(['node', 'config', 'daemon', 'discovery', 'mod', 'caps', 'plugins', 'calls', 'memory']);
    expect(report.checks.find((c) => c.name === 'config')!.detail).toBe(`${p.dir}/mcbridge.config.json: 0 plugins, 0 composites`);
  });

  it('no daemon and no mod: exit 1, saying how to start each', async () => {
    const p = project({ install: false });
    const result = await runCli(['status', '--api-port', String(await freePort())], { cwd: p.dir, env });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'daemon')).toMatch(/^FAIL\s+daemon\s+no daemon answers on 127\.0\.0\.1:\d+/);
    expect(result.stdout).toMatch(/-> start one: `mcbridge run` in the server directory/);
    expect(line(result.stdout, 'discovery')).toMatch(/^FAIL .*port file/);
    expect(result.stdout).toMatch(/-> run the daemon in the server directory/);
    expect(line(result.stdout, 'mod')).toMatch(/^--\s+mod\s+not checked/);
    expect(result.stdout).toMatch(/2 of 5 checks failed\n$/);
  });

  it('no daemon, but the mod runs: status finds it through the port file and asks its CAPS', async () => {
    const p = project({ install: false });
    const sim = await startSim({ port: 0, dir: p.dir });
    sims.push(sim);
    const result = await runCli(['status', '--api-port', String(await freePort())], { cwd: p.dir, env });
    expect(result.code).toBe(1); // the daemon still fails
    expect(line(result.stdout, 'discovery')).toMatch(new RegExp(`^ok\\s+discovery\\s+mod port ${sim.port} \\(port-file:`));
    expect(line(result.stdout, 'mod')).toMatch(new RegExp(`^ok\\s+mod\\s+answers on 127\\.0\\.0\\.1:${sim.port} \\(server vantage, mod`));
    expect(line(result.stdout, 'caps')).toMatch(/^ok\s+caps\s+\d+ capabilities: .*state/);
  });

  it('the mod port does not answer: with a daemon, and without one', async () => {
    const s = await startStack();
    stacks.push(s);
    await s.sim.stop();
    await waitUntil(() => !s.daemon.host.link.connected, 10_000, 'the daemon to lose the mod');
    const withDaemon = await runCli(['status', '--api-port', String(s.daemon.apiAddress.port)], { env });
    expect(withDaemon.code).toBe(1);
    expect(line(withDaemon.stdout, 'mod')).toMatch(/^FAIL\s+mod\s+not connected: /);
    expect(withDaemon.stdout).toMatch(/-> start the Minecraft server with the mc-agent-interface mod/);

    const dead = await freePort();
    const alone = await runCli(['status', '--api-port', String(await freePort()), '--mod-port', String(dead)], { env });
    expect(alone.code).toBe(1);
    expect(line(alone.stdout, 'mod')).toMatch(new RegExp(`^FAIL\\s+mod\\s+nothing answers on 127\\.0\\.0\\.1:${dead} \\(ECONNREFUSED\\)`));
  });

  it("a bad config fails doctor's config line with what to fix", async () => {
    const p = project({ install: false });
    p.write('mcbridge.config.json', JSON.stringify({ buffer: 0 }));
    const result = await runCli(['doctor', '--api-port', String(await freePort())], { cwd: p.dir, env });
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'config')).toMatch(/^FAIL\s+config\s+.*mcbridge\.config\.json: buffer: /);
    expect(result.stdout).toMatch(/-> fix the config; `mcbridge config` prints what `run` would use/);
    expect(line(result.stdout, 'node')).toMatch(/^ok\s+node\s+Node \d+/);

    fs.writeFileSync(path.join(p.dir, 'mcbridge.config.json'), '{ not json');
    const broken = await runCli(['doctor', '--api-port', String(await freePort())], { cwd: p.dir, env });
    expect(broken.code).toBe(1);
    expect(line(broken.stdout, 'config')).toMatch(/^FAIL\s+config\s/);
  });

  it('--json exits 1 when a check fails, as the text form does, for status and doctor', async () => {
    const p = project({ install: false });
    p.write('mcbridge.config.json', JSON.stringify({ buffer: 0 }));
    const port = String(await freePort());
    for (const command of ['status', 'doctor']) {
      const result = await runCli([command, '--json', '--api-port', port], { cwd: p.dir, env });
      const report = JSON.parse(result.stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean | null }> };
      expect(report.ok, command).toBe(false);
      expect(report.checks.find((c) => c.name === 'daemon')?.ok, command).toBe(false);
      expect(result.code, command).toBe(1);
    }
  });
});

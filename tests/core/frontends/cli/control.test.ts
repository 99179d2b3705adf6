/**
 * The CLI and a daemon process whose one target is reached over control protocol 1, by flags
 * (docs/control.md): status, targets, a write's lost answer as a person sees it, request-status,
 * and the usage errors of an incomplete or misplaced option.
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { startSim, type SimulatedMod } from '../../../../core/sim/index.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { startDaemonProcess, type DaemonProcess } from '../../../support/daemon-process.js';

const processes = new CliProcesses();
afterEach(() => processes.stopAll());

let sim: SimulatedMod;
beforeAll(async () => {
  sim = await startSim({ port: 0, control: true });
});
afterAll(() => sim.stop());

async function daemon(): Promise<{ d: DaemonProcess; env: NodeJS.ProcessEnv; api: string[] }> {
  const env = { MCB_FAR_TOKEN: sim.control!.bootstrapToken! };
  const d = await startDaemonProcess(processes, ['--transport', 'control', '--address', `127.0.0.1:${sim.control!.port}`, '--pin', sim.control!.fingerprint, '--token-env', 'MCB_FAR_TOKEN'], env);
  return { d, env, api: ['--api-port', String(d.port)] };
}

describe('a control target from the command line', () => {
  it('status has a control line, targets shows the link, and neither shows the token', async () => {
    const { d, api } = await daemon();
    const status = await runCli(['status', ...api]);
    expect(status.stdout).toMatch(/ok\s+control\s+control protocol to 127\.0\.0\.1:\d+, pin, credential from env MCB_FAR_TOKEN, permissions read\+write/);
    const targets = await runCli(['targets', ...api]);
    expect(targets.stdout).toMatch(/control 127\.0\.0\.1:\d+ \(pin, credential from env MCB_FAR_TOKEN, read\+write\)/);
    for (const text of [status.stdout, status.stderr, targets.stdout, d.out.stderr]) expect(text).not.toContain(sim.control!.bootstrapToken!);
  });

  it('a write whose answer was lost: exit 1, the hint names request-status; request-status says it ran', async () => {
    const { api } = await daemon();
    sim.control!.dropReplyOf('command', { close: true });
    const lost = await runCli(['call', 'command', '{"command": "say hi", "request_id": "cli-1"}', ...api]);
    expect(lost.code).toBe(1);
    expect(lost.stderr).toMatch(/request cli-1: it may have run\. Check with `mcbridge request-status cli-1`/);
    let answer = await runCli(['request-status', 'cli-1', ...api]);
    for (let i = 0; i < 40 && answer.code !== 0; i++) answer = await runCli(['request-status', 'cli-1', ...api]);
    expect(answer.stdout).toMatch(/^cli-1: completed: it ran\n\{.*"writeSeq":\d+/);
  });

  it('an incomplete control link, and a control option on a legacy link, are usage errors that say what to add', async () => {
    const missing = await runCli(['run', '--no-config', '--api-port', '0', '--transport', 'control']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/transport 'control' needs address: the game port as host:port/);
    expect(missing.stderr).toMatch(/needs a credential: tokenFile or tokenEnv/);
    const misplaced = await runCli(['run', '--no-config', '--api-port', '0', '--pin', 'sha256:00']);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toMatch(/pin is for transport: 'control'/);
  });
});

/**
 * A write the CLI gives up on (issue 35, item 19): `--timeout` or Ctrl-C while the server has it.
 * The CLI waits (briefly) for the daemon's answer to its cancel, which names the write's request
 * id and whether it was sent, and says so on stderr: the id, "it may have run" and the
 * `mcbridge request-status` to ask. That id is the daemon's own: request-status answers for it.
 */
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimulatedMod } from '../../../../core/sim/index.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { startDaemonProcess } from '../../../support/daemon-process.js';
import { waitUntil } from '../../../support/helpers.js';
import { ScriptedMod } from '../../../support/scripted-mod.js';

const processes = new CliProcesses();
afterEach(() => processes.stopAll());

/** The request id the hint names, and the hint matched whole. */
const HINT = /request (\S+): it may have run\. Check with `mcbridge request-status \1` or look at the game; do not send it again under a new id/;

describe('a write given up on while a control server holds it', { timeout: 60_000 }, () => {
  let sim: SimulatedMod;
  beforeAll(async () => {
    sim = await startSim({ port: 0, control: true });
  });
  afterAll(() => sim.stop());

  it('--timeout: exit 1, the timeout, the id and "it may have run"; request-status on that id says pending, then completed', async () => {
    const env = { MCB_FAR_TOKEN: sim.control!.bootstrapToken! };
    const d = await startDaemonProcess(processes, ['--transport', 'control', '--address', `127.0.0.1:${sim.control!.port}`, '--pin', sim.control!.fingerprint, '--token-env', 'MCB_FAR_TOKEN'], env);
    const api = ['--api-port', String(d.port)];
    const hold = sim.control!.holdOp('command');
    const call = await runCli(['call', 'command', '{"command": "say held"}', '--timeout', '0.5', ...api]);
    expect(call.code).toBe(1);
    expect(call.stdout).toBe('');
    expect(call.stderr).toMatch(/^error: no answer from the daemon for 'command' within 500 ms \[timeout\]\n/);
    const id = HINT.exec(call.stderr)?.[1];
    expect(id, call.stderr).toMatch(/^[0-9a-f]{16}-\d+$/);

    // The server's ledger knows the id the CLI named: still running, until the hold ends.
    const pending = await runCli(['request-status', id!, ...api]);
    expect(pending.stdout).toMatch(new RegExp(`^${id}: pending: `));
    expect(pending.code).toBe(0);
    hold.release();
    let done = await runCli(['request-status', id!, '--json', ...api]);
    while (JSON.parse(done.stdout).state === 'pending') done = await runCli(['request-status', id!, '--json', ...api]);
    expect(JSON.parse(done.stdout)).toMatchObject({ state: 'completed', requestId: id });
    expect(done.code).toBe(0);
  });
});

describe('a write given up on while a legacy mod never answers it', { timeout: 60_000 }, () => {
  let mod: ScriptedMod;
  beforeAll(async () => {
    mod = await ScriptedMod.start({ respond: (line) => (line.startsWith('CMD ') ? [] : undefined) });
  });
  afterAll(() => mod.stop());

  it('Ctrl-C: exit 130, what was cancelled, the id and "it may have run"; the daemon answers request-status for that id', async () => {
    const d = await startDaemonProcess(processes, ['--mod-port', String(mod.port)]);
    const api = ['--api-port', String(d.port)];
    const { child, out } = processes.start(['call', 'command', '{"command": "say never answered"}', ...api]);
    await waitUntil(() => mod.received.includes('CMD say never answered'), 20_000, 'the mod to receive the command');
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    const [code] = await exited;
    expect(code).toBe(130);
    expect(out.stderr).toMatch(/^cancelled command .* after \d+\.\d s\n/);
    const id = HINT.exec(out.stderr)?.[1];
    expect(id, out.stderr).toMatch(/^lg-[0-9a-f]{16}-\d+$/);

    // The legacy mod keeps no ledger: the daemon's record of the id says it was sent, answer never came.
    const status = await runCli(['request-status', id!, '--json', ...api]);
    expect(JSON.parse(status.stdout)).toMatchObject({ requestId: id, state: 'unknown', sent: true, source: 'daemon' });
  });
});

describe('a daemon that never answers, not even the cancel', { timeout: 30_000 }, () => {
  it('--timeout still ends the call, after the 2 s bound, saying the cancel was not confirmed and that a write may have run', async () => {
    const lines: string[] = [];
    const silent = net.createServer((socket) => socket.on('data', (d) => lines.push(...String(d).split('\n').filter(Boolean))));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((silent.address() as net.AddressInfo).port);
      const started = Date.now();
      const call = await runCli(['call', 'command', '{"command": "say into the void"}', '--timeout', '0.3', '--api-port', port]);
      expect(call.code).toBe(1);
      expect(call.stderr).toBe("error: no answer from the daemon for 'command' within 300 ms; the daemon did not confirm the cancel within 2.0 s: if command writes, it may have run [timeout]\n");
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_300);
      // It did ask: the call, then its cancel.
      expect(lines.map((l) => (JSON.parse(l) as { method: string }).method)).toEqual(['command', 'cancel']);
    } finally {
      silent.close();
    }
  });
});

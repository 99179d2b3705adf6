/**
 * A control credential in a file that others may read (the README's remote recipe once left it
 * 0644): a real daemon process says so at start, naming the file and the `chmod 600` fix, and
 * still connects; a 0600 file gets no warning.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSim, type SimulatedMod } from '../../core/sim/index.js';
import { CliProcesses } from '../support/cli-process.js';
import { startDaemonProcess } from '../support/daemon-process.js';
import { useTemps } from '../support/restore.js';

const processes = new CliProcesses();
const tmp = useTemps('mcbridge-token-mode-');
let sim: SimulatedMod | undefined;
afterEach(async () => {
  await processes.stopAll();
  await sim?.stop();
  sim = undefined;
});

function warnings(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line.includes('readable by other users'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('a control token file', { timeout: 60_000 }, () => {
  it('readable by group or others: the daemon warns once, naming the file and chmod 600, and connects', async () => {
    sim = await startSim({ port: 0, control: true });
    const dir = tmp();
    const tokenFile = path.join(dir, 'far.token');
    fs.writeFileSync(tokenFile, `${sim.control!.bootstrapToken!}\n`);
    fs.chmodSync(tokenFile, 0o644);
    const args = ['--transport', 'control', '--address', `127.0.0.1:${sim.control!.port}`, '--pin', sim.control!.fingerprint, '--token-file', tokenFile];
    const loose = await startDaemonProcess(processes, args);
    expect(warnings(loose.out.stderr)).toEqual([
      expect.objectContaining({ level: 40, tokenFile, msg: `the control token file ${tokenFile} is readable by other users (mode 644): run chmod 600 "${tokenFile}", so only you can read it` }),
    ]);
    // The token itself is never in the warning, or anywhere in the log.
    expect(loose.out.stderr).not.toContain(sim.control!.bootstrapToken!);
    await loose.kill('SIGTERM');

    fs.chmodSync(tokenFile, 0o600);
    const tight = await startDaemonProcess(processes, args);
    expect(warnings(tight.out.stderr)).toEqual([]);
  });
});

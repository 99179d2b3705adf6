/**
 * Daily use (issue 27): a taken API port says who holds it and what to do (exit 2: --api-port picks
 * another); the --help of run and call lists the global options that apply to them; status shows
 * the calls in progress.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { startDaemonProcess, type DaemonProcess } from '../../../support/daemon-process.js';

const processes = new CliProcesses();
let daemon: DaemonProcess;

beforeAll(async () => {
  daemon = await startDaemonProcess(processes, ['--sim']);
}, 60_000);

afterAll(async () => {
  await processes.stopAll();
});

describe('mcbridge run on a taken API port', { timeout: 60_000 }, () => {
  it('names the mcbridge daemon that holds it (asked over the API for its pid) and what to do', async () => {
    const run = await runCli(['run', '--sim', '--no-config', '--api-port', String(daemon.port)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`is taken by another mcbridge daemon (pid ${daemon.pid})`);
    expect(run.stderr).toMatch(/--api-port <port> \(0 picks a free one/);
    expect(run.stderr).not.toMatch(/EADDRINUSE/);
    expect(daemon.alive()).toBe(true);
  });

  it('says when the holder is not an mcbridge daemon, and how to find it', async () => {
    const other = net.createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as net.AddressInfo).port;
    try {
      const run = await runCli(['run', '--sim', '--no-config', '--api-port', String(port)]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('is taken by a process that is not an mcbridge daemon');
      expect(run.stderr).toContain(`ss -ltnp 'sport = :${port}'`);
    } finally {
      other.close();
    }
  });
});

describe('--help of run and call', () => {
  it("lists the global options (--api-port, --api-token, --timeout) under the command's own", async () => {
    for (const command of ['run', 'call']) {
      const help = await runCli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/Global Options:[\s\S]*--api-port <port>[\s\S]*--api-token <token>[\s\S]*--timeout <seconds>/);
    }
  });
});

describe('mcbridge status while a long call runs', { timeout: 60_000 }, () => {
  it('shows the calls in progress, with how long each has run', async () => {
    const api = ['--api-port', String(daemon.port)];
    const idle = await runCli(['status', ...api]);
    expect(idle.stdout).toMatch(/^ok +calls +none in progress$/m);
    const wait = processes.start(['call', 'wait', '{"ticks": 6000}', ...api]);
    let busy = '';
    for (let i = 0; i < 40 && !/in progress: wait/.test(busy); i++) busy = (await runCli(['status', ...api])).stdout;
    expect(busy).toMatch(/^ok +calls +1 in progress: wait \(\d+\.\d s\)$/m);
    wait.child.kill('SIGINT');
  });
});

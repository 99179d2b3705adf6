/** A daemon as a real child process (a crash shows as a dead process, not as an error in the test runner). */
import { once } from 'node:events';
import fs from 'node:fs';
import type { CliProcesses } from './cli-process.js';
import { waitUntil } from './helpers.js';

export interface DaemonProcess {
  port: number;
  pid: number;
  out: { stdout: string; stderr: string };
  alive(): boolean;
  /** Resident set size in bytes (Linux: /proc). */
  rss(): number;
  /** Send `signal` (SIGTERM: a clean stop; SIGKILL: a crash) and wait for the process to end. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * `mcbridge run --api-port 0 --no-config <args>` (`--config <config>` when given), once it
 * listens and has connected to its mod.
 */
export async function startDaemonProcess(processes: CliProcesses, args: string[], env?: NodeJS.ProcessEnv, config?: string): Promise<DaemonProcess> {
  const { child, out } = processes.start(['run', '--api-port', '0', ...(config ? ['--config', config] : args.includes('--config') ? [] : ['--no-config']), ...args], { env });
  let port = 0;
  await waitUntil(
    () => {
      if (child.exitCode !== null) throw new Error(`the daemon exited with ${child.exitCode}: ${out.stderr}`);
      port = Number(/mcbridge daemon listening on [^"]*:(\d+)"/.exec(out.stderr)?.[1] ?? 0);
      return port > 0 && /"msg":"connected to ((server|client) mod|the control listener)/.test(out.stderr);
    },
    30_000,
    'the daemon to listen and connect to its mod',
  );
  return {
    port,
    pid: child.pid!,
    out,
    alive: () => child.exitCode === null && child.signalCode === null,
    rss: () => {
      const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      if (kb === undefined) throw new Error(`no VmRSS for pid ${child.pid}`);
      return Number(kb) * 1024;
    },
    kill: async (signal) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const ended = once(child, 'exit');
      child.kill(signal);
      await ended;
    },
  };
}

/** Until every target of the daemon behind `api` says its mod is connected (a daemon of several: `mcbridge run` logs the first). */
export async function allTargetsConnected(api: { call(method: string, params?: Record<string, unknown>): Promise<unknown> }, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { targets } = (await api.call('targets', {})) as { targets: Array<{ name: string; connected: boolean }> };
    if (targets.every((t) => t.connected)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for every target to connect: ${JSON.stringify(targets.map((t) => [t.name, t.connected]))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What the server plugin's tests share: a server's folder, whether a pid still runs. */
import fs from 'node:fs';
import path from 'node:path';
import type { CliProcesses } from './cli-process.js';
import { type DaemonProcess, startDaemonProcess } from './daemon-process.js';

export const FAKE_SERVER = path.resolve(import.meta.dirname, 'fake-server.mjs');

/** `<root>/servers/<name>`, created. */
export function serverFolder(root: string, name: string): string {
  const dir = path.join(root, 'servers', name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Whether `pid` runs; a zombie nobody reaps (PID 1 here does not) counts as gone. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** A daemon process on `config`, written as `<root>/mcbridge.config.json`, its state folder `<root>/state`. */
export function configuredDaemon(processes: CliProcesses, root: string, config: unknown, args: string[] = []): Promise<DaemonProcess> {
  fs.writeFileSync(path.join(root, 'mcbridge.config.json'), JSON.stringify(config));
  return startDaemonProcess(processes, args, { MCBRIDGE_STATE_DIR: path.join(root, 'state') }, path.join(root, 'mcbridge.config.json'));
}

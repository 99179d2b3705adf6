/** What the server plugin's tests share: a server's folder, whether a pid still runs. */
import fs from 'node:fs';
import path from 'node:path';

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

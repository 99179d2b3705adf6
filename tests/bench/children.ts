/**
 * The bench's child processes (always killed on the way out) and the small helpers its parts
 * share: timeouts, a free port, one API call, memory and CPU of a process from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RpcClient } from './subscriber.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..'); // dist/tests/bench -> repo

export interface Child {
  name: string;
  proc: ChildProcess;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exitedYet: boolean;
  stopping: boolean;
}

const children = new Set<Child>();
/** Children that died without being asked to: the likely cause when the bench breaks. */
export const unexpectedExits: string[] = [];

export function killAll(): void {
  for (const c of children) {
    c.stopping = true;
    if (!c.exitedYet) {
      try {
        c.proc.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

export function spawnChild(name: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Child {
  const proc = spawn(process.execPath, args, { cwd: options.cwd ?? repoRoot, stdio: ['pipe', 'pipe', 'pipe'], ...(options.env ? { env: options.env } : {}) });
  const child: Child = {
    name,
    proc,
    stderr: '',
    exitedYet: false,
    stopping: false,
    exited: new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        child.exitedYet = true;
        children.delete(child);
        if (!child.stopping) {
          unexpectedExits.push(`the ${name} process exited unexpectedly (code ${code}, signal ${signal}); its stderr:\n${child.stderr.trim() || '(empty)'}`);
        }
        resolve({ code, signal });
      });
    }),
  };
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (s: string) => {
    child.stderr = (child.stderr + s).slice(-16_384);
  });
  proc.on('error', (err) => {
    child.stderr += `\nspawn error: ${err.message}`;
  });
  children.add(child);
  return child;
}

/** Reject as soon as the child dies: a dead relay means the benchmark broke. */
export function guard<T>(child: Child, work: Promise<T>): Promise<T> {
  return Promise.race([
    work,
    child.exited.then(({ code, signal }) => {
      throw new Error(`the ${child.name} process exited (code ${code}, signal ${signal}) during the benchmark; its stderr:\n${child.stderr.trim() || '(empty)'}`);
    }),
  ]);
}

export async function stopChild(child: Child): Promise<void> {
  if (child.exitedYet) return;
  child.stopping = true;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 5_000);
  await child.exited;
  clearTimeout(timer);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer!: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** One request on a fresh connection; the parsed reply line. */
export async function oneCall(port: number, method: string): Promise<Record<string, unknown>> {
  const client = await RpcClient.connect(port);
  try {
    const { reply } = await withTimeout(client.roundTrip(JSON.stringify({ id: 1, method })), 5_000, `the '${method}' reply`);
    return JSON.parse(reply) as Record<string, unknown>;
  } finally {
    client.close();
  }
}

/** VmRSS and VmHWM (peak) of a process, in bytes; null where /proc is unavailable. */
export function readMemory(pid: number | undefined): { rss: number | null; peak: number | null } {
  if (pid === undefined) return { rss: null, peak: null };
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => {
      const m = new RegExp(`^${key}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
      return m ? Number(m[1]) * 1024 : null;
    };
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return { rss: null, peak: null };
  }
}

/** CPU time a process has used (all threads), in ms: in total, and in the kernel; null without /proc. */
export function readCpu(pid: number | undefined): { total: number; sys: number } | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (USER_HZ, 100 on Linux).
    const user = Number(fields[11]) * 10;
    const sys = Number(fields[12]) * 10;
    return { total: user + sys, sys };
  } catch {
    return null;
  }
}

export function readCpuMs(pid: number | undefined): number | null {
  return readCpu(pid)?.total ?? null;
}

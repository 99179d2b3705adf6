import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** The compiled CLI, as users run it (`npm test` builds first). */
export const BIN = path.resolve(import.meta.dirname, '../../bin/mcbridge.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Another `mcbridge` executable to run (an installed one) instead of this repo's. */
  bin?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

function spawnCli(args: string[], options: CliOptions & { tty?: boolean }): ChildProcess {
  const env = { ...process.env, MCBRIDGE_API_TOKEN: '', ...options.env };
  const [command, argv] = options.bin ? [options.bin, args] : [process.execPath, [BIN, ...args]];
  if (!options.tty) return spawn(command, argv, { cwd: options.cwd, env });
  // util-linux `script` gives the CLI a pseudo-terminal for stdin, stdout and stderr (both
  // arrive on script's stdout); a Ctrl-C written to script's stdin reaches it as from a keyboard.
  const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
  const line = [command, ...argv].map(quote).join(' ');
  return spawn('script', ['-qfec', line, '/dev/null'], { cwd: options.cwd, env: { ...env, TERM: 'xterm' } });
}

/** Run `mcbridge <args>` to completion. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mcbridge ${args.join(' ')} did not finish; stderr: ${stderr}`));
    }, options.timeoutMs ?? 45_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Long-running `mcbridge` processes, their output collected as it comes; stop them after each test. */
export class CliProcesses {
  private readonly children: ChildProcess[] = [];

  /** `defaults` apply to every process started (e.g. an installed `bin`, a `cwd`). */
  constructor(private readonly defaults: CliOptions = {}) {}

  /** `tty`: run it on a pseudo-terminal (see spawnCli); its stderr then arrives in `out.stdout`. */
  start(args: string[], options: CliOptions & { tty?: boolean } = {}): { child: ChildProcess; out: { stdout: string; stderr: string } } {
    const child = spawnCli(args, { ...this.defaults, ...options });
    this.children.push(child);
    const out = { stdout: '', stderr: '' };
    child.stdout!.on('data', (d) => (out.stdout += d));
    child.stderr!.on('data', (d) => (out.stderr += d));
    return { child, out };
  }

  async stopAll(): Promise<void> {
    for (const child of this.children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
  }
}

import { readFileSync } from 'node:fs';
import path from 'node:path';

export type Vantage = 'server' | 'client';

export interface DiscoveryOptions {
  vantage: Vantage;
  modPort?: number | undefined;
  portFile?: string | undefined;
  serverDir?: string | undefined;
  cwd?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}

export interface PortResolution {
  vantage: Vantage;
  port: number | null;
  source: string; // argument | port-file:<path> | default-client | unresolved | port-file
  checked: string[];
  error: string | null;
  resolved: boolean;
}

export const DEFAULT_CLIENT_PORT = 25580;
export const DEFAULT_SERVER_PORT = 25581;

function validPort(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}

type PortFileRead = { kind: 'ok'; port: number } | { kind: 'missing' } | { kind: 'bad'; problem: string };

/** The mod writes the bare decimal port with no newline; a stale file is possible. */
export function readPortFile(file: string): PortFileRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'bad', problem: `cannot be read (${(err as Error).message})` };
  }
  return portFileText(text);
}

/** What a port file's text holds: the bare decimal port (1-65535), or the problem in words. */
export function portFileText(text: string): { kind: 'ok'; port: number } | { kind: 'bad'; problem: string } {
  const trimmed = text.trim();
  if (!/^[+]?\d+$/.test(trimmed)) {
    return { kind: 'bad', problem: `does not contain a port number (found '${trimmed.slice(0, 40)}')` };
  }
  const port = Number(trimmed);
  if (!validPort(port)) return { kind: 'bad', problem: `contains ${port}, which is not a valid TCP port (1-65535)` };
  return { kind: 'ok', port };
}

function unresolved(vantage: Vantage, source: string, checked: string[], error: string): PortResolution {
  return { vantage, port: null, source, checked, error, resolved: false };
}

function found(vantage: Vantage, port: number, source: string, checked: string[]): PortResolution {
  return { vantage, port, source, checked, error: null, resolved: true };
}

/**
 * Resolve the mod's port in the documented order. Never guesses a server port and never
 * falls back to the client vantage: a wrong guess would drive the wrong game.
 */
export function resolvePort(opts: DiscoveryOptions): PortResolution {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const { vantage } = opts;

  if (opts.modPort !== undefined) {
    if (!validPort(opts.modPort)) {
      return unresolved(vantage, 'argument', [], `--mod-port ${opts.modPort} is not a valid TCP port (1-65535)`);
    }
    return found(vantage, opts.modPort, 'argument', []);
  }

  const explicitFile = opts.portFile ?? (env.MC_AGENT_PORT_FILE || undefined);
  if (explicitFile !== undefined) {
    const file = path.resolve(cwd, explicitFile);
    const read = readPortFile(file);
    if (read.kind === 'ok') return found(vantage, read.port, `port-file:${file}`, [file]);
    const problem = read.kind === 'missing' ? 'does not exist' : read.problem;
    return unresolved(vantage, 'port-file', [file], `the port file '${file}' ${problem}`);
  }

  if (vantage === 'client') {
    const candidates = [path.join(cwd, 'port.txt'), path.join(cwd, 'mc-agent', 'port.txt')];
    for (const file of candidates) {
      const read = readPortFile(file);
      if (read.kind === 'ok') return found(vantage, read.port, `port-file:${file}`, candidates);
      if (read.kind === 'bad') {
        return unresolved(vantage, 'port-file', candidates, `the client-vantage port file '${file}' ${read.problem}`);
      }
    }
    return found(vantage, DEFAULT_CLIENT_PORT, 'default-client', candidates);
  }

  const namedDir = opts.serverDir ?? (env.MC_AGENT_SERVER_DIR || undefined);
  const dir = path.resolve(cwd, namedDir ?? '.');
  const candidates = [path.join(dir, 'mc-agent-server', 'port.txt')];
  // A bare <dir>/port.txt is the legacy client location: only read it when the user named the dir.
  if (namedDir !== undefined) candidates.push(path.join(dir, 'port.txt'));
  let firstLine = `cannot find the server-vantage port file: no readable ${candidates[0]}`;
  for (const file of candidates) {
    const read = readPortFile(file);
    if (read.kind === 'ok') return found(vantage, read.port, `port-file:${file}`, candidates);
    if (read.kind === 'bad') {
      firstLine = `cannot find the server-vantage port file: '${file}' ${read.problem}`;
      break;
    }
  }
  return unresolved(
    vantage,
    'unresolved',
    candidates,
    [
      firstLine,
      'The mod writes it when its server entrypoint starts. Fix one of:',
      '  --server-dir <game-dir>   where mc-agent-server/ lives (or set MC_AGENT_SERVER_DIR)',
      '  --port-file <path>        the exact port.txt to read (or set MC_AGENT_PORT_FILE)',
      `  --mod-port <port>         the port itself (${DEFAULT_SERVER_PORT} by default, or the next free one)`,
      'Client-vantage discovery is off by default; pass --vantage client only for an explicit legacy setup.',
    ].join('\n'),
  );
}

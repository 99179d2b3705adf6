/**
 * What to say when the API port (or `mcbridge mcp`'s HTTP port) is taken: a bare EADDRINUSE
 * leaves a person guessing. The process on the port is asked over the local API; an mcbridge
 * daemon answers `status` with its pid, anything else is named as not ours, with how to find it.
 */
import { ApiClient } from '../api/client.js';
import { McbridgeError } from '../host/errors.js';

const PROBE_MS = 1_500;

export interface TakenPort {
  host: string;
  port: number;
  token?: string;
  /** Whose port it was to be: the daemon's local API (the default), or the MCP front-end's HTTP endpoint. */
  role?: 'api' | 'mcp-http';
}

const ROLES = {
  api: { what: 'the local API port', who: 'this daemon', flag: '--api-port <port>', after: 'clients then need the same --api-port' },
  'mcp-http': { what: 'the MCP HTTP port', who: 'this MCP endpoint', flag: '--port <port>', after: 'its URL is printed on stdout' },
} as const;

/** Who holds the port, in words (with the pid when an mcbridge daemon answers). */
async function whoHolds({ host, port, token }: TakenPort): Promise<{ mcbridge: boolean; pid?: number; words: string }> {
  let client: ApiClient | undefined;
  try {
    client = await ApiClient.connect({ host, port, token, connectTimeoutMs: PROBE_MS, frontend: 'run' });
    const status = (await client.call('status', {}, { timeoutMs: PROBE_MS })) as { pid?: unknown; connected?: unknown };
    const pid = typeof status.pid === 'number' ? status.pid : undefined;
    const mod = status.connected === true ? 'connected to its mod' : 'not connected to a mod';
    return { mcbridge: true, pid, words: `another mcbridge daemon${pid ? ` (pid ${pid})` : ''}, ${mod},` };
  } catch (err) {
    // A daemon that wants a token still answers in its own words.
    if (err instanceof McbridgeError && err.code === 'unauthorized') return { mcbridge: true, words: 'another mcbridge daemon (it requires a token)' };
    return { mcbridge: false, words: 'a process that is not an mcbridge daemon' };
  } finally {
    client?.close();
  }
}

/** The error for a taken port: who holds it and what to do. */
export async function portTakenError(address: TakenPort): Promise<McbridgeError> {
  const { host, port, role = 'api' } = address;
  const { what, who, flag, after } = ROLES[role];
  const holder = await whoHolds(address);
  const kill = holder.pid ? ` (\`kill ${holder.pid}\`)` : '';
  // A daemon on the API port is one to use; on the MCP port it is only in the way.
  const todo = holder.mcbridge
    ? role === 'api'
      ? `Use that one (\`mcbridge status --api-port ${port}\`), stop it${kill}, or`
      : `Stop it${kill}, or`
    : `Find it with \`ss -ltnp 'sport = :${port}'\` (or \`lsof -i :${port}\`) and stop it, or`;
  return new McbridgeError(
    'unavailable',
    `${what} ${host}:${port} is taken by ${holder.words} already listening there. ${todo} start ${who} on another port: ${flag} (0 picks a free one; ${after}).`,
    { reason: 'port_taken', host, port, ...(role === 'api' ? {} : { role }), ...(holder.pid ? { pid: holder.pid } : {}) },
  );
}

/** Whether `err` is the error above (or the bare one it stands for). */
export function isPortTaken(err: unknown): boolean {
  if ((err as NodeJS.ErrnoException)?.code === 'EADDRINUSE') return true;
  return err instanceof McbridgeError && (err.details as { reason?: unknown } | undefined)?.reason === 'port_taken';
}

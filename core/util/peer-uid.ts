/**
 * Which user owns the other end of a loopback TCP connection, read from Linux's socket tables
 * (`/proc/net/tcp` and `tcp6` list every socket with its owner's uid, readable by any user). A
 * loopback address says nothing about who connected, so this is what tells one local user's
 * process from another's where no token does (docs/mcp.md, "What loopback without a token cannot
 * protect").
 */
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';

const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];
const ESTABLISHED = '01';

/** A port as the tables write it: four upper-case hex digits. */
function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * The uid in the table row whose local end is `peerPort` and remote end `ourPort`: the peer's
 * own socket (the row with the ports the other way round is ours). Null when no row matches.
 */
export function uidFromTable(table: string, peerPort: number, ourPort: number): number | null {
  const local = `:${hexPort(peerPort)}`;
  const remote = `:${hexPort(ourPort)}`;
  for (const line of table.split('\n')) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid ...; only an established
    // connection (st 01): a closed one of the same ports lingers in TIME_WAIT with uid 0.
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8 || fields[3] !== ESTABLISHED || !fields[1]!.endsWith(local) || !fields[2]!.endsWith(remote)) continue;
    const uid = Number(fields[7]);
    return Number.isSafeInteger(uid) && uid >= 0 ? uid : null;
  }
  return null;
}

/** The uid of the process at the other end of `socket` (same machine), or null where it cannot be told. */
export async function peerUid(socket: Socket): Promise<number | null> {
  const peerPort = socket.remotePort;
  const ourPort = socket.localPort;
  if (process.platform !== 'linux' || peerPort === undefined || ourPort === undefined) return null;
  for (const path of TABLES) {
    let table: string;
    try {
      table = await readFile(path, 'utf8');
    } catch {
      continue;
    }
    const uid = uidFromTable(table, peerPort, ourPort);
    if (uid !== null) return uid;
  }
  return null;
}

/**
 * The mod's console commands for the control transport, run as game commands through CMD so an
 * operator on the legacy socket can mint credentials: `mcagent control status`,
 * `mcagent control token add <label> read|write|read+write [ttlSeconds]`, `... token list`,
 * `... token revoke <id>`. Their output is the command's feedback only; it is not echoed as
 * `game` events, so a new secret appears exactly once.
 */
import type { ControlServer } from './server.js';
import { GRANTS, type Grant } from './tokens.js';

const USAGE = 'Usage: /mcagent control status | token add <label> read|write|read+write [ttlSeconds] | token list | token revoke <id>';

function iso(millis: number): string {
  return new Date(millis).toISOString();
}

function add(server: ControlServer, args: string[]): string[] {
  const [label, grant, ttl] = args;
  if (!label || !grant || args.length > 3 || !(grant in GRANTS)) return [USAGE];
  let ttlSeconds: number | undefined;
  if (ttl !== undefined) {
    ttlSeconds = Number(ttl);
    if (!/^[0-9]+$/.test(ttl) || ttlSeconds < 1) return [`Invalid ttlSeconds '${ttl}': a whole number of seconds, at least 1`];
  }
  const { id, token } = server.addToken(label, grant as Grant, ttlSeconds);
  const expiry = ttlSeconds === undefined ? 'no expiry' : `expires in ${ttlSeconds} s`;
  return [`Issued control credential ${id} (${label}, ${grant}, ${expiry})`, `Token (shown once, store it now): ${token}`];
}

function list(server: ControlServer): string[] {
  const tokens = server.tokens.list();
  if (tokens.length === 0) return ['No control credentials'];
  return tokens.map((t) => {
    const expiry = t.expiresAtMillis === undefined ? '' : server.tokens.usable(t) ? ` expires ${iso(t.expiresAtMillis)}` : ' expired';
    return `${t.id} ${t.label} ${t.permissions.join('+')} created ${iso(t.createdAtMillis)}${expiry}`;
  });
}

export function consoleCommand(server: ControlServer, command: string): string[] | null {
  const words = command.trim().split(/\s+/);
  if (words[0]?.toLowerCase() !== 'mcagent' || words[1]?.toLowerCase() !== 'control') return null;
  const [sub, verb, ...rest] = words.slice(2);
  if (sub === 'status' && verb === undefined) {
    return [
      `Control protocol 1: listening on ${server.sim.host}:${server.port} (same-port-tls), fingerprint ${server.fingerprint}`,
      `Run ${server.runId}: ${server.sessions} session(s), ${server.tokens.list().length} credential(s), ${server.leases.status().length} lease(s)`,
    ];
  }
  if (sub !== 'token') return [USAGE];
  if (verb === 'add') return add(server, rest);
  if (verb === 'list' && rest.length === 0) return list(server);
  if (verb === 'revoke' && rest.length === 1) return server.revoke(rest[0]) ? [`Revoked control credential ${rest[0]}`] : [`No control credential ${rest[0]}`];
  return [USAGE];
}

/**
 * The checks every HTTP request passes before it reaches an MCP session: `Host` and
 * `Origin` against DNS rebinding (a web page must not reach a loopback server through a
 * name it controls), then the bearer token when one is set. A request that passes is
 * named by its credential: the token when one is in use, else the remote address.
 */
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isLoopback } from '../../util/net.js';

/**
 * Why serving MCP on `host` without a token is refused, or null: one text for the server and
 * for the CLI, which says it as a usage error before anything loads (exit 2).
 */
export function tokenlessBindRefusal(host: string, token: string | undefined): string | null {
  if (isLoopback(host) || token) return null;
  return `refusing to serve MCP on ${host} without a token: anyone who reaches it can run console commands. Pass --token auto (generates one and stores it) or --token <secret>, or bind 127.0.0.1.`;
}

export interface GuardOptions {
  /** The address the server binds. */
  bindHost: string;
  /** Extra host names (or addresses) clients may use in `Host`. */
  allowedHosts?: string[];
  /** Extra origins (`scheme://host[:port]`) browsers may send. */
  allowedOrigins?: string[];
  token?: string;
}

export interface Refusal {
  status: 401 | 403;
  message: string;
  headers?: Record<string, string>;
}

/**
 * Who is asking. `key` is a keyed hash of the credential: equal keys mean one client, and the
 * raw token is not kept. `label` is safe to log (never the token).
 */
export interface ClientId {
  key: Buffer;
  label: string;
}

type Verdict = { refusal: Refusal } | { client: ClientId };

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** Per process, so a heap dump holds no plain hash of the token to test guesses against. */
const CREDENTIAL_KEY = randomBytes(32);

function credentialKey(kind: 'token' | 'address' | 'uid', value: string): Buffer {
  return createHmac('sha256', CREDENTIAL_KEY).update(`${kind}\0${value}`).digest();
}

/** The share of a local user other than this server's: one for all its processes and addresses. */
export function userSource(uid: number): ClientId {
  return { key: credentialKey('uid', String(uid)), label: `uid ${uid}` };
}

/** The peer's address; an IPv4 client of a dual-stack socket counts as its IPv4 address. */
function remoteAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

function bare(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
}

function isWildcard(host: string): boolean {
  const h = bare(host);
  return h === '0.0.0.0' || h === '::' || h === '';
}

/** Hostname (no port, no brackets) of a `Host` header value; null when malformed. */
export function hostnameOf(hostHeader: string): string | null {
  try {
    const url = new URL(`http://${hostHeader}`);
    return bare(url.hostname);
  } catch {
    return null;
  }
}

/** Names a client may use to reach this server: loopback, the bind address, what the user allowed. */
export function allowedHostnames(options: GuardOptions): Set<string> {
  const names = new Set<string>(LOOPBACK_NAMES);
  for (const h of options.allowedHosts ?? []) names.add(bare(h));
  if (isWildcard(options.bindHost)) {
    // Bound to every interface: each of this machine's addresses and its name.
    names.add(os.hostname().toLowerCase());
    for (const list of Object.values(os.networkInterfaces())) {
      for (const info of list ?? []) names.add(bare(info.address));
    }
  } else {
    names.add(bare(options.bindHost));
  }
  return names;
}

export class HttpGuard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;
  /** The token's keyed hash: fixed length, so comparing it leaks neither content nor length. */
  private readonly token: Buffer | null;

  constructor(options: GuardOptions) {
    this.hosts = allowedHostnames(options);
    this.origins = new Set((options.allowedOrigins ?? []).map((o) => o.trim().toLowerCase().replace(/\/$/, '')));
    this.token = options.token ? credentialKey('token', options.token) : null;
  }

  /** The client a request may proceed as, or the status and reason to refuse it with. */
  check(req: IncomingMessage): Verdict {
    const refusal = this.refusal(req);
    if (refusal) return { refusal };
    // The token passed, so it is the credential: every holder of it is one client.
    if (this.token) return { client: { key: this.token, label: 'token' } };
    const address = remoteAddress(req);
    return { client: { key: credentialKey('address', address), label: address } };
  }

  private refusal(req: IncomingMessage): Refusal | null {
    const host = req.headers.host;
    const hostname = host ? hostnameOf(host) : null;
    if (!hostname || !this.hosts.has(hostname)) {
      return { status: 403, message: `Host '${host ?? ''}' is not allowed: this server answers only to ${[...this.hosts].join(', ')} (DNS rebinding protection; add names with --allowed-host)` };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.originAllowed(origin)) {
      return { status: 403, message: `Origin '${origin}' is not allowed (DNS rebinding protection; add it with --allowed-origin)` };
    }
    if (this.token) {
      const header = req.headers.authorization ?? '';
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      const given = match ? credentialKey('token', match[1]!.trim()) : null;
      if (!given || !timingSafeEqual(given, this.token)) {
        return {
          status: 401,
          message: header ? 'the bearer token is wrong' : 'this server requires a bearer token: send "Authorization: Bearer <token>"',
          headers: { 'WWW-Authenticate': 'Bearer realm="mcbridge"' },
        };
      }
    }
    return null;
  }

  private originAllowed(origin: string): boolean {
    const normalised = origin.trim().toLowerCase().replace(/\/$/, '');
    if (this.origins.has(normalised)) return true;
    try {
      const url = new URL(normalised);
      // A page served from this machine (any port) under a name that resolves here.
      return (url.protocol === 'http:' || url.protocol === 'https:') && this.hosts.has(bare(url.hostname)) && isLoopback(bare(url.hostname));
    } catch {
      return false;
    }
  }
}

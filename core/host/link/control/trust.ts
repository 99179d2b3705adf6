/**
 * How a control link knows it reached the intended server: the SHA-256 fingerprint of its
 * certificate pinned, or a CA file as the only trust root. There is no mode without either
 * (docs/control.md, "Trust"). Nothing is sent before the check passes.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { McbridgeError } from '../../errors.js';

/** Where the mod writes its certificate's fingerprint, under the game folder, once TLS is armed. */
export const FINGERPRINT_FILE = path.join('mc-agent-server', 'control', 'fingerprint.txt');

export interface TrustSettings {
  pin?: string;
  caFile?: string;
  /** The game folder: without pin and caFile, the pin is read from its fingerprint.txt at each connect. */
  serverDir?: string;
  /** The name the certificate must carry (CA mode); default: the address's host. */
  serverName?: string;
}

/** `sha256:<hex>`, bare hex, upper or lower case, with colons or spaces: 64 hex digits, lower case. */
export function parsePin(text: string): string | null {
  const hex = text
    .trim()
    .replace(/^sha-?256\s*[:=]?\s*/i, '')
    .replace(/[\s:]/g, '')
    .toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}

export function pinError(source: string): McbridgeError {
  return new McbridgeError('invalid_params', `${source} is not a SHA-256 fingerprint: give 64 hex digits, e.g. sha256:3f9a… (colons and spaces are fine)`);
}

/** The pin to check this connect against: given, or read from the game folder now. */
export function currentPin(trust: TrustSettings): { pin: string; source: string } | null {
  if (trust.pin !== undefined) {
    const pin = parsePin(trust.pin);
    if (pin === null) throw pinError('pin');
    return { pin, source: 'pin' };
  }
  if (trust.caFile !== undefined || trust.serverDir === undefined) return null;
  const file = path.join(trust.serverDir, FINGERPRINT_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').slice(0, 1024);
  } catch {
    throw new McbridgeError('not_connected', `no ${file}: the mod writes it once its control listener is up (mcagent.control=true). Start the server with control on, or give the pin or a caFile`);
  }
  const pin = parsePin(text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '');
  if (pin === null) throw pinError(file);
  return { pin, source: file };
}

/** The TLS options of one connect: CA mode verifies as TLS does; pin mode checks after the handshake (`verifyPeer`). */
export function tlsOptions(host: string, port: number, trust: TrustSettings, timeoutMs: number): tls.ConnectionOptions {
  const base: tls.ConnectionOptions = { host, port, minVersion: 'TLSv1.2', timeout: timeoutMs };
  const name = trust.serverName ?? host;
  if (!net.isIP(name)) base.servername = name;
  if (trust.caFile !== undefined) {
    let ca: Buffer;
    try {
      ca = fs.readFileSync(trust.caFile);
    } catch (err) {
      throw new McbridgeError('invalid_params', `cannot read caFile ${trust.caFile}: ${(err as Error).message}`);
    }
    return { ...base, ca, rejectUnauthorized: true, checkServerIdentity: (_host, cert) => tls.checkServerIdentity(name, cert) };
  }
  // Pinned: the certificate is self-signed by design; verifyPeer decides before anything is sent.
  return { ...base, rejectUnauthorized: false };
}

/** Pin mode: the leaf's SHA-256 must be the pin, and the certificate inside its validity window. */
export function verifyPeer(socket: tls.TLSSocket, pinned: { pin: string; source: string }, address: string, now = Date.now()): void {
  const cert = socket.getPeerX509Certificate();
  if (!cert) throw new McbridgeError('not_connected', `the server at ${address} sent no certificate; nothing was sent`);
  const seen = cert.fingerprint256.replace(/:/g, '').toLowerCase();
  if (seen !== pinned.pin) {
    throw new McbridgeError(
      'not_connected',
      `the certificate of ${address} does not match the pin (${pinned.source}): it is sha256:${seen}, the pin is sha256:${pinned.pin}. ` +
        'Nothing was sent. If the server made a new certificate, pin its mc-agent-server/control/fingerprint.txt; otherwise this is not the intended server',
      { fingerprint: `sha256:${seen}` },
    );
  }
  validityProblem(cert.validFrom, cert.validTo, address, now);
}

function validityProblem(from: string, to: string, address: string, now: number): void {
  if (Date.parse(to) < now) {
    throw new McbridgeError('not_connected', `the certificate of ${address} expired on ${new Date(to).toISOString()}; nothing was sent. Have the server make a new one, then pin it`);
  }
  if (Date.parse(from) > now) {
    throw new McbridgeError('not_connected', `the certificate of ${address} is not valid before ${new Date(from).toISOString()}; check this machine's clock and the server's`);
  }
}

/** A TLS failure in words that say what to do. */
export function describeTlsFailure(err: NodeJS.ErrnoException, address: string): string {
  const code = String(err.code ?? '');
  const text = `${code} ${err.message}`;
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|UNKNOWN_PROTOCOL|RECORD_LAYER|HTTP_REQUEST|BAD_RECORD/i.test(text)) {
    return (
      `${address} did not answer with TLS: it is not a control listener (a Minecraft player port, or the legacy loopback port, does not answer control connections). ` +
      'Point `address` at the game port of a server started with mcagent.control=true'
    );
  }
  if (code === 'CERT_HAS_EXPIRED') return `the certificate of ${address} has expired; nothing was sent. Have the server make a new one`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the certificate of ${address} does not name that host (${err.message}); set serverName to a name it carries, or pin the fingerprint instead`;
  if (/SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|CERT_SIGNATURE_FAILURE|CERT_UNTRUSTED/.test(code)) {
    return `the certificate of ${address} is not signed by the caFile (${code}); nothing was sent. Use the server's mc-agent-server/control/server.crt, or pin its fingerprint`;
  }
  return `cannot reach the control listener on ${address}: ${err.message}`;
}

/**
 * The control listener's identity, kept in `<modDir>/control/` like the mod keeps it: a
 * self-signed EC P-256 certificate (SANs localhost, 127.0.0.1, ::1; ten years) made once with the
 * `openssl` binary and reused on every later start, or a PEM pair the operator supplies; and a
 * stable `instanceId`. Why openssl: docs/decisions.md, "The simulated mod makes its certificate
 * with openssl".
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SimOptionsError } from '../options.js';

export interface Identity {
  cert: string;
  key: string;
  /** `sha256:<64 lower hex>` of the leaf certificate's DER. */
  fingerprint: string;
  certFile: string;
}

export function controlDir(modDir: string): string {
  return path.join(modDir, 'control');
}

/** `AB:CD:..` (node's fingerprint256) as the mod writes it: `sha256:abcd..`. */
export function fingerprintOf(certPem: string): string {
  return `sha256:${new crypto.X509Certificate(certPem).fingerprint256.replaceAll(':', '').toLowerCase()}`;
}

function refused(option: string, message: string): SimOptionsError {
  return new SimOptionsError(`invalid simulated-mod options: control.${option}: ${message}`, [{ path: `control.${option}`, message }]);
}

function readPair(certFile: string, keyFile: string): { cert: string; key: string } {
  const read = (option: string, file: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw refused(option, `cannot read ${file} (${(err as NodeJS.ErrnoException).code}); pass a PEM file`);
    }
  };
  const cert = read('certFile', certFile);
  const key = read('keyFile', keyFile);
  let x509: crypto.X509Certificate;
  try {
    x509 = new crypto.X509Certificate(cert);
  } catch {
    throw refused('certFile', `${certFile} is not a PEM certificate`);
  }
  try {
    if (!x509.checkPrivateKey(crypto.createPrivateKey(key))) throw new Error('mismatch');
  } catch {
    throw refused('keyFile', `${keyFile} is not the PEM private key of ${certFile}`);
  }
  return { cert, key };
}

function runOpenssl(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('openssl', args, { timeout: 30_000 }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        return reject(
          refused(
            'certFile',
            'the control listener makes its certificate with the openssl binary, which is not installed: install openssl (e.g. `apt-get install openssl`), or pass control: { certFile, keyFile } (a PEM pair)',
          ),
        );
      }
      reject(new Error(`openssl could not make the control certificate: ${String(stderr).trim() || err.message}`));
    });
  });
}

/** Makes the self-signed pair next to its final place, then renames it in, so a crash leaves no half pair. */
async function makePair(certFile: string, keyFile: string): Promise<void> {
  const tmpCert = `${certFile}.${process.pid}.tmp`;
  const tmpKey = `${keyFile}.${process.pid}.tmp`;
  try {
    await runOpenssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '3650',
      '-subj',
      '/CN=mc-agent-interface control',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
      '-keyout',
      tmpKey,
      '-out',
      tmpCert,
    ]);
    fs.chmodSync(tmpKey, 0o600);
    fs.renameSync(tmpKey, keyFile);
    fs.renameSync(tmpCert, certFile);
  } finally {
    fs.rmSync(tmpCert, { force: true });
    fs.rmSync(tmpKey, { force: true });
  }
}

/**
 * The pair to serve: the supplied one, else `server.crt`/`server.key` from an earlier start, else
 * a new one. `server.crt` always ends up holding the served certificate.
 */
export async function loadIdentity(modDir: string, supplied: { certFile?: string; keyFile?: string }): Promise<Identity> {
  const dir = controlDir(modDir);
  fs.mkdirSync(dir, { recursive: true });
  const certFile = path.join(dir, 'server.crt');
  const keyFile = path.join(dir, 'server.key');
  let pair: { cert: string; key: string };
  if (supplied.certFile !== undefined && supplied.keyFile !== undefined) {
    pair = readPair(supplied.certFile, supplied.keyFile);
    fs.writeFileSync(certFile, pair.cert);
  } else {
    if (!fs.existsSync(certFile) || !fs.existsSync(keyFile)) await makePair(certFile, keyFile);
    pair = readPair(certFile, keyFile);
  }
  return { ...pair, fingerprint: fingerprintOf(pair.cert), certFile };
}

/** Stable per game dir: made once, then read from `control/instance.txt`. */
export function instanceIdOf(modDir: string): string {
  const file = path.join(controlDir(modDir), 'instance.txt');
  try {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (/^inst_[0-9a-f]{16}$/.test(stored)) return stored;
  } catch {
    // First start in this dir.
  }
  const made = `inst_${crypto.randomBytes(8).toString('hex')}`;
  fs.writeFileSync(file, `${made}\n`);
  return made;
}

export function randomId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(8).toString('hex')}`;
}

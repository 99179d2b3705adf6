/**
 * The control link's credential and trust on their own (issue 35, "Test strength"): where the
 * token comes from and what its errors say, the pin given or read from the game folder, the TLS
 * options of each mode, the pin and validity check, and TLS failures in words.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McbridgeError } from '../../../../../core/host/errors.js';
import { credentialSource, readCredential } from '../../../../../core/host/link/control/credential.js';
import { currentPin, describeTlsFailure, FINGERPRINT_FILE, parsePin, pinError, tlsOptions, verifyPeer } from '../../../../../core/host/link/control/trust.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  vi.restoreAllMocks();
});
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-trust-parts-'));
  dirs.push(d);
  return d;
}

function thrown(fn: () => unknown): McbridgeError {
  try {
    fn();
  } catch (err) {
    return err as McbridgeError;
  }
  throw new Error('nothing thrown');
}

const TOKEN = 'mca1.tk_abc.secret-123_X';

describe('the credential', () => {
  it('names its source: given, then a file, then an environment variable', () => {
    expect(credentialSource({ token: 't', tokenFile: 'f', tokenEnv: 'E' })).toBe('given');
    expect(credentialSource({ tokenFile: '/x/token', tokenEnv: 'E' })).toBe('file /x/token');
    expect(credentialSource({ tokenEnv: 'MC_TOKEN' })).toBe('env MC_TOKEN');
    expect(credentialSource({})).toBeNull();
  });

  it('without a source says how to get one', () => {
    const e = thrown(() => readCredential({}));
    expect([e.code, e.message]).toEqual([
      'unauthorized',
      'a control target needs a credential: set tokenFile or tokenEnv (mint one on the server console: /mcagent control token add <label> read+write)',
    ]);
  });

  it('is read from a file, trimmed, at most 4 KiB of it', () => {
    const dir = tmp();
    const file = path.join(dir, 'token');
    fs.writeFileSync(file, `  ${TOKEN}\n`);
    expect(readCredential({ tokenFile: file, tokenEnv: 'UNUSED' }, {})).toEqual({ token: TOKEN, id: 'tk_abc', secret: 'secret-123_X', source: `file ${file}` });
    fs.writeFileSync(file, `${' '.repeat(4096)}${TOKEN}`);
    expect(thrown(() => readCredential({ tokenFile: file })).message).toMatch(/is not of the form/);
    // Each read closes its file: a token read at every connect must not leak a descriptor.
    const open = () => fs.readdirSync('/proc/self/fd').length;
    fs.writeFileSync(file, TOKEN);
    const before = open();
    for (let i = 0; i < 20; i++) readCredential({ tokenFile: file });
    expect(open()).toBe(before);
    const missing = path.join(dir, 'none');
    const e = thrown(() => readCredential({ tokenFile: missing }));
    expect([e.code, e.message]).toEqual(['unauthorized', `cannot read the token file ${missing}: ENOENT`]);
  });

  it('is read from the environment; unset or blank says to put it there', () => {
    expect(readCredential({ tokenEnv: 'T' }, { T: ` ${TOKEN} ` }).token).toBe(TOKEN);
    for (const env of [{}, { T: '  ' }]) {
      const e = thrown(() => readCredential({ tokenEnv: 'T' }, env));
      expect([e.code, e.message]).toEqual(['unauthorized', 'the environment variable T is not set: put the control token in it']);
    }
  });

  it('of another form is refused without echoing it; the id and secret have bounds', () => {
    const bad = 'mca1.tk_x.short7!';
    const e = thrown(() => readCredential({ token: bad }));
    expect([e.code, e.message]).toEqual(['unauthorized', 'the control token from given is not of the form mca1.<id>.<secret> (as /mcagent control token add prints it)']);
    expect(readCredential({ token: `mca1.${'i'.repeat(64)}.${'s'.repeat(8)}` })).toMatchObject({ id: 'i'.repeat(64), secret: 's'.repeat(8), source: 'given' });
    for (const t of [
      `mca1.${'i'.repeat(65)}.${'s'.repeat(8)}`,
      `mca1.id.${'s'.repeat(7)}`,
      `mca1..${'s'.repeat(8)}`,
      `mca1.id.${'s'.repeat(257)}`,
      `x${TOKEN}`,
      `${TOKEN}x!`,
      `mca2.id.${'s'.repeat(8)}`,
    ]) {
      expect(() => readCredential({ token: t })).toThrow(/not of the form/);
    }
    expect(readCredential({ token: `mca1.id.${'s'.repeat(256)}` }).secret).toHaveLength(256);
  });
});

const HEX = '0123456789abcdef'.repeat(4);

describe('the pin', () => {
  it('reads the usual spellings', () => {
    expect(parsePin(`  sha256=${HEX}  `)).toBe(HEX);
    expect(parsePin(`sha256 ${HEX}`)).toBe(HEX);
    expect(parsePin(`Sha-256 :  ${HEX.toUpperCase()}`)).toBe(HEX);
    expect(parsePin(`x${HEX}`)).toBeNull();
    // The prefix only at the start: hex before a later 'sha256:' is not taken into the pin.
    expect(parsePin(`ab sha256:${'cd'.repeat(31)}`)).toBeNull();
    expect(parsePin(`sha256:${HEX}\tx`)).toBeNull();
  });

  it('given is checked at once; a CA file or no game folder means no pin', () => {
    expect(currentPin({ pin: `sha256:${HEX}`, serverDir: '/nowhere' })).toEqual({ pin: HEX, source: 'pin' });
    const e = thrown(() => currentPin({ pin: 'sha256:00' }));
    expect([e.code, e.message]).toEqual(['invalid_params', pinError('pin').message]);
    expect(pinError('pin').message).toBe('pin is not a SHA-256 fingerprint: give 64 hex digits, e.g. sha256:3f9a… (colons and spaces are fine)');
    expect(currentPin({ caFile: '/ca.pem', serverDir: '/nowhere' })).toBeNull();
    expect(currentPin({})).toBeNull();
  });

  it("is read from the game folder's fingerprint file: its first line with text, of its first KiB", () => {
    const dir = tmp();
    const file = path.join(dir, FINGERPRINT_FILE);
    expect(FINGERPRINT_FILE).toBe(path.join('mc-agent-server', 'control', 'fingerprint.txt'));
    const missing = thrown(() => currentPin({ serverDir: dir }));
    expect([missing.code, missing.message]).toEqual([
      'not_connected',
      `no ${file}: the mod writes it once its control listener is up (mcagent.control=true). Start the server with control on, or give the pin or a caFile`,
    ]);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `\r\n  \r\nsha256:${HEX}\r\nsha256:${'ff'.repeat(32)}\n`);
    expect(currentPin({ serverDir: dir })).toEqual({ pin: HEX, source: file });
    // Lines ended by a bare LF, as the mod writes them on Linux.
    fs.writeFileSync(file, `sha256:${HEX}\nsha256:${'ff'.repeat(32)}\n`);
    expect(currentPin({ serverDir: dir })).toEqual({ pin: HEX, source: file });
    fs.writeFileSync(file, `${'\n'.repeat(1024)}sha256:${HEX}\n`);
    const far = thrown(() => currentPin({ serverDir: dir }));
    expect([far.code, far.message]).toEqual(['invalid_params', pinError(file).message]);
    fs.writeFileSync(file, 'not a pin\n');
    expect(thrown(() => currentPin({ serverDir: dir })).message).toBe(pinError(file).message);
  });
});

describe('TLS options', () => {
  it('pinned: no CA check (the pin decides), the name sent unless it is an address', () => {
    expect(tlsOptions('mc.example.org', 25565, { pin: HEX }, 5_000)).toEqual({
      host: 'mc.example.org',
      port: 25565,
      minVersion: 'TLSv1.2',
      timeout: 5_000,
      servername: 'mc.example.org',
      rejectUnauthorized: false,
    });
    expect(tlsOptions('127.0.0.1', 1, { pin: HEX }, 1)).not.toHaveProperty('servername');
    expect(tlsOptions('127.0.0.1', 1, { pin: HEX, serverName: 'game.local' }, 1).servername).toBe('game.local');
    expect(tlsOptions('mc.example.org', 1, { pin: HEX, serverName: '::1' }, 1)).not.toHaveProperty('servername');
  });

  it('a CA file: verified as TLS does, against the serverName', () => {
    const dir = tmp();
    const ca = path.join(dir, 'ca.pem');
    fs.writeFileSync(ca, 'PEM');
    const o = tlsOptions('10.0.0.1', 2, { caFile: ca, serverName: 'game.local' }, 1);
    expect(o).toMatchObject({ ca: Buffer.from('PEM'), rejectUnauthorized: true, servername: 'game.local' });
    const check = vi.spyOn(tls, 'checkServerIdentity').mockReturnValue(undefined);
    const cert = {} as tls.PeerCertificate;
    o.checkServerIdentity!('10.0.0.1', cert);
    expect(check).toHaveBeenCalledWith('game.local', cert);
    const e = thrown(() => tlsOptions('h', 1, { caFile: path.join(dir, 'none.pem') }, 1));
    expect(e.code).toBe('invalid_params');
    expect(e.message).toMatch(new RegExp(`^cannot read caFile ${path.join(dir, 'none.pem')}: ENOENT`));
  });
});

function peer(cert: { fingerprint256: string; validFrom: string; validTo: string } | undefined): tls.TLSSocket {
  return { getPeerX509Certificate: () => cert } as unknown as tls.TLSSocket;
}

describe('the peer check', () => {
  const now = Date.parse('2026-06-01T00:00:00Z');
  const colons = HEX.toUpperCase().match(/../g)!.join(':');
  const good = { fingerprint256: colons, validFrom: 'Jan  1 00:00:00 2026 GMT', validTo: 'Jan  1 00:00:00 2027 GMT' };
  const pinned = { pin: HEX, source: 'pin' };

  it('passes the pinned certificate inside its window, its edges included', () => {
    expect(() => verifyPeer(peer(good), pinned, 'h:1', now)).not.toThrow();
    expect(() => verifyPeer(peer(good), pinned, 'h:1', Date.parse(good.validTo))).not.toThrow();
    expect(() => verifyPeer(peer(good), pinned, 'h:1', Date.parse(good.validFrom))).not.toThrow();
  });

  it('refuses no certificate, another one, and one outside its window, each saying nothing was sent or what to check', () => {
    const none = thrown(() => verifyPeer(peer(undefined), pinned, 'h:1', now));
    expect([none.code, none.message]).toEqual(['not_connected', 'the server at h:1 sent no certificate; nothing was sent']);
    const other = thrown(() => verifyPeer(peer({ ...good, fingerprint256: 'AB:'.repeat(31) + 'AB' }), pinned, 'h:1', now));
    expect(other.code).toBe('not_connected');
    expect(other.message).toBe(
      `the certificate of h:1 does not match the pin (pin): it is sha256:${'ab'.repeat(32)}, the pin is sha256:${HEX}. ` +
        'Nothing was sent. If the server made a new certificate, pin its mc-agent-server/control/fingerprint.txt; otherwise this is not the intended server',
    );
    expect(other.details).toEqual({ fingerprint: `sha256:${'ab'.repeat(32)}` });
    const expired = thrown(() => verifyPeer(peer(good), pinned, 'h:1', Date.parse(good.validTo) + 1));
    expect([expired.code, expired.message]).toEqual(['not_connected', 'the certificate of h:1 expired on 2027-01-01T00:00:00.000Z; nothing was sent. Have the server make a new one, then pin it']);
    const early = thrown(() => verifyPeer(peer(good), pinned, 'h:1', Date.parse(good.validFrom) - 1));
    expect([early.code, early.message]).toEqual(['not_connected', "the certificate of h:1 is not valid before 2026-01-01T00:00:00.000Z; check this machine's clock and the server's"]);
  });
});

describe('TLS failures in words', () => {
  const fail = (code: string | undefined, message = 'boom') => describeTlsFailure(Object.assign(new Error(message), code === undefined ? {} : { code }), 'h:1');

  it('name a port that is no control listener, by code or by message', () => {
    for (const [code, message] of [
      ['ERR_SSL_WRONG_VERSION_NUMBER', 'x'],
      [undefined, 'packet_length_too_long'],
      ['X', 'unknown_protocol here'],
      ['RECORD_LAYER_FAILURE', 'x'],
      ['X', 'http_request'],
      ['X', 'bad_record_mac'],
    ] as const) {
      expect(fail(code, message)).toBe(
        'h:1 did not answer with TLS: it is not a control listener (a Minecraft player port, or the legacy loopback port, does not answer control connections). ' +
          'Point `address` at the game port of a server started with mcagent.control=true',
      );
    }
  });

  it('name an expired certificate, a wrong name, an untrusted signer, and anything else', () => {
    expect(fail('CERT_HAS_EXPIRED')).toBe('the certificate of h:1 has expired; nothing was sent. Have the server make a new one');
    expect(fail('ERR_TLS_CERT_ALTNAME_INVALID', 'no alt name')).toBe(
      'the certificate of h:1 does not name that host (no alt name); set serverName to a name it carries, or pin the fingerprint instead',
    );
    for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_SIGNATURE_FAILURE', 'CERT_UNTRUSTED']) {
      expect(fail(code)).toBe(`the certificate of h:1 is not signed by the caFile (${code}); nothing was sent. Use the server's mc-agent-server/control/server.crt, or pin its fingerprint`);
    }
    expect(fail('self_signed')).toBe('cannot reach the control listener on h:1: boom');
    expect(fail('ECONNREFUSED', 'connect ECONNREFUSED')).toBe('cannot reach the control listener on h:1: connect ECONNREFUSED');
    expect(fail(undefined)).toBe('cannot reach the control listener on h:1: boom');
  });
});

/**
 * The simulated mod's control listener, handshake side: the certificate and its pin, welcome and
 * the other frames in the shapes of the mod's canonical fixture, refused credentials and
 * protocols, revocation mid-session. Real TLS sockets throughout.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { startSim } from '../../../../core/sim/index.js';
import { ControlTestClient, controlFixture, type Frame } from '../../../support/control-client.js';

const fixture = controlFixture();
const dirs: string[] = [];
const sim = fixture.sim;
const hello = fixture.hello;

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The field sets of the mod's canonical frames (protocol/fixtures/control-protocol-1.json in mc-agent-interface-mod). */
const FIXTURE_KEYS = {
  welcome: [
    'type',
    'protocol',
    'mod',
    'modVersion',
    'minecraft',
    'instanceId',
    'runId',
    'runStartedAtMillis',
    'sessionId',
    'transport',
    'serverTimeMillis',
    'permissions',
    'capabilities',
    'replay',
    'limits',
  ],
  replay: ['requestedSince', 'from', 'to', 'lost', 'bufferedEvents', 'persistedAcrossRuns'],
  limits: ['maxFrameBytes', 'maxPendingRequests', 'requestTimeoutMillis', 'idleSeconds', 'handshakeSeconds', 'eventBuffer', 'maxDroppedEvents', 'controlProtocol'],
  fatalError: ['type', 'code', 'message'],
  replyOk: ['type', 'ok', 'id', 'result', 'serverTimeMillis'],
  replyError: ['type', 'ok', 'id', 'error', 'serverTimeMillis'],
  error: ['code', 'message', 'retryable', 'resultUnknown'],
  writeResult: ['writeSeq', 'duplicate', 'requestId'],
  event: ['type', 'seq', 'runId', 'streamId', 'serverTimeMillis', 'event'],
  replayedEvent: ['type', 'seq', 'runId', 'streamId', 'replay', 'serverTimeMillis', 'event'],
  writeEvent: ['type', 'writeSeq', 'op', 'requestId', 'tokenId', 'ok', 'millis'],
  holder: ['key', 'holderTokenId', 'holderSessionId', 'holderLabel', 'acquiredAtMillis', 'expiresAtMillis', 'renewals'],
  status: ['requestId', 'operation', 'state', 'beganAtMillis', 'updatedAtMillis', 'result'],
};

const keys = (frame: Frame) => Object.keys(frame).sort();
const sorted = (list: string[]) => [...list].sort();

describe('the control certificate', () => {
  it('is EC P-256 for localhost, 127.0.0.1 and ::1, ten years, and fingerprint.txt pins the served leaf', async () => {
    const s = await sim();
    const control = s.control!;
    const pem = fs.readFileSync(control.certFile, 'utf8');
    const x509 = new crypto.X509Certificate(pem);
    expect(x509.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(x509.publicKey.asymmetricKeyDetails).toMatchObject({ namedCurve: 'prime256v1' });
    const years = (Date.parse(x509.validTo) - Date.parse(x509.validFrom)) / (365 * 24 * 3600 * 1000);
    expect(years).toBeGreaterThan(9.9);
    expect(fs.statSync(path.join(path.dirname(control.certFile), 'server.key')).mode & 0o777).toBe(0o600);

    const pin = fs.readFileSync(path.join(path.dirname(control.certFile), 'fingerprint.txt'), 'utf8');
    expect(pin).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    expect(pin.trim()).toBe(control.fingerprint);
    const { client } = await hello(s);
    expect(client.leafFingerprint()).toBe(control.fingerprint);
  });

  it('is kept across a restart and a new sim on the same dir, as is the instanceId; the runId is new each start', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-simctl-'));
    dirs.push(dir);
    const first = await sim({ dir, worldDisk: false });
    const { first: welcome1 } = await hello(first);
    const fingerprint = first.control!.fingerprint;
    await first.restart();
    const { first: welcome2 } = await hello(first);
    expect(first.control!.fingerprint).toBe(fingerprint);
    expect(welcome2.runId).not.toBe(welcome1.runId);
    expect(welcome2.instanceId).toBe(welcome1.instanceId);
    await first.stop();
    fixture.forgetSims();

    const second = await sim({ dir, worldDisk: false });
    expect(second.control!.fingerprint).toBe(fingerprint);
    // The bootstrap credential from the first start still works; no second one is issued.
    expect(second.control!.bootstrapToken).toBeNull();
    const { first: welcome3 } = await hello(second, { token: first.control!.bootstrapToken });
    expect(welcome3).toMatchObject({ type: 'welcome', instanceId: welcome1.instanceId });
  });

  it('serves a supplied PEM pair instead, and refuses TLS below 1.2', async () => {
    const donor = await sim();
    const dir = path.dirname(donor.control!.certFile);
    const s = await sim({ control: { certFile: path.join(dir, 'server.crt'), keyFile: path.join(dir, 'server.key') } });
    expect(s.control!.fingerprint).toBe(donor.control!.fingerprint);
    expect(fs.readFileSync(s.control!.certFile, 'utf8')).toBe(fs.readFileSync(donor.control!.certFile, 'utf8'));

    const old = tls.connect({ host: '127.0.0.1', port: s.control!.port, maxVersion: 'TLSv1.1', minVersion: 'TLSv1', rejectUnauthorized: false });
    const outcome = await new Promise<string>((resolve) => {
      old.once('secureConnect', () => resolve('connected'));
      old.once('error', (err) => resolve(String((err as NodeJS.ErrnoException).code)));
    });
    old.destroy();
    expect(outcome).not.toBe('connected');
  });

  it('without openssl on the PATH the sim does not start, and says to install it or pass a PEM pair', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(startSim({ autoTick: false, control: true })).rejects.toMatchObject({
        name: 'SimOptionsError',
        code: 'invalid_params',
        message: expect.stringMatching(/install openssl.*certFile, keyFile/),
      });
    } finally {
      process.env.PATH = saved;
    }
  });

  it('a PEM pair that does not belong together is an options error naming what to pass', async () => {
    const a = await sim();
    const b = await sim();
    const mixed = startSim({ autoTick: false, control: { certFile: a.control!.certFile, keyFile: path.join(path.dirname(b.control!.certFile), 'server.key') } });
    await expect(mixed).rejects.toMatchObject({ name: 'SimOptionsError', code: 'invalid_params', message: expect.stringContaining('control.keyFile') });
    await expect(startSim({ control: { certFile: a.control!.certFile } })).rejects.toThrow(/certFile and keyFile come together/);
  });
});

describe('the handshake', () => {
  it('welcome has exactly the fixture fields, the sim CAPS and the limits it was given', async () => {
    const s = await sim({ control: { maxFrameBytes: 4096, maxPendingRequests: 8, eventBuffer: 16, handshakeSeconds: 5, idleSeconds: 60 } });
    const { client, first } = await hello(s, { lastSeq: 0 });
    expect(keys(first)).toEqual(sorted(FIXTURE_KEYS.welcome));
    expect(keys(first.replay)).toEqual(sorted(FIXTURE_KEYS.replay));
    expect(keys(first.limits)).toEqual(sorted(FIXTURE_KEYS.limits));
    expect(first).toMatchObject({
      type: 'welcome',
      protocol: 1,
      mod: 'mc-agent-interface',
      modVersion: '0.8.0',
      transport: 'same-port-tls',
      permissions: ['read', 'write'],
      capabilities: [...s.capabilities],
      replay: { requestedSince: 0, from: 1, to: 1, lost: false, bufferedEvents: 1, persistedAcrossRuns: false },
      limits: { maxFrameBytes: 4096, maxPendingRequests: 8, requestTimeoutMillis: 30000, idleSeconds: 60, handshakeSeconds: 5, eventBuffer: 16, maxDroppedEvents: 4096, controlProtocol: 1 },
    });
    expect(first.instanceId).toMatch(/^inst_[0-9a-f]{16}$/);
    expect(first.runId).toMatch(/^run_[0-9a-f]{16}$/);
    expect(first.sessionId).toMatch(/^sess_[0-9a-f]{16}$/);
    // lastSeq 0 replays the whole ring: here the startup event, seq 1.
    const replayed = await client.next((f) => f.type === 'event');
    expect(keys(replayed)).toEqual(sorted(FIXTURE_KEYS.replayedEvent));
    expect(replayed).toMatchObject({ seq: 1, replay: true, runId: first.runId, streamId: first.runId, event: { type: 'hello', event: true } });
  });

  it('replies, errors and events have the fixture fields', async () => {
    const s = await sim();
    const { client } = await hello(s);
    const okReply = await client.request('command', { command: 'time set 6000' }, 'c1');
    expect(keys(okReply)).toEqual(sorted(FIXTURE_KEYS.replyOk));
    expect(okReply.result).toMatchObject({ type: 'cmd_ack', detail: 'time set 6000', output: ['Set the time to 6000'], writeSeq: 1, duplicate: false, requestId: 'c1' });
    const errorReply = await client.request('fork', {}, 'c2');
    expect(keys(errorReply)).toEqual(sorted(FIXTURE_KEYS.replyError));
    expect(keys(errorReply.error)).toEqual(sorted(FIXTURE_KEYS.error));
    const game = await client.next((f) => f.type === 'event' && f.event.type === 'game');
    expect(keys(game)).toEqual(sorted(FIXTURE_KEYS.event));
    expect(game.event).toEqual({ type: 'game', millis: expect.any(Number), text: 'Set the time to 6000', event: true });
    const write = await client.next((f) => f.type === 'event' && f.event.type === 'write');
    expect(keys(write.event)).toEqual(sorted(FIXTURE_KEYS.writeEvent));
    expect(write.event).toMatchObject({ writeSeq: 1, op: 'command', requestId: 'c1', tokenId: expect.stringMatching(/^tk_[0-9a-f]{12}$/), ok: true });
    expect(write.seq).toBe(game.seq + 1);
    const status = await client.request('request_status', { requestId: 'c1' });
    expect(keys(status.result)).toEqual(sorted(FIXTURE_KEYS.status));
    expect(status.result).toMatchObject({ requestId: 'c1', operation: 'command', state: 'completed', result: { writeSeq: 1 } });
  });

  it.each([
    ['an unknown token', { token: 'mca1.tk_000000000000.AD-CkgYXzqbii5UqaRwbT7etJQiHSKM-yCkybT6U' }, 'unauthorized', 'the access credential was rejected'],
    ['a malformed token', { token: 'hunter2' }, 'unauthorized', 'the access credential was rejected'],
    ['protocol 2', { protocol: 2 }, 'protocol_version', 'protocol 1'],
  ])('%s is a fatal error frame, then the connection closes', async (_what, fields, code, message) => {
    const s = await sim();
    const { client, first } = await hello(s, fields);
    expect(keys(first)).toEqual(sorted(FIXTURE_KEYS.fatalError));
    expect(first).toMatchObject({ type: 'error', code, message: expect.stringContaining(message) });
    await client.waitClosed();
    expect(s.control!.sessions).toBe(0);
  });

  it('a first frame that is not hello is fatal bad_request', async () => {
    const s = await sim();
    const client = await ControlTestClient.connect(s.control!.port, s.control!.certFile);
    fixture.track(client);
    client.send({ type: 'request', id: 'r1', op: 'state', params: {} });
    expect(await client.next(() => true)).toMatchObject({ type: 'error', code: 'bad_request' });
    await client.waitClosed();
  });

  it('plain text on the control port is dropped at the TLS layer; a second hello is fatal; the sim serves on', async () => {
    const s = await sim();
    const plain = net.connect({ host: '127.0.0.1', port: s.control!.port });
    plain.on('error', () => {});
    plain.write('PING\n');
    await new Promise((resolve) => plain.once('close', resolve));
    const { client, first } = await hello(s);
    expect(first.type).toBe('welcome');
    client.send({ type: 'hello', protocol: 1, token: s.control!.bootstrapToken });
    expect(await client.next((f) => f.type === 'error')).toMatchObject({ code: 'bad_request' });
    await client.waitClosed();
    expect((await hello(s)).first.type).toBe('welcome');
  });

  it('an expired credential is refused; a live one with a TTL works until then', async () => {
    const s = await sim();
    const { token } = s.control!.addToken('short', 'read', 60);
    const { first } = await hello(s, { token });
    expect(first).toMatchObject({ type: 'welcome', permissions: ['read'] });
    s.advanceClock(61_000);
    const { client, first: refused } = await hello(s, { token });
    expect(refused).toMatchObject({ type: 'error', code: 'unauthorized' });
    await client.waitClosed();
  });

  it('revoking a credential closes its live sessions only, and it no longer says hello', async () => {
    const s = await sim();
    const a = s.control!.addToken('daemon-a', 'read+write');
    const b = s.control!.addToken('daemon-b', 'read+write');
    const { client: clientA } = await hello(s, { token: a.token });
    const { client: clientB } = await hello(s, { token: b.token });
    expect(s.control!.sessions).toBe(2);
    expect(s.control!.revoke(a.id)).toBe(true);
    expect(await clientA.next((f) => f.type === 'error')).toMatchObject({ code: 'unauthorized' });
    await clientA.waitClosed();
    expect((await clientB.request('ping')).ok).toBe(true);
    expect(s.control!.sessions).toBe(1);
    expect((await hello(s, { token: a.token })).first).toMatchObject({ type: 'error', code: 'unauthorized' });
    expect(s.control!.revoke(a.id)).toBe(false);
  });

  it('a client that says nothing is closed after handshakeSeconds, an idle one after idleSeconds', async () => {
    const s = await sim({ control: { handshakeSeconds: 0.3, idleSeconds: 0.3 } });
    const silent = await ControlTestClient.connect(s.control!.port, s.control!.certFile);
    fixture.track(silent);
    expect(await silent.next(() => true)).toMatchObject({ type: 'error', code: 'timeout' });
    await silent.waitClosed();
    const { client, first } = await hello(s);
    expect(first.type).toBe('welcome');
    await client.waitClosed();
  });
});

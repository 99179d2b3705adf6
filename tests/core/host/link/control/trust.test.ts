/**
 * Trust and credentials of a control target (issue 26 items 1, 2 and 6), against the simulated
 * mod's TLS listener: each failure is a status that says what to do, and sends no request.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failure } from '../../../../support/errors.js';
import { startSim, type SimulatedMod } from '../../../../../core/sim/index.js';
import { startControlStack, type ControlStack } from '../../../../support/control.js';
import { waitUntil } from '../../../../support/wait-until.js';

const open: Array<ControlStack | SimulatedMod> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await ('close' in o ? o.close() : o.stop());
});

async function sim(options: Parameters<typeof startSim>[0] = {}): Promise<SimulatedMod> {
  const s = await startSim({ port: 0, control: true, ...options });
  open.push(s);
  return s;
}

async function stack(shared: SimulatedMod, link: NonNullable<Parameters<typeof startControlStack>[0]>['link'], waitConnected = true): Promise<ControlStack> {
  const s = await startControlStack({ sharedSim: shared, link, waitConnected });
  open.push(s);
  return s;
}

/** The link's last error once it has one (it keeps retrying, as it should). */
async function lastError(s: ControlStack): Promise<string> {
  await waitUntil(() => s.daemon.host.link.status().lastError !== null, 10_000, 'the link to report an error');
  return s.daemon.host.link.status().lastError!;
}

describe('trust', () => {
  it('a certificate that is not the pinned one: both fingerprints said, no session opened', async () => {
    const server = await sim();
    const s = await stack(server, { pin: `sha256:${'00'.repeat(32)}` }, false);
    expect(await lastError(s)).toMatch(/does not match the pin \(pin\): it is sha256:[0-9a-f]{64}, the pin is sha256:0{64}. Nothing was sent/);
    expect(server.control!.sessions).toBe(0);
    expect(s.daemon.host.link.connected).toBe(false);
  });

  it('a plain-text port (the legacy socket) is named as no control listener', async () => {
    const server = await sim();
    const s = await stack(server, { address: `127.0.0.1:${server.port}` }, false);
    expect(await lastError(s)).toMatch(/did not answer with TLS: it is not a control listener/);
  });

  it('the certificate as a CA file connects; a name it does not carry is refused', async () => {
    const server = await sim();
    const good = await stack(server, { pin: undefined, caFile: server.control!.certFile, serverName: 'localhost' });
    expect(good.daemon.host.link.connected).toBe(true);
    const wrongName = await stack(server, { pin: undefined, caFile: server.control!.certFile, serverName: 'mc.example.org' }, false);
    expect(await lastError(wrongName)).toMatch(/does not name that host/);
  });

  it('the pin read from the game folder, as the mod wrote it', async () => {
    const server = await sim();
    const s = await stack(server, { pin: undefined, serverDir: server.dir });
    expect((s.daemon.host.link.status().control as Record<string, unknown>).trust).toBe(`pin from ${server.dir}`);
  });

  it('a fingerprint file that names another certificate fails trust: no session opened', async () => {
    const server = await sim();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-wrong-pin-'));
    fs.mkdirSync(path.join(dir, 'mc-agent-server/control'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'mc-agent-server/control/fingerprint.txt'), `sha256:${'ab'.repeat(32)}\n`);
    const s = await stack(server, { pin: undefined, serverDir: dir }, false);
    expect(await lastError(s)).toMatch(new RegExp(`does not match the pin \\(.*\\): it is sha256:[0-9a-f]{64}, the pin is sha256:${'ab'.repeat(32)}`));
    expect(server.control!.sessions).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('an expired certificate is refused before anything is sent', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-expired-'));
    const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    run(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'k.pem', '-out', 'r.csr', '-subj', '/CN=localhost']);
    fs.mkdirSync(path.join(dir, 'ca/newcerts'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'ca/index.txt'), '');
    fs.writeFileSync(path.join(dir, 'ca/serial'), '01\n');
    fs.writeFileSync(
      path.join(dir, 'ca.cnf'),
      '[ca]\ndefault_ca=d\n[d]\ndir=./ca\ndatabase=./ca/index.txt\nnew_certs_dir=./ca/newcerts\nserial=./ca/serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n',
    );
    run(['ca', '-batch', '-config', 'ca.cnf', '-selfsign', '-keyfile', 'k.pem', '-in', 'r.csr', '-out', 'c.pem', '-startdate', '20200101000000Z', '-enddate', '20210101000000Z']);
    const server = await sim({ control: { certFile: path.join(dir, 'c.pem'), keyFile: path.join(dir, 'k.pem') } });
    const s = await stack(server, {}, false);
    expect(await lastError(s)).toMatch(/expired on 2021-01-01/);
    expect(server.control!.sessions).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('credentials', () => {
  it('a refused credential says to mint one; the token never shows', async () => {
    const server = await sim();
    const bogus = 'mca1.tk_000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const s = await stack(server, { token: bogus }, false);
    const error = await lastError(s);
    expect(error).toMatch(/refused the credential .*mint one on the server console/);
    expect(JSON.stringify(s.daemon.host.status())).not.toContain(bogus);
  });

  it('a credential revoked mid-session ends the session, and calls say the link is down', async () => {
    const server = await sim();
    const minted = server.control!.addToken('doomed', 'read+write');
    const s = await stack(server, { token: minted.token });
    expect(server.control!.revoke(minted.id)).toBe(true);
    await waitUntil(() => !s.daemon.host.link.connected, 5_000, 'the session to end');
    expect(await lastError(s)).toMatch(/unauthorized/);
    expect((await failure(s.client.call('state', {}))).code).toBe('not_connected');
  });

  it('a read-only credential hides the tools that change the game, with the reason; reads work', async () => {
    const server = await sim();
    const s = await stack(server, { token: server.control!.addToken('reader', 'read').token });
    const manifest = (await s.client.call('tools', {})) as { tools: Array<{ name: string; available: boolean; reason?: string }> };
    expect(manifest.tools.find((t) => t.name === 'command')).toMatchObject({ available: false, reason: expect.stringMatching(/needs the write permission.*credential has read/) });
    expect(manifest.tools.find((t) => t.name === 'state')?.available).toBe(true);
    const refused = await failure(s.client.call('mark', { text: 'x' }));
    expect(refused.message).toMatch(/write permission/);
    expect((await s.client.call('state', {})) as Record<string, unknown>).toMatchObject({ type: 'state' });
  });

  it('leases: a second credential gets conflict naming the holder; the holder renews and releases', async () => {
    const server = await sim();
    const a = await stack(server, { token: server.control!.addToken('daemon-a', 'read+write').token });
    const b = await stack(server, { token: server.control!.addToken('daemon-b', 'read+write').token });
    const lease = (await a.client.call('exclusive_acquire', { key: 'freeze', ttl_seconds: 60, label: 'daemon-a' })) as Record<string, unknown>;
    expect(lease).toMatchObject({ key: 'freeze', holderLabel: 'daemon-a' });
    const conflict = await failure(b.client.call('exclusive_acquire', { key: 'freeze', ttl_seconds: 60, label: 'daemon-b' }));
    expect(conflict.code).toBe('conflict');
    expect(conflict.details).toMatchObject({ server: { holder: { key: 'freeze', holderLabel: 'daemon-a' } } });
    expect((await a.client.call('exclusive_renew', { key: 'freeze', ttl_seconds: 120 })) as Record<string, unknown>).toMatchObject({ key: 'freeze' });
    await a.client.call('exclusive_release', { key: 'freeze' });
    expect((await b.client.call('exclusive_acquire', { key: 'freeze', ttl_seconds: 60, label: 'daemon-b' })) as Record<string, unknown>).toMatchObject({ holderLabel: 'daemon-b' });
    expect((await a.client.call('exclusive_status', { key: 'freeze' })) as Record<string, unknown>).toMatchObject({ held: true, lease: { holderLabel: 'daemon-b' } });
  });
});

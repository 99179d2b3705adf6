/**
 * `mcbridge targets --discover <dir>` (docs/targets.md, "Find servers"): the real CLI over a folder
 * of servers in every state: a running `mcbridge sim`, a stopped server's port file, listeners that
 * are not the mod (garbage, silence, a flood), bad port files, a symbolic link loop, one already
 * configured; no daemon, nothing written.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { waitUntil } from '../../../support/helpers.js';

const processes = new CliProcesses();
const servers: net.Server[] = [];
let root: string;
let simPort: number;
let stalePort: number;
const ports: Record<string, number> = {};

function listen(onConnection: (socket: net.Socket) => void): Promise<number> {
  // The CLI hangs up on these listeners mid-write (a flood, a greeting it refuses): the reset it
  // causes is expected, and unheard it would be an uncaught error in this test process.
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

/** A port nothing listens on: one the system gave out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function server(dir: string, portText: string | Buffer): void {
  fs.mkdirSync(path.join(root, dir, 'mc-agent-server'), { recursive: true });
  fs.writeFileSync(path.join(root, dir, 'mc-agent-server', 'port.txt'), portText);
}

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-discover-')));
  const { child, out } = processes.start(['sim', '--dir', path.join(root, 'servers', 'live'), '--port', '0']);
  await waitUntil(() => out.stdout.includes('\n') || child.exitCode !== null, 20_000, 'the sim to print its ready line');
  simPort = (JSON.parse(out.stdout.split('\n')[0]!) as { port: number }).port;

  stalePort = await closedPort();
  server('servers/old', String(stalePort));
  fs.mkdirSync(path.join(root, 'servers/old/mc-agent-server/control'));
  fs.writeFileSync(path.join(root, 'servers/old/mc-agent-server/control/fingerprint.txt'), 'sha256:00');
  ports.garbage = await listen((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  ports.silent = await listen(() => undefined);
  ports.flood = await listen((s) => s.write(Buffer.alloc(64 * 1024, 'x'), () => undefined));
  ports.events = await listen((s) => s.write('{"event":true,"type":"chat"}\n{"type":"status","mod":"other"}\n'));
  for (const name of ['garbage', 'silent', 'flood', 'events']) server(`servers/${name}`, String(ports[name]));
  server('servers/huge', Buffer.alloc(100, '1'));
  server('servers/range', '70000');
  server('servers/Prod Box!', '25599\n');
  // Configured, and a folder of the same name elsewhere: that one must not take its name.
  server('servers/prod', String(stalePort));
  server('other/prod', String(stalePort));
  // At depth 4 it is found; below, it is counted, not read.
  server('a/b/c/d', String(stalePort));
  server('a/b/c/d/e', String(stalePort));
  fs.symlinkSync(root, path.join(root, 'servers', 'loop'));
  fs.writeFileSync(path.join(root, 'mcbridge.config.json'), JSON.stringify({ targets: { prod: { serverDir: 'servers/prod' } } }));
}, 60_000);

afterAll(async () => {
  await processes.stopAll();
  for (const s of servers) s.close();
  fs.rmSync(root, { recursive: true, force: true });
});

interface Found {
  name: string;
  dir: string;
  port: number | null;
  state: string;
  reason: string | null;
  hello?: Record<string, unknown>;
  control: boolean;
  configured: string | null;
  snippet: string | null;
}

describe('mcbridge targets --discover', { timeout: 60_000 }, () => {
  it('finds every server, probes each, and marks the configured one (--json)', async () => {
    const before = fs.readFileSync(path.join(root, 'mcbridge.config.json'), 'utf8');
    const run = await runCli(['targets', '--discover', '.', '--json'], { cwd: root });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as { dir: string; config: string; servers: Found[]; count: number; walked: Record<string, unknown>; configError?: string };
    expect(answer.dir).toBe(root);
    expect(answer.config).toBe(path.join(root, 'mcbridge.config.json'));
    expect(answer.configError).toBeUndefined();
    const by = Object.fromEntries(answer.servers.map((s) => [path.relative(root, s.dir), s]));
    expect(Object.keys(by).sort()).toEqual(
      [
        'a/b/c/d',
        'other/prod',
        'servers/Prod Box!',
        'servers/events',
        'servers/flood',
        'servers/garbage',
        'servers/huge',
        'servers/live',
        'servers/old',
        'servers/prod',
        'servers/range',
        'servers/silent',
      ].sort(),
    );
    expect(answer.count).toBe(12);

    expect(by['servers/live']).toMatchObject({
      name: 'live',
      state: 'live',
      port: simPort,
      reason: null,
      hello: { version: expect.any(String), instance: 'server', protocol: 1 },
      control: false,
      configured: null,
    });
    expect(by['servers/live']!.snippet).toBe('{ "live": { "serverDir": "servers/live" } }');
    expect(by['servers/old']).toMatchObject({ state: 'stale', port: stalePort, control: true, reason: expect.stringMatching(/nothing listens/) });
    expect(by['servers/garbage']).toMatchObject({ state: 'not-a-mod', reason: expect.stringMatching(/not JSON: "HTTP\/1.1 400/) });
    expect(by['servers/silent']).toMatchObject({ state: 'not-a-mod', reason: expect.stringMatching(/accepts connections but sent no greeting within 1.5 s/) });
    expect(by['servers/flood']).toMatchObject({ state: 'not-a-mod', reason: expect.stringMatching(/over 16 KiB without a greeting/) });
    expect(by['servers/events']).toMatchObject({ state: 'not-a-mod', reason: expect.stringMatching(/first message is not the mod's greeting \(type "status", mod "other"\)/) });
    expect(by['servers/huge']).toMatchObject({ state: 'bad-port-file', port: null, reason: expect.stringMatching(/100 bytes, over the 64/) });
    expect(by['servers/range']).toMatchObject({ state: 'bad-port-file', reason: expect.stringMatching(/70000, which is not a valid TCP port/) });
    // Configured: its own name, no snippet; the other `prod` folder steps aside.
    expect(by['servers/prod']).toMatchObject({ name: 'prod', configured: 'prod', snippet: null });
    expect(by['other/prod']).toMatchObject({ name: 'prod-2', configured: null, snippet: '{ "prod-2": { "serverDir": "other/prod" } }' });
    expect(by['servers/Prod Box!']).toMatchObject({ name: 'Prod-Box-', state: 'stale' });
    expect(answer.walked).toMatchObject({ symlinks: 1, unreadable: 0, truncated: false });
    expect(answer.walked.tooDeep).toBeGreaterThanOrEqual(1); // a/b/c/d/e, not read (and not in the list above)
    expect(fs.readFileSync(path.join(root, 'mcbridge.config.json'), 'utf8')).toBe(before);
  });

  it('prints a table with a footer of what it walked and that nothing was added', async () => {
    const run = await runCli(['targets', '--discover', 'servers'], { cwd: root });
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+PORT\s+DIR\s+DETAIL\s+CONFIG$/);
    expect(lines.find((l) => l.startsWith('live '))).toMatch(
      new RegExp(`^live\\s+live\\s+${simPort}\\s+servers/live\\s+mod \\S+, server, protocol 1\\s+\\{ "live": \\{ "serverDir": "servers/live" \\} \\}$`),
    );
    expect(lines.find((l) => l.startsWith('prod '))).toMatch(/stale.*configured as 'prod'$/);
    expect(lines.find((l) => l.startsWith('old '))).toMatch(/stale.*; control listener/);
    expect(run.stdout).toMatch(/looked at \d+ folders, \d+ entries; skipped 1 symbolic link \(never followed\)/);
    expect(run.stdout).toContain('nothing was added: to reach a new one, put its CONFIG entry into `targets` in ' + path.join(root, 'mcbridge.config.json'));
  });

  it('still discovers when the config fails to load, and marks nothing', async () => {
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-discover-broken-'));
    try {
      fs.writeFileSync(path.join(broken, 'mcbridge.config.json'), JSON.stringify({ targets: 5 }));
      const run = await runCli(['targets', '--discover', path.join(root, 'servers'), '--json'], { cwd: broken });
      expect(run.code).toBe(0);
      const answer = JSON.parse(run.stdout) as { configError?: string; servers: Found[] };
      expect(answer.configError).toMatch(/targets/);
      expect(answer.servers.find((s) => s.dir.endsWith('servers/prod'))).toMatchObject({ configured: null, name: 'prod' });
      expect(answer.servers.every((s) => s.configured === null)).toBe(true);
      const text = await runCli(['targets', '--discover', path.join(root, 'servers')], { cwd: broken });
      expect(text.stdout).toMatch(/^the config did not load, so nothing is marked as configured: /);
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
  });

  it('stops at the entry limit and says so; refuses what is not a folder', async () => {
    const wide = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-discover-wide-'));
    try {
      for (let i = 0; i < 10_050; i++) fs.writeFileSync(path.join(wide, `f${i}`), '');
      const run = await runCli(['targets', '--discover', wide, '--json'], { cwd: wide });
      expect((JSON.parse(run.stdout) as { walked: Record<string, unknown> }).walked).toMatchObject({ entries: 10_000, truncated: true });
      const text = await runCli(['targets', '--discover', wide], { cwd: wide });
      expect(text.stdout).toContain('no servers under');
      expect(text.stdout).toContain('stopped at 10000 entries');
      const refused = await runCli(['targets', '--discover', path.join(wide, 'f1')], { cwd: wide });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/is not a folder/);
    } finally {
      fs.rmSync(wide, { recursive: true, force: true });
    }
  });
});

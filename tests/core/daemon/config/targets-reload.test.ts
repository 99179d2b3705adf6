import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../../core/api/client.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { startDaemonProcess } from '../../../faults/support.js';
import { waitUntil } from '../../../support/wait-until.js';

const processes = new CliProcesses();
const dirs: string[] = [];
afterEach(() => {
  processes.stopAll();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function configWith(dir: string, targets: string): string {
  const file = path.join(dir, 'mcbridge.config.mjs');
  fs.writeFileSync(file, `export default { targets: ${targets} };\n`);
  return file;
}

interface Listed {
  targets: Array<{ name: string; connected: boolean; default: boolean; mod: { port: number } }>;
  default: string | null;
}

describe('targets in a config file, reloaded while running', () => {
  it('a reload adds a target and removes another; the one kept keeps its link and its events', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-targets-reload-'));
    dirs.push(dir);
    const file = configWith(dir, `{ a: { sim: true, default: true }, b: { sim: true } }`);
    const daemon = await startDaemonProcess(processes, ['--no-watch'], undefined, file);
    const client = await ApiClient.connect({ port: daemon.port });
    try {
      const listed = async () => (await client.call('targets', {})) as Listed;
      await waitForConnected(listed, ['a', 'b']);
      const before = await listed();
      const aPort = before.targets.find((t) => t.name === 'a')!.mod.port;
      await client.call('mark', { text: 'kept', target: 'a' });
      const aEvents = (await client.call('events', { target: 'a', category: 'mark' })) as { events: Array<{ text: string }>; next: number };
      expect(aEvents.events.map((e) => e.text)).toEqual(['kept']);

      configWith(dir, `{ a: { sim: true }, c: { sim: true, default: true } }`);
      process.kill(daemon.pid, 'SIGHUP');
      await waitForConnected(listed, ['a', 'c']);
      const after = await listed();
      expect(after.targets.map((t) => t.name)).toEqual(['a', 'c']);
      expect(after.default).toBe('c');
      // `a` was not touched: the same simulated mod, its event log going on from where it was.
      expect(after.targets.find((t) => t.name === 'a')!.mod.port).toBe(aPort);
      const again = (await client.call('events', { target: 'a', since: aEvents.next - 1, category: 'mark' })) as { events: Array<{ text: string }>; streamReset?: boolean };
      expect(again.events.map((e) => e.text)).toEqual(['kept']);
      expect(again.streamReset).toBeUndefined();
      const gone = await client.call('state', { target: 'b' }).catch((err: { code: string }) => err.code);
      expect(gone).toBe('target_unknown');
      await expect(client.call('state', {})).resolves.toBeTruthy();
    } finally {
      client.close();
    }
  }, 60_000);

  it('subscriptions follow a reload: a re-created target keeps its subscribers, `*` takes a target added later, and each change is said', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-targets-follow-'));
    dirs.push(dir);
    const file = configWith(dir, `{ a: { sim: true, default: true }, b: { sim: { seed: 1 } } }`);
    const daemon = await startDaemonProcess(processes, ['--no-watch'], undefined, file);
    const every = await ApiClient.connect({ port: daemon.port });
    const onlyB = await ApiClient.connect({ port: daemon.port });
    try {
      const listed = async () => (await every.call('targets', {})) as Listed;
      await waitForConnected(listed, ['a', 'b']);
      const seen = { every: [] as Array<{ event: string; data: Record<string, unknown> }>, onlyB: [] as Array<{ event: string; data: Record<string, unknown> }> };
      every.on('event', (frame: { event: string; data: Record<string, unknown> }) => seen.every.push(frame));
      onlyB.on('event', (frame: { event: string; data: Record<string, unknown> }) => seen.onlyB.push(frame));
      await every.call('subscribe', { events: ['mark'], target: '*' });
      await onlyB.call('subscribe', { events: ['mark'], target: 'b' });

      // b changes (so it is re-created), c is new.
      configWith(dir, `{ a: { sim: true, default: true }, b: { sim: { seed: 2 } }, c: { sim: true } }`);
      process.kill(daemon.pid, 'SIGHUP');
      await waitForConnected(listed, ['a', 'b', 'c']);
      await every.call('mark', { text: 'on b', target: 'b' });
      await every.call('mark', { text: 'on c', target: 'c' });
      const marks = (frames: typeof seen.every) => frames.filter((f) => f.data.type === 'mark').map((f) => [f.data.target, f.data.text]);
      const changes = (frames: typeof seen.every) => frames.filter((f) => f.event === 'target').map((f) => [f.data.type, f.data.target, f.data.subscribed]);
      await waitUntil(() => marks(seen.every).length === 2 && marks(seen.onlyB).length === 1, 5_000, 'the marks after the reload');
      expect(marks(seen.every)).toEqual([
        ['b', 'on b'],
        ['c', 'on c'],
      ]);
      expect(marks(seen.onlyB)).toEqual([['b', 'on b']]);
      expect(changes(seen.every)).toEqual([
        ['target_removed', 'b', []],
        ['target_added', 'b', ['mark']],
        ['target_added', 'c', ['mark']],
      ]);
      expect(changes(seen.onlyB)).toEqual([
        ['target_removed', 'b', []],
        ['target_added', 'b', ['mark']],
      ]);
      const added = seen.onlyB.find((f) => f.data.type === 'target_added')!;
      expect(added.data.streamId).toBe(((await every.call('events', { target: 'b', limit: 1 })) as { streamId: string }).streamId);
    } finally {
      every.close();
      onlyB.close();
    }
  }, 60_000);

  it('a reload that leaves no default answers a call without target with target_required, naming the targets', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-targets-nodefault-'));
    dirs.push(dir);
    const file = configWith(dir, `{ a: { sim: true, default: true }, b: { sim: true } }`);
    const daemon = await startDaemonProcess(processes, ['--no-watch'], undefined, file);
    const client = await ApiClient.connect({ port: daemon.port });
    try {
      const listed = async () => (await client.call('targets', {})) as Listed;
      await waitForConnected(listed, ['a', 'b']);
      await expect(client.call('state', {})).resolves.toMatchObject({ type: 'state' });
      configWith(dir, `{ a: { sim: true }, b: { sim: true } }`);
      process.kill(daemon.pid, 'SIGHUP');
      for (const deadline = Date.now() + 15_000; (await listed()).default !== null; ) {
        if (Date.now() > deadline) throw new Error('the default never went');
        await new Promise((r) => setTimeout(r, 50));
      }
      const err = await client.call('state', {}).catch((e: { code: string; message: string }) => e);
      expect(err).toMatchObject({ code: 'target_required' });
      expect((err as { message: string }).message).toMatch(/a, b/);
      await expect(client.call('state', { target: 'b' })).resolves.toMatchObject({ type: 'state' });
    } finally {
      client.close();
    }
  }, 60_000);

  it('`mcbridge config` prints each target as the daemon builds it, paths resolved from the config', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-targets-config-'));
    dirs.push(dir);
    const file = configWith(dir, `{ live: { serverDir: 'srv/live', reconnectDelay: 2 }, lab: { sim: { seed: 7 }, default: true } }`);
    const run = await runCli(['config', '--config', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).targets).toEqual([
      { name: 'live', default: false, link: { serverDir: path.join(dir, 'srv', 'live'), reconnectMinMs: 2000, reconnectMaxMs: 2000 }, sim: false },
      { name: 'lab', default: true, link: {}, sim: { seed: 7 } },
    ]);
  });

  it('refuses a config whose targets are unusable, naming the problem', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-targets-bad-'));
    dirs.push(dir);
    const cases: Array<[string, RegExp]> = [
      [`{ 'has space': { sim: true } }`, /'has space' is not a target name/],
      [`{ a: {} }`, /says nowhere to find its game/],
      [`{ a: { sim: true, default: true }, b: { sim: true, default: true } }`, /marks a and b as default/],
      [`{}`, /lists no target/],
    ];
    for (const [targets, message] of cases) {
      const file = configWith(dir, targets);
      const run = await runCli(['run', '--config', file, '--api-port', '0']);
      expect(run.code, targets).toBe(1);
      expect(run.stderr, targets).toMatch(message);
    }
    fs.writeFileSync(path.join(dir, 'mcbridge.config.mjs'), `export default { serverDir: 'x', targets: { a: { sim: true } } };\n`);
    const ambiguous = await runCli(['run', '--config', path.join(dir, 'mcbridge.config.mjs'), '--api-port', '0']);
    expect(ambiguous.stderr).toMatch(/serverDir.*beside "targets" it would be ambiguous/);
  }, 60_000);
});

async function waitForConnected(listed: () => Promise<Listed>, names: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const now = await listed();
    if (JSON.stringify(now.targets.map((t) => t.name)) === JSON.stringify(names) && now.targets.every((t) => t.connected)) return;
    if (Date.now() > deadline) throw new Error(`targets never became ${names.join(', ')} and connected: ${JSON.stringify(now)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CliProcesses, runCli as run } from '../../../support/cli-process.js';
import { freePort, waitUntil } from '../../../support/helpers.js';

const processes = new CliProcesses();
afterEach(() => processes.stopAll());
/** The daemon the tests share (one start instead of one per test: a start is most of a test's time). */
const shared = new CliProcesses();
afterAll(() => shared.stopAll());

/** Start a long-running mcbridge process and collect its output as it comes. */
function start(args: string[], cwd?: string) {
  return processes.start(args, { cwd });
}

async function startDaemon(args: string[], cwd?: string, owner = processes) {
  const apiPort = await freePort();
  const daemon = owner.start(['run', '--api-port', String(apiPort), ...args], { cwd });
  await waitUntil(() => /"msg":"connected to server mod/.test(daemon.out.stderr), 30_000, 'the daemon to connect');
  return { ...daemon, apiPort };
}

// Each test spawns several node processes; on two loaded cores that takes a while.
describe('mcbridge CLI', { timeout: 90_000 }, () => {
  /** `run --sim` for the tests that need a daemon, whatever it has seen before; the last test stops it. */
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  beforeAll(async () => {
    daemon = await startDaemon(['--sim', '--push-buffer', '3'], undefined, shared);
  }, 60_000);

  it('run --sim serves every host method through `call`, with logs on stderr only', async () => {
    const { apiPort, out } = daemon;
    const call = (method: string, params?: string) => run(['call', method, ...(params ? [params] : []), '--api-port', String(apiPort)]);

    const status = await call('status');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ connected: true, vantage: 'server', api: { pushBufferBytes: 3 * 1024 * 1024 } });
    expect(status.stderr).toBe('');

    for (const [method, params, type] of [
      ['capabilities', undefined, 'capabilities'],
      ['state', undefined, 'state'],
      ['entities', '{"radius": 8}', 'entities'],
      ['command', '{"command": "time query daytime"}', 'cmd_ack'],
      ['mark', '{"text": "cli mark"}', 'mark_ack'],
      ['wait', '{"ticks": 1}', 'wait_ack'],
    ] as const) {
      const result = await call(method, params);
      expect(result.code, `${method}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout).type).toBe(type);
    }
    const events = await call('events', '{"since": 0, "category": "mark"}');
    expect(JSON.parse(events.stdout).events.map((e: { text: string }) => e.text)).toContain('cli mark');

    // The daemon's stdout carries no logs.
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/"level":30/);
  });

  it('exit codes: 1 when the operation fails, 2 for usage errors, 3 when no daemon answers', async () => {
    const { apiPort } = daemon;
    const unknown = await run(['call', 'frobnicate', '--api-port', String(apiPort)]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/unknown method 'frobnicate'.*\[unknown_method\]/);

    const invalid = await run(['call', 'entities', '{"radius": -1}', '--api-port', String(apiPort)]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/'radius'.*\[invalid_params\]/);

    const badJson = await run(['call', 'state', '{not json', '--api-port', String(apiPort)]);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/params must be a JSON object/);

    const badFlag = await run(['call', 'state', '--no-such-flag']);
    expect(badFlag.code).toBe(2);

    const badPushBuffer = await run(['run', '--sim', '--push-buffer', '0']);
    expect(badPushBuffer.code).toBe(2);
    expect(badPushBuffer.stderr).toMatch(/push-buffer/);

    const nobody = await run(['call', 'status', '--api-port', String(await freePort())]);
    expect(nobody.code).toBe(3);
    expect(nobody.stderr).toMatch(/no mcbridge daemon on 127\.0\.0\.1:\d+.*mcbridge run/);
  });

  it('accepts --api-port before or after the subcommand', async () => {
    const { apiPort } = daemon;
    const before = await run(['--api-port', String(apiPort), 'call', 'ping']);
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ pong: true });
  });

  it('watch --frames prints one event frame per line, replaying with --since', async () => {
    const { apiPort } = daemon;
    // The shared daemon has seen other marks: replay from the last seq before this test's.
    const before = JSON.parse((await run(['call', 'events', '{"limit": 1}', '--api-port', String(apiPort)])).stdout) as { next: number };
    await run(['call', 'mark', '{"text": "before watch"}', '--api-port', String(apiPort)]);
    const watch = start(['watch', '--events', 'mark', '--since', String(before.next), '--frames', '--api-port', String(apiPort)]);
    await waitUntil(() => watch.out.stdout.includes('before watch'), 5_000, 'the replayed mark');
    await run(['call', 'mark', '{"text": "during watch"}', '--api-port', String(apiPort)]);
    await waitUntil(() => watch.out.stdout.includes('during watch'), 5_000, 'the pushed mark');
    const frames = watch.out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(frames.map((f) => f.data.text)).toEqual(['before watch', 'during watch']);
    expect(frames.every((f) => f.type === 'event' && f.event === 'mark')).toBe(true);
  });

  it('watch says on stderr which categories the daemon ignored, and follows the rest', async () => {
    const { apiPort } = daemon;
    const watch = start(['watch', '--events', 'mark,chatt', '--frames', '--api-port', String(apiPort)]);
    await waitUntil(() => watch.out.stderr.includes('chatt'), 10_000, 'the warning about the unknown category');
    expect(watch.out.stderr).toMatch(/^mcbridge watch: ignored unknown category 'chatt'; known: .*chat/m);
    await run(['call', 'mark', '{"text": "still followed"}', '--api-port', String(apiPort)]);
    await waitUntil(() => watch.out.stdout.includes('still followed'), 10_000, 'the pushed mark');
  });

  it('discover prints the resolution without starting anything', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'mcbridge-cli-'));
    const none = await run(['discover'], { cwd: empty, env: { MC_AGENT_PORT_FILE: '', MC_AGENT_SERVER_DIR: '' } });
    expect(none.code).toBe(1);
    const resolution = JSON.parse(none.stdout);
    expect(resolution).toMatchObject({ vantage: 'server', port: null, source: 'unresolved', resolved: false });
    expect(resolution.error).toMatch(/--server-dir/);

    const explicit = await run(['discover', '--mod-port', '25590']);
    expect(explicit.code).toBe(0);
    expect(JSON.parse(explicit.stdout)).toMatchObject({ port: 25590, source: 'argument', resolved: true });
  });

  it('a separately started `mcbridge sim` is found by a daemon started in the same directory', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcbridge-cli-'));
    const sim = start(['sim', '--port', '0'], dir);
    await waitUntil(() => sim.out.stdout.includes('"port"'), 30_000, 'the sim to start');
    const info = JSON.parse(sim.out.stdout.trim().split('\n')[0]!);
    expect(readFileSync(path.join(dir, 'mc-agent-server', 'port.txt'), 'utf8')).toBe(String(info.port));

    const { apiPort } = await startDaemon([], dir);
    const state = await run(['call', 'state', '--api-port', String(apiPort)]);
    expect(state.code).toBe(0);
    expect(JSON.parse(state.stdout)).toMatchObject({ type: 'state', instance: 'server' });
    const tools = await run(['tools', '--api-port', String(apiPort)]);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(/available\s+state/);
  });

  it('tools explains hidden tools on the client vantage', async () => {
    const apiPort = await freePort();
    const daemon = start(['run', '--sim', '--vantage', 'client', '--api-port', String(apiPort)]);
    await waitUntil(() => /connected to client mod/.test(daemon.out.stderr), 30_000, 'the daemon to connect');
    const tools = await run(['tools', '--json', '--api-port', String(apiPort)]);
    const manifest = JSON.parse(tools.stdout);
    expect(manifest.vantage).toBe('client');
    expect(manifest.tools.find((t: { name: string }) => t.name === 'state').available).toBe(true);
  });

  it('run stops cleanly on SIGTERM', async () => {
    const { child } = daemon;
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(0);
  });
});

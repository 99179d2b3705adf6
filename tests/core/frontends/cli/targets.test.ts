/**
 * The CLI against a daemon process of two simulated targets, `live` and `lab`, neither the
 * default (docs/cli.md, "Several game servers"): --target and MCBRIDGE_TARGET route every call,
 * target_required and target_unknown exit 2, `mcbridge targets` lists them, watch follows several.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../../core/api/client.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { project, removeProjects } from '../../../support/config-project.js';
import { allTargetsConnected, startDaemonProcess, type DaemonProcess } from '../../../support/daemon-process.js';
import { waitUntil } from '../../../support/helpers.js';

const processes = new CliProcesses();
let daemon: DaemonProcess;
let api: ApiClient;
const env = { MCBRIDGE_TARGET: '' };
const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(['--api-port', String(daemon.port), ...args], { env: { ...env, ...extra } });

beforeAll(async () => {
  const dir = project({ install: false });
  const config = dir.write('mcbridge.config.json', JSON.stringify({ targets: { live: { sim: true }, lab: { sim: true } } }));
  daemon = await startDaemonProcess(processes, [], env, config);
  api = await ApiClient.connect({ port: daemon.port });
  await allTargetsConnected(api);
}, 60_000);
afterAll(async () => {
  api?.close();
  await processes.stopAll();
  removeProjects();
});

/** The texts of the marks recorded on one target. */
async function marks(target: string): Promise<string[]> {
  const page = (await api.call('events', { target, since: 0, category: 'mark' })) as { events: Array<{ text: string }> };
  return page.events.map((e) => e.text);
}

describe('the CLI on a daemon of two targets', { timeout: 60_000 }, () => {
  it('exits 2 when a call names no target and none is the default, and for an unknown one, naming the known ones', async () => {
    const none = await cli(['call', 'state']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/\[target_required\]/);
    const unknown = await cli(['--target', 'staging', 'call', 'state']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/live, lab \[target_unknown\]/);
    const badEnv = await cli(['call', 'state'], { MCBRIDGE_TARGET: 'no/slash' });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toMatch(/MCBRIDGE_TARGET/);
    const several = await cli(['--target', 'live,lab', 'call', 'state']);
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(/one target/);
  });

  it('routes by --target, then MCBRIDGE_TARGET; a target in the params wins over both', async () => {
    expect((await cli(['--target', 'live', 'call', 'mark', '{"text":"flag"}'])).code).toBe(0);
    expect((await cli(['call', 'mark', '{"text":"env"}'], { MCBRIDGE_TARGET: 'lab' })).code).toBe(0);
    expect((await cli(['call', 'mark', '{"text":"flag wins"}', '--target=live'], { MCBRIDGE_TARGET: 'lab' })).code).toBe(0);
    expect((await cli(['--target', 'live', 'call', 'mark', '{"text":"params win","target":"lab"}'])).code).toBe(0);
    expect(await marks('live')).toEqual(['flag', 'flag wins']);
    expect(await marks('lab')).toEqual(['env', 'params win']);
  });

  it('mcbridge targets: a row per target for a person, the API answer with --json', async () => {
    const json = await cli(['targets', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(await api.call('targets', {}));
    const table = await cli(['targets']);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^TARGET\s+DEFAULT\s+CONNECTED\s+VANTAGE\s+CAPS\s+HIDDEN\s+WHERE$/);
    expect(lines[1]).toMatch(/^live\s+yes\s+server\s+\d+\s+\d+\s+mod 127\.0\.0\.1:\d+/);
    expect(lines[2]).toMatch(/^lab\s+yes\s+server/);
    expect(table.stdout).toMatch(/no target is the default: name one with --target/);
  });

  it('status checks every link and reads the named target; tools says which targets there are', async () => {
    const status = await cli(['status', '--target', 'lab']);
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toMatch(/ok\s+targets\s+2 targets: live connected, lab connected; the checks below are lab's/);
    // No target and no default: status still answers, through the first target.
    expect((await cli(['status'])).code).toBe(0);
    const tools = await cli(['tools']);
    expect(tools.stdout.split('\n')[0]).toMatch(/targets live, lab$/);
  });

  it('watch --target "*" --since 0 prints both targets’ events once each; --target live only live’s', async () => {
    await api.call('mark', { text: 'watched live', target: 'live' });
    await api.call('mark', { text: 'watched lab', target: 'lab' });
    const all = processes.start(['--api-port', String(daemon.port), 'watch', '--target', '*', '--since', '0', '--events', 'mark'], { env });
    const one = processes.start(['--api-port', String(daemon.port), 'watch', '--target', 'live', '--since', '0', '--events', 'mark'], { env });
    const texts = (out: string) =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { target: string; text: string });
    await waitUntil(() => texts(all.out.stdout).some((e) => e.text === 'watched lab') && texts(one.out.stdout).some((e) => e.text === 'watched live'), 10_000, 'the replays');
    // A push after the replay: each watcher sees it once, or not at all if not its target.
    await api.call('mark', { text: 'pushed lab', target: 'lab' });
    await waitUntil(() => texts(all.out.stdout).some((e) => e.text === 'pushed lab'), 10_000, 'the push');
    await api.call('mark', { text: 'pushed live', target: 'live' });
    await waitUntil(() => [one, all].every((w) => texts(w.out.stdout).some((e) => e.text === 'pushed live')), 10_000, 'the push to live');
    const seen = texts(all.out.stdout).map((e) => `${e.target}:${e.text}`);
    expect(seen.filter((s) => s.startsWith('live:'))).toEqual(['live:flag', 'live:flag wins', 'live:watched live', 'live:pushed live']);
    expect(seen.filter((s) => s.startsWith('lab:'))).toEqual(['lab:env', 'lab:params win', 'lab:watched lab', 'lab:pushed lab']);
    expect(new Set(seen).size).toBe(seen.length);
    expect(texts(one.out.stdout).map((e) => e.target)).toEqual(['live', 'live', 'live', 'live']);
  });
});

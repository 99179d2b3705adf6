/** The `webhook` entry of mcbridge.config.ts: receivers named by variable or file, checked with the plugin's schema. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestHost, type TestHost } from '../../../core/testing/index.js';
import { runCli } from '../../support/cli-process.js';
import { project, removeProjects } from '../../support/config-project.js';
import { startReceiver } from './test-receiver.js';

const SECRET = 'whsec-config-entry-secret';
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const x of open.splice(0).reverse()) await x.close();
  removeProjects();
});

describe('the webhook entry of the config', () => {
  it('runs its receivers (files relative to the config) over MC_AGENT_WEBHOOK_*; a saved change waits for a restart', async () => {
    const server = await startReceiver(SECRET);
    open.push(server);
    const p = project({ install: false });
    p.write('secrets/hook', `${SECRET}\n`);
    vi.stubEnv('ENTRY_HOOK_URL', server.url('/entry/s3cr3t-path'));
    vi.stubEnv('MC_AGENT_WEBHOOK_URL', 'http://127.0.0.1:9/not-this-one');
    vi.stubEnv('MC_AGENT_WEBHOOK_SECRET', 'not-this-secret');
    const entry = (events: string[]) => JSON.stringify({ webhook: { receivers: [{ urlEnv: 'ENTRY_HOOK_URL', secretFile: 'secrets/hook', events, queueSize: 7 }] } });
    const file = p.write('mcbridge.config.json', entry(['chat']));
    const t: TestHost = await startTestHost({ config: file, sim: { autoTick: false } });
    open.push(t);
    t.sim.chat('Steve', 'via the config');
    await server.hitsReached(1);
    expect(server.hits[0]).toMatchObject({ verified: true, path: '/entry/s3cr3t-path', json: { event: 'chat' } });
    expect(await t.call('webhook_status')).toMatchObject({ enabled: true, receivers: [{ url: `http://127.0.0.1:${server.port}`, events: ['chat'], queueSize: 7 }] });

    p.write('mcbridge.config.json', entry(['mark']));
    expect(await t.reload()).toMatchObject({ ok: true });
    expect((await t.call('webhook_status')).receivers[0].events).toEqual(['chat']);
  });

  it('refuses a URL or secret written into the config, naming the key to use instead and quoting nothing', async () => {
    const p = project({ install: false });
    const file = p.write('mcbridge.config.json', JSON.stringify({ webhook: { receivers: [{ url: 'https://user:pw@hooks.example.com/h/abc?token=qq', secret: 'hunter22' }] } }));
    const err = await startTestHost({ config: file }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/webhook\.receivers\[0\]\.url: a url written into mcbridge\.config\.ts .*urlEnv.*urlFile/);
    expect(err?.message).toMatch(/webhook\.receivers\[0\]\.secret: .*secretEnv/);
    for (const leak of ['hunter22', 'abc', 'token=qq', 'user:pw']) expect(err?.message).not.toContain(leak);
    const bad = p.write('bad.config.json', JSON.stringify({ webhook: { receivers: [{ urlEnv: 'X', secretEnv: 'Y', queueSize: 0 }], spoolMaxBytes: 10, extra: 1 } }));
    const run = await runCli(['config', '--config', bad]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/webhook\.receivers\[0\]\.queueSize/);
    expect(run.stderr).toMatch(/spoolMaxBytes must be at least 4096/);
    expect(run.stderr).toMatch(/extra/);
  });

  it('`mcbridge config` prints the entry, secret-named keys redacted as everywhere', async () => {
    const p = project({ install: false });
    const webhook = { receivers: [{ urlEnv: 'OPS_HOOK_URL', secretFile: '/run/secrets/ops', events: 'chat,mark' }], spool: 'state/webhook.spool' };
    const file = p.write('mcbridge.config.json', JSON.stringify({ webhook }));
    const run = await runCli(['config', '--config', file]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).webhook).toEqual({ ...webhook, receivers: [{ ...webhook.receivers[0], secretFile: '[redacted]' }] });
  });

  it("is configured like any plugin: a `plugins` entry naming it gives its options, paths from the config's folder", async () => {
    const server = await startReceiver(SECRET);
    open.push(server);
    const p = project({ install: false });
    p.write('secrets/hook', `${SECRET}\n`);
    vi.stubEnv('ENTRY_HOOK_URL', server.url('/entry/s3cr3t-path'));
    const options = { receivers: [{ urlEnv: 'ENTRY_HOOK_URL', secretFile: 'secrets/hook', events: 'mark' }], spool: 'state/hook.spool' };
    const file = p.write('mcbridge.config.json', JSON.stringify({ plugins: [['webhook', options]] }));
    const t: TestHost = await startTestHost({ config: file, sim: { autoTick: false } });
    open.push(t);
    await t.call('mark', { text: 'via plugins' });
    await server.hitsReached(1);
    expect(server.hits[0]).toMatchObject({ verified: true, json: { event: 'mark' } });
    expect(await t.call('webhook_status')).toMatchObject({ spool: `${p.dir}/state/hook.spool`, receivers: [{ events: ['mark'] }] });
    expect(t.daemon.host.plugins().filter((info) => info.name === 'webhook')).toHaveLength(1);
    const run = await runCli(['config', '--config', file]);
    expect(JSON.parse(run.stdout).webhook).toEqual({ ...options, receivers: [{ ...options.receivers[0], secretFile: '[redacted]' }] });
  });

  it("the new spelling is checked by the plugin's schema at its place; configured twice is refused, naming both", async () => {
    const p = project({ install: false });
    const literal = p.write('literal.config.json', JSON.stringify({ plugins: [false, ['webhook', { receivers: [{ url: 'https://hooks.example.com/h/abc', secretEnv: 'S' }] }]] }));
    const err = await startTestHost({ config: literal }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/plugins\[1\]\[1\]\.receivers\[0\]\.url: a url written into mcbridge\.config\.ts .*urlEnv/);
    expect(err?.message).not.toContain('abc');
    const twice = p.write('twice.config.json', JSON.stringify({ webhook: { spool: 'a' }, plugins: [['webhook', { spool: 'b' }]] }));
    const run = await runCli(['config', '--config', twice]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/plugins\[0\]: the built-in plugin 'webhook' is configured twice \(also by webhook\); give its options once, as plugins: \[\['webhook', \{ \.\.\. \}\]\]/);
  });
});

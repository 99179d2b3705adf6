/**
 * The config through the real CLI: `mcbridge config`, `mcbridge run` picking up a config from its
 * working directory (and edits to it), `mcbridge plugins`, and flags winning over the file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { ApiClient } from '../../../../core/api/client.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { freePort, waitUntil } from '../../../support/helpers.js';
import { pluginSource, project, removeProjects, type Project } from '../../../support/config-project.js';
import { VALID } from '../../../support/option-values.js';
import { DAEMON_OPTIONS, OPTION_KEYS, type OptionSpec } from '../../../../core/authoring/options.js';

const processes = new CliProcesses();
afterEach(async () => {
  await processes.stopAll();
  removeProjects();
});

function run(args: string[], cwd: string) {
  return runCli(args, { cwd, timeoutMs: 20_000 });
}

async function daemon(p: Project, args: string[] = []) {
  const apiPort = await freePort();
  const { child, out } = processes.start(['run', '--sim', '--api-port', String(apiPort), ...args], { cwd: p.dir });
  await waitUntil(() => /connected to server mod/.test(out.stderr) || child.exitCode !== null, 15_000, 'the daemon to connect');
  if (child.exitCode !== null) throw new Error(`the daemon exited: ${out.stderr}`);
  const cli = (...more: string[]) => run([...more, '--api-port', String(apiPort)], p.dir);
  return { child, out, apiPort, cli };
}

/**
 * Poll the daemon on `port` over the API until `ready` holds for the answer of `method`: a CLI
 * spawn per poll made these waits most of the file's time. The CLI then checks the result once.
 */
async function pollApi(port: number, method: string, ready: (result: unknown) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const api = await ApiClient.connect({ port }).catch(() => null);
    const result = api ? await api.call(method).catch(() => null) : null;
    api?.close();
    if (result !== null && ready(result)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const CONFIG = `import { z } from 'zod';
import { defineConfig, defineComposite } from 'mcbridge';

export default defineConfig({
  apiToken: undefined,
  deny: ['mark'],
  plugins: [['sky', { defaultWeatherSeconds: 30 }], 'broken'],
  composites: [
    defineComposite({
      name: 'tick_now',
      description: 'The current tick.',
      uses: ['state'],
      run: async ({ state }) => (await state()).tick,
    }),
  ],
});
`;

function withBrokenPlugin(p: Project): Project {
  p.fakePackage(
    'mcbridge-plugin-broken',
    pluginSource("setup: () => { throw new Error('no database'); }", "[{ name: 'broken_tool', description: 'Never served.', input: z.object({}), run: async () => 1 }]").replace(
      "name: 'fake'",
      "name: 'mcbridge-plugin-broken'",
    ),
  );
  return p;
}

describe('mcbridge config', () => {
  it('prints the resolved config as JSON, secrets redacted', async () => {
    const p = project();
    p.write(
      'mcbridge.config.ts',
      `export default {
      apiToken: 's3cret-token-0123456',
      apiPort: 9123,
      readOnly: true,
      plugins: [['sky', { defaultWeatherSeconds: 30 }]],
      composites: [{ name: 'probe', description: 'Probe.', uses: ['state'], run: async () => 1 }],
    };\n`,
    );
    const result = await run(['config'], p.dir);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({
      file: `${p.dir}/mcbridge.config.ts`,
      daemon: { apiPort: 9123, apiToken: '[redacted]', vantage: 'server' },
      policy: { readOnly: true },
      plugins: [
        { name: 'mcbridge-plugin-sky', version: '1.0.0', source: 'npm', package: 'mcbridge-plugin-sky', options: { defaultWeatherSeconds: 30 }, tools: ['sky_time', 'sky_set_time', 'sky_weather'] },
      ],
      composites: [{ name: 'probe', uses: ['state'], requires: ['state'], annotations: { readOnly: true } }],
    });
    expect(result.stdout).not.toContain('s3cret');
  });

  it('redacts secrets inside plugin options too', async () => {
    const p = project();
    p.fakePackage('mcbridge-plugin-hook', pluginSource('options: z.object({ url: z.string(), apiKey: z.string() })').replace("name: 'fake'", "name: 'mcbridge-plugin-hook'"));
    p.write('mcbridge.config.json', JSON.stringify({ plugins: [['hook', { url: 'https://bot:hunter2@example.com/x', apiKey: 'abc123' }]] }));
    const result = await run(['config'], p.dir);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).plugins[0].options).toEqual({ url: 'https://[redacted]@example.com/…', apiKey: '[redacted]' });
  });

  it('says when there is no config, and exits 1 naming the file and path when the config is invalid', async () => {
    const p = project();
    p.write('mcbridge.config.ts', "export default { plugins: [['sky', { defaultWeatherSeconds: -1 }]] };\n");
    const [none, bad] = await Promise.all([run(['config'], project().dir), run(['config'], p.dir)]);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout)).toMatchObject({ file: null, plugins: [], composites: [] });

    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^error: .*mcbridge\.config\.ts: plugins\[0\]\[1\]: options of plugin 'mcbridge-plugin-sky' are invalid: 'defaultWeatherSeconds'.*\[invalid_params\]/s);
  });
});

describe('mcbridge run with a config', () => {
  it("loads plugins, composites and policy from the working directory; `plugins` reports each tool's state", async () => {
    const p = withBrokenPlugin(project());
    p.write('mcbridge.config.ts', CONFIG);
    const { cli, out } = await daemon(p);
    expect(out.stderr).toMatch(/"msg":"config loaded from mcbridge\.config\.ts \(reloads on change\)"/);
    expect(out.stderr).toMatch(/plugin 'mcbridge-plugin-broken' failed to start and was left out/);

    const tick = await cli('call', 'tick_now');
    expect(tick.code, tick.stderr).toBe(0);
    expect(Number(tick.stdout)).toBeGreaterThanOrEqual(0);

    const json = await cli('plugins', '--json');
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as Array<{ name: string; source: string; state: string; error?: string; tools: Array<{ name: string; available: boolean; hiddenBy?: string }> }>;
    const byName = new Map(report.map((r) => [r.name, r]));
    expect(byName.get('state')).toMatchObject({ source: 'built-in', state: 'loaded', tools: [{ name: 'state', available: true }] });
    expect(byName.get('mark')).toMatchObject({ tools: [{ name: 'mark', available: false, hiddenBy: 'policy' }] });
    expect(byName.get('mcbridge-plugin-sky')).toMatchObject({ version: '1.0.0', source: 'npm', state: 'loaded' });
    expect(byName.get('mcbridge-plugin-sky')!.tools.every((t) => t.available)).toBe(true);
    expect(byName.get('mcbridge-plugin-broken')).toMatchObject({ source: 'npm', state: 'failed', error: 'no database', tools: [] });
    expect(byName.get('composites')).toMatchObject({ source: 'config', tools: [{ name: 'tick_now', available: true }] });

    const text = await cli('plugins');
    expect(text.stdout).toMatch(/^mcbridge-plugin-sky 1\.0\.0 {2}\(npm\)/m);
    expect(text.stdout).toMatch(/hidden {5}mark +\[policy\] removed by the tool deny list \(mark\)/);
    expect(text.stdout).toMatch(/mcbridge-plugin-broken 1\.0\.0 {2}\(npm\).*FAILED: no database/);
  });

  it('a composite added to the config is callable from the CLI moments after saving', async () => {
    const p = project();
    p.write('mcbridge.config.ts', 'export default { composites: [] };\n');
    const { cli, apiPort } = await daemon(p);
    expect((await cli('call', 'fresh_tool')).code).toBe(1);

    p.write(
      'mcbridge.config.ts',
      `export default { composites: [
      { name: 'fresh_tool', description: 'Added while the daemon runs.', uses: ['state'], run: async ({ state }) => ({ fresh: true, tick: (await state()).tick }) },
    ] };\n`,
    );
    await pollApi(apiPort, 'tools', (m) => (m as { tools: Array<{ name: string }> }).tools.some((t) => t.name === 'fresh_tool'), 'the reloaded config');
    const result = await cli('call', 'fresh_tool');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ fresh: true });
  });

  it('flags win over the config: --read-only, --deny, --allow; config daemon options apply without flags', { timeout: 60_000 }, async () => {
    const p = project();
    const configPort = await freePort();
    p.write('mcbridge.config.json', JSON.stringify({ apiPort: configPort, deny: ['mark'], readOnly: false }));
    // The three daemons start side by side: each start waits on its own sim and config load.
    const viaConfig = processes.start(['run', '--sim'], { cwd: p.dir });
    const [flaggedDaemon, allowed] = await Promise.all([daemon(p, ['--read-only', '--deny', 'wait,entit*']), daemon(p, ['--allow', 'state,status'])]);
    // Under a full suite's load a daemon has once taken over 15 s here: a failure shows what it said.
    await waitUntil(() => /connected to server mod/.test(viaConfig.out.stderr), 30_000, "the daemon on the config's port").catch((err: Error) => {
      throw new Error(`${err.message}; its stderr:\n${viaConfig.out.stderr || '(empty)'}`);
    });
    const tools = await run(['tools', '--json', '--api-port', String(configPort)], p.dir);
    const manifest = JSON.parse(tools.stdout) as { tools: Array<{ name: string; available: boolean }> };
    const available = manifest.tools.filter((t) => t.available).map((t) => t.name);
    expect(available).toContain('command');
    expect(available).not.toContain('mark');

    const flagged = JSON.parse((await flaggedDaemon.cli('tools', '--json')).stdout) as { tools: Array<{ name: string; available: boolean }> };
    const flaggedAvailable = flagged.tools.filter((t) => t.available).map((t) => t.name);
    expect(flaggedAvailable).toContain('state');
    expect(flaggedAvailable).toContain('events');
    expect(flaggedAvailable).not.toContain('command'); // --read-only
    expect(flaggedAvailable).not.toContain('wait'); // --deny replaces the config's deny list...
    expect(flaggedAvailable).not.toContain('entities');
    expect(flagged.tools.find((t) => t.name === 'mark')?.available).toBe(false); // ...and mark is not read-only anyway

    const onlyTwo = JSON.parse((await allowed.cli('tools', '--json')).stdout) as { tools: Array<{ name: string; available: boolean }> };
    expect(
      onlyTwo.tools
        .filter((t) => t.available)
        .map((t) => t.name)
        .sort(),
    ).toEqual(['state', 'status']);
  });

  it('refuses to start on an invalid config, and --no-config ignores it', async () => {
    const p = project();
    p.write('mcbridge.config.ts', "export default { plugins: ['mcbridge-plugin-nope'] };\n");
    const [refused, { cli }] = await Promise.all([run(['run', '--sim', '--api-port', String(await freePort())], p.dir), daemon(p, ['--no-config'])]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/error: .*mcbridge\.config\.ts: plugins\[0\]: cannot find the plugin package 'mcbridge-plugin-nope'/);

    expect((await cli('call', 'state')).code).toBe(0);
  });

  it('warns when two config files sit in one folder, naming the one used and the one ignored', async () => {
    const p = project();
    p.write('mcbridge.config.ts', "export default { composites: [{ name: 'from_ts', description: 'A test tool.', run: async () => 'ts' }] };\n");
    p.write('mcbridge.config.mjs', "export default { composites: [{ name: 'from_mjs', description: 'A test tool.', run: async () => 'mjs' }] };\n");
    const { out, cli } = await daemon(p);
    await waitUntil(() => /"msg":"config loaded from/.test(out.stderr), 15_000, 'the config to be logged');
    const warnings = out.stderr.split('\n').filter((line) => line.includes('two config files'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({
      level: 40,
      config: `${p.dir}/mcbridge.config.ts`,
      ignored: `${p.dir}/mcbridge.config.mjs`,
      msg: expect.stringMatching(/using mcbridge\.config\.ts, ignoring mcbridge\.config\.mjs; remove one, or name it with --config/),
    });
    expect((await cli('call', 'from_ts')).stdout).toContain('ts');
    // One file, or the file named: nothing to warn of.
    fs.rmSync(path.join(p.dir, 'mcbridge.config.mjs'));
    const alone = await daemon(p);
    await waitUntil(() => /"msg":"config loaded from/.test(alone.out.stderr), 15_000, 'the config to be logged');
    expect(alone.out.stderr).not.toContain('two config files');
  });
});

describe('the option table through the real CLI', () => {
  /** Where `mcbridge config` prints an option of this group. */
  const sectionOf = (printed: Record<string, unknown>, spec: OptionSpec) => (spec.group === 'config' ? printed : printed[spec.group]) as Record<string, unknown>;

  it('`mcbridge config` prints every default, and every option a config sets (secrets redacted)', async () => {
    const p = project();
    p.write('mcbridge.config.json', JSON.stringify(VALID));
    const [none, every] = await Promise.all([run(['config', '--no-config'], project().dir), run(['config'], p.dir)]);
    expect(none.code, none.stderr).toBe(0);
    const defaults = JSON.parse(none.stdout) as Record<string, unknown>;
    for (const key of OPTION_KEYS) {
      const spec: OptionSpec = DAEMON_OPTIONS[key];
      if (spec.default !== undefined) expect(sectionOf(defaults, spec), `${key} missing`).toHaveProperty([key], spec.default);
    }

    expect(every.code, every.stderr).toBe(0);
    const printed = JSON.parse(every.stdout) as Record<string, unknown>;
    for (const key of OPTION_KEYS) {
      const spec: OptionSpec = DAEMON_OPTIONS[key];
      expect(sectionOf(printed, spec), `${key} missing`).toHaveProperty([key], spec.secret ? '[redacted]' : VALID[key]);
    }
    expect(every.stdout).not.toContain(VALID.apiToken);
  });

  it('`run` takes a number from the config, a flag over the config, and a path relative to the config file', async () => {
    const p = project();
    const apiPort = await freePort();
    p.write('conf/mcbridge.config.json', JSON.stringify({ apiPort, buffer: 50, pushBuffer: 2, serverDir: 'game' }));
    // No --sim: the link keeps looking for the mod, and status says where it looked.
    processes.start(['run', '--config', 'conf/mcbridge.config.json', '--push-buffer', '3'], { cwd: p.dir });
    await pollApi(apiPort, 'status', (st) => Boolean((st as { discovery?: unknown }).discovery), 'the daemon to report where it looked');
    const status = await run(['call', 'status', '--api-port', String(apiPort)], p.dir);
    expect(status.code, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout);
    expect(report.events.capacity).toBe(50);
    expect(report.api.pushBufferBytes).toBe(3 * 1024 * 1024);
    expect(report.discovery.checked).toContain(`${p.dir}/conf/game/mc-agent-server/port.txt`);
  });

  it('`run` refuses a flag the schema refuses: exit 2, and what to give', async () => {
    const refused = await run(['run', '--sim', '--push-buffer', '5000', '--no-config'], project().dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("error: option '--push-buffer <MiB>' argument '5000' is invalid. expected a whole number of MiB 1-4096, got '5000'");
  });
});

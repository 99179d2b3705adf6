import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../core/daemon/config/errors.js';
import { candidateNames } from '../../../../core/daemon/config/plugins.js';
import { SERVER_CAPABILITIES } from '../../../../core/sim/index.js';
import { startTestHost, type TestHost } from '../../../../core/testing/index.js';
import { VERSION } from '../../../../core/util/version.js';
import { pluginSource, project, REPO, removeProjects, type Project } from '../../../support/config-project.js';

const hosts: TestHost[] = [];
afterEach(async () => {
  for (const t of hosts.splice(0)) await t.close();
  removeProjects();
});

async function start(p: Project, config: string, options: Parameters<typeof startTestHost>[0] = {}): Promise<TestHost> {
  const file = p.write('mcbridge.config.ts', config);
  const t = await startTestHost({ config: file, ...options });
  hosts.push(t);
  return t;
}

async function refusal(p: Project, config: string): Promise<ConfigError> {
  const file = p.write('mcbridge.config.ts', config);
  try {
    hosts.push(await startTestHost({ config: file }));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected the config to be refused');
}

const SKY_DIR = fs.realpathSync(path.join(REPO, 'examples/mcbridge-plugin-sky'));

describe('npm plugins loaded by name', () => {
  it("loads the example package by its full name, from the project's node_modules", async () => {
    const t = await start(project(), "export default { plugins: ['mcbridge-plugin-sky'] };\n");
    expect(t.plugins().find((p) => p.name === 'mcbridge-plugin-sky')).toMatchObject({
      version: '1.0.0',
      source: 'npm',
      from: SKY_DIR,
      state: 'loaded',
      tools: ['sky_time', 'sky_set_time', 'sky_weather'],
    });
    expect(await t.call('sky_set_time', { to: 'night' })).toMatchObject({ verified: { phase: 'night' } });
  });

  it("accepts the short name and options, validated by the plugin's own schema", async () => {
    const t = await start(project(), "export default { plugins: [['sky', { defaultWeatherSeconds: 7 }]] };\n");
    expect(await t.call('sky_weather', { kind: 'rain' })).toMatchObject({ requested: { kind: 'rain', seconds: 7 } });
    expect(t.sim.received).toContain('CMD weather rain 7s');
  });

  it('shows its tools only while the sim advertises the CAPS they need', async () => {
    const t = await start(project(), "export default { plugins: ['mcbridge-plugin-sky'] };\n", {
      sim: { capabilities: SERVER_CAPABILITIES.filter((c) => c !== 'command') },
    });
    const manifest = await t.tools();
    const sky = manifest.tools.filter((tool) => tool.plugin === 'mcbridge-plugin-sky');
    expect(sky.map((tool) => [tool.name, tool.available, tool.missing, tool.hiddenBy])).toEqual([
      ['sky_time', false, ['command'], 'caps'],
      ['sky_set_time', false, ['command'], 'caps'],
      ['sky_weather', false, ['command'], 'caps'],
    ]);
    await t.setCapabilities(SERVER_CAPABILITIES);
    expect(await t.available()).toEqual(expect.arrayContaining(['sky_time', 'sky_set_time', 'sky_weather']));
  });

  it('expands short names like other plugin ecosystems', () => {
    expect(candidateNames('sky')).toEqual(['mcbridge-plugin-sky', 'sky']);
    expect(candidateNames('mcbridge-plugin-sky')).toEqual(['mcbridge-plugin-sky']);
    expect(candidateNames('@acme/sky')).toEqual(['@acme/mcbridge-plugin-sky', '@acme/sky']);
    expect(candidateNames('@acme')).toEqual(['@acme/mcbridge-plugin']);
    expect(candidateNames('@acme/mcbridge-plugin-sky')).toEqual(['@acme/mcbridge-plugin-sky']);
  });

  it('loads a scoped package', async () => {
    const p = project();
    p.fakePackage(
      '@acme/mcbridge-plugin-hello',
      pluginSource('', "[{ name: 'acme_hello', description: 'Says hello.', input: z.object({}), annotations: { readOnly: true }, run: async () => 'hello' }]").replace(
        "name: 'fake'",
        "name: '@acme/mcbridge-plugin-hello'",
      ),
    );
    const t = await start(p, "export default { plugins: ['@acme/hello'] };\n");
    expect(await t.call('acme_hello')).toBe('hello');
    expect(t.plugins().find((x) => x.name === '@acme/mcbridge-plugin-hello')?.from).toBe(path.join(p.dir, 'node_modules/@acme/mcbridge-plugin-hello'));
  });
});

describe('refused plugins: each error names the file, the entry, the plugin and what is wrong', () => {
  it('an unknown plugin package', async () => {
    const p = project();
    const error = await refusal(p, "export default { plugins: ['mcbridge-plugin-sky', 'mcbridge-plugin-nope'] };\n");
    expect(error.message).toBe(
      `${p.dir}/mcbridge.config.ts: plugins[1]: cannot find the plugin package 'mcbridge-plugin-nope' from ${p.dir} ` +
        '(looked for mcbridge-plugin-nope in node_modules); install it with `npm install mcbridge-plugin-nope`',
    );
  });

  it('a package that does not export a plugin', async () => {
    const p = project();
    p.fakePackage('mcbridge-plugin-empty', 'export default 42;\n');
    const error = await refusal(p, "export default { plugins: ['empty'] };\n");
    expect(error.message).toMatch(/plugins\[0\]: the package 'mcbridge-plugin-empty' does not export a plugin: its default export should be definePlugin\(.*got number/);
  });

  it('a package that throws while loading', async () => {
    const p = project();
    p.fakePackage('mcbridge-plugin-crash', "throw new Error('boom at import');\n");
    const error = await refusal(p, "export default { plugins: ['crash'] };\n");
    expect(error.message).toMatch(/plugins\[0\]: the package 'mcbridge-plugin-crash' \(.*index\.js\) failed to load: boom at import/);
  });

  it('a plugin made for a newer plugin API', async () => {
    const p = project();
    p.fakePackage('mcbridge-plugin-future', pluginSource('').replace("name: 'fake'", "name: 'mcbridge-plugin-future'").replace('apiVersion: 1', 'apiVersion: 2'));
    const error = await refusal(p, "export default { plugins: ['future'] };\n");
    expect(error.message).toMatch(/plugins\[0\]: plugin 'mcbridge-plugin-future' targets mcbridge plugin API 2, but this host speaks API 1: upgrade mcbridge or use an older version of the plugin/);
  });

  it('a plugin whose declared mcbridge range the host does not meet', async () => {
    const p = project();
    p.fakePackage('mcbridge-plugin-picky', pluginSource("requires: { mcbridge: '>=99.0.0' }").replace("name: 'fake'", "name: 'mcbridge-plugin-picky'"));
    const error = await refusal(p, "export default { plugins: ['picky'] };\n");
    expect(error.message).toContain(`plugins[0]: plugin 'mcbridge-plugin-picky' needs mcbridge >=99.0.0, but this host is mcbridge ${VERSION}`);
  });

  it('the same tool name in two plugins, naming both owners', async () => {
    const p = project();
    const tool = "[{ name: 'shared_tool', description: 'Twice.', input: z.object({}), run: async () => 1 }]";
    p.fakePackage('mcbridge-plugin-one', pluginSource('', tool).replace("name: 'fake'", "name: 'mcbridge-plugin-one'"));
    p.fakePackage('mcbridge-plugin-two', pluginSource('', tool).replace("name: 'fake'", "name: 'mcbridge-plugin-two'"));
    const error = await refusal(p, "export default { plugins: ['one', 'two'] };\n");
    expect(error.message).toMatch(/plugins\[1\]: the tool 'shared_tool' is defined by both plugin 'mcbridge-plugin-one' and plugin 'mcbridge-plugin-two'/);
  });

  it("a tool name a built-in already has, and a composite that takes a plugin tool's name", async () => {
    const p = project();
    p.fakePackage(
      'mcbridge-plugin-clash',
      pluginSource('', "[{ name: 'state', description: 'Mine.', input: z.object({}), run: async () => 1 }]").replace("name: 'fake'", "name: 'mcbridge-plugin-clash'"),
    );
    expect((await refusal(p, "export default { plugins: ['clash'] };\n")).message).toMatch(/plugins\[0\]: the tool 'state' is defined by both plugin 'state' and plugin 'mcbridge-plugin-clash'/);
    const composite = await refusal(p, "export default { plugins: ['sky'], composites: [{ name: 'sky_time', description: 'Mine.', run: async () => 1 }] };\n");
    expect(composite.message).toMatch(/composites\[0\]\.name: the tool 'sky_time' is defined by both plugin 'mcbridge-plugin-sky' and this composite/);
  });

  it('a plugin listed twice', async () => {
    const error = await refusal(project(), "export default { plugins: ['sky', 'mcbridge-plugin-sky'] };\n");
    expect(error.message).toMatch(/plugins\[1\]: a plugin named 'mcbridge-plugin-sky' is already loaded \(config plugins\[0\]\)/);
  });

  it("options the plugin's schema rejects", async () => {
    const error = await refusal(project(), "export default { plugins: [['sky', { defaultWeatherSeconds: 'long' }]] };\n");
    expect(error.message).toMatch(/plugins\[0\]\[1\]: options of plugin 'mcbridge-plugin-sky' are invalid: 'defaultWeatherSeconds': Invalid input: expected number/);
  });

  it('an entry that is neither a plugin nor a name', async () => {
    const error = await refusal(project(), 'export default { plugins: [42] };\n');
    expect(error.message).toMatch(
      /plugins\[0\]: expected a plugin object \(definePlugin\(\{ \.\.\. \}\)\), a factory returning one, a package name such as 'mcbridge-plugin-foo', or \[plugin, options\]; got number/,
    );
  });

  it('a factory that throws, at once or for a later target, is a config error naming the entry', async () => {
    const first = await refusal(project(), "export default { plugins: [() => { throw new Error('no licence key'); }] };\n");
    expect(first.message).toMatch(/plugins\[0\]: .*threw instead of returning a plugin: no licence key/);
    const later = await refusal(
      project(),
      "let n = 0;\nexport default { plugins: [() => { if (n++ > 0) throw new Error('made once only'); return { name: 'once', version: '1.0.0', apiVersion: 1, tools: [] }; }] };\n",
    );
    expect(later.message).toMatch(/plugins\[0\]: .*threw instead of returning a plugin: made once only/);
  });

  it('a plugin object with a bad tool names the plugin and the field', async () => {
    const error = await refusal(project(), "export default { plugins: [{ name: 'inline', version: '1.0.0', apiVersion: 1, tools: [{ name: 'Bad Name', description: 'x', input: {}, run: 1 }] }] };\n");
    expect(error.message).toMatch(/plugins\[0\]: plugin 'inline' \(config\) is invalid: tools\[0\]\.name \(tool 'Bad Name'\) must match/);
    expect(error.message).toMatch(/tools\[0\]\.run \(tool 'Bad Name'\) expected a function/);
  });
});

describe('a plugin whose setup throws', () => {
  it('is reported and left out; the daemon keeps serving the others', async () => {
    const p = project();
    p.fakePackage(
      'mcbridge-plugin-broken',
      pluginSource("setup: () => { throw new Error('cannot reach the weather service'); }", "[{ name: 'broken_tool', description: 'Never served.', input: z.object({}), run: async () => 1 }]").replace(
        "name: 'fake'",
        "name: 'mcbridge-plugin-broken'",
      ),
    );
    const t = await start(p, "export default { plugins: ['broken', 'sky'] };\n");
    expect(t.plugins().find((x) => x.name === 'mcbridge-plugin-broken')).toMatchObject({
      state: 'failed',
      error: 'cannot reach the weather service',
      tools: [],
      source: 'npm',
    });
    expect((await t.callError('broken_tool')).code).toBe('unknown_method');
    expect(await t.call('sky_time')).toMatchObject({ phase: expect.any(String) });
    expect(((await t.call('status')) as { plugins: Array<{ name: string; state: string; error?: string }> }).plugins).toContainEqual(
      expect.objectContaining({ name: 'mcbridge-plugin-broken', state: 'failed', error: 'cannot reach the weather service' }),
    );
  });
});

describe("errors from a plugin's own copy of mcbridge", () => {
  it('keep their code and details on the wire', async () => {
    const p = project();
    // The package imports 'mcbridge' from the project's node_modules: the built copy, not the
    // sources this daemon runs from, so its McbridgeError is another class.
    p.fakePackage(
      'mcbridge-plugin-thrower',
      [
        "import { z } from 'zod';",
        "import { McbridgeError } from 'mcbridge';",
        "export default { name: 'thrower', version: '1.0.0', apiVersion: 1, tools: [{ name: 'throw_own', description: 'Throws.', input: z.object({}),",
        "  run: async () => { throw new McbridgeError('mod_error', 'the game said no', { verb: 'CMD', hint: 'try later' }); } }] };",
      ].join('\n'),
    );
    const t = await start(p, "export default { plugins: ['thrower'] };\n");
    const err = await t.callError('throw_own');
    expect(err).toMatchObject({ code: 'mod_error', message: 'the game said no', details: { verb: 'CMD', hint: 'try later' } });
  });
});

/** planConfig and ConfigRuntime with inline plugins: no files, no packages, no daemon. */
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../core/daemon/config/errors.js';
import type { LoadedConfig } from '../../../../core/daemon/config/load.js';
import { loadConfig } from '../../../../core/daemon/config/load.js';
import { ConfigRuntime, neighboursOf, planConfig } from '../../../../core/daemon/config/runtime.js';
import { silentLogger } from '../../../../core/util/log.js';
import { pluginSource, project, removeProjects } from '../../../support/config-project.js';
import { makeHost, plugin, stopHostsAfterEach } from '../../../support/host.js';
import type { McbridgeConfig } from '../../../../core/authoring/config.js';

stopHostsAfterEach();
afterEach(() => removeProjects());

const readTool = (name: string) => ({ name, description: `Reads ${name}.`, input: z.object({}), annotations: { readOnly: true }, run: async () => name });
const loaded = (config: McbridgeConfig): LoadedConfig => ({ file: null, dir: process.cwd(), config });
const composite = (name: string) => ({ name, description: `Composite ${name}.`, uses: ['look'], run: async () => name });

async function problemsOf(config: McbridgeConfig, neighbours = neighboursOf([plugin('base', [readTool('look')])]), overrides = {}): Promise<string[]> {
  const err = await planConfig(loaded(config), neighbours, overrides).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as ConfigError).problems.map((p) => `${p.path}: ${p.message}`);
}

describe('planConfig', () => {
  it('plans plugins, composites and the merged policy', async () => {
    const plan = await planConfig(
      loaded({ plugins: [plugin('extra', [readTool('peek')])], composites: [composite('both')], deny: ['peek'], readOnly: false }),
      neighboursOf([plugin('base', [readTool('look')])]),
      { readOnly: true },
    );
    expect(plan.plugins.map((p) => p.plugin.name)).toEqual(['extra']);
    expect(plan.composites.map((c) => c.name)).toEqual(['both']);
    expect(plan.compositesPlugin?.tools?.map((t) => t.name)).toEqual(['both']);
    expect(plan.policy).toEqual({ readOnly: true, deny: ['peek'] });
  });

  it('refuses a plugin name taken by a neighbour or listed twice, naming the other', async () => {
    expect(await problemsOf({ plugins: [plugin('base', [readTool('other')])] })).toEqual(["plugins[0]: a plugin named 'base' is already loaded (built-in); list each plugin once"]);
    expect(await problemsOf({ plugins: [plugin('twice', [readTool('a')]), plugin('twice', [readTool('b')])] })).toEqual([
      "plugins[1]: a plugin named 'twice' is already loaded (config plugins[0]); list each plugin once",
    ]);
    // The plugins' problems come first: the composites are not checked against plugins that cannot load.
    expect(await problemsOf({ plugins: [plugin('base', [readTool('other')])], composites: [composite('look')] })).toEqual([
      "plugins[0]: a plugin named 'base' is already loaded (built-in); list each plugin once",
    ]);
  });

  it('refuses a tool name two plugins define, and a composite named like a tool', async () => {
    expect(await problemsOf({ plugins: [plugin('one', [readTool('look')])] })).toEqual([
      "plugins[0]: the tool 'look' is defined by both plugin 'base' and plugin 'one'; rename one of them or leave one plugin out",
    ]);
    expect(await problemsOf({ plugins: [plugin('one', [readTool('x')]), plugin('two', [readTool('x')])] })).toEqual([
      "plugins[1]: the tool 'x' is defined by both plugin 'one' and plugin 'two'; rename one of them or leave one plugin out",
    ]);
    expect(await problemsOf({ composites: [composite('fine'), composite('look')] })).toEqual([
      "composites[1].name: the tool 'look' is defined by both plugin 'base' and this composite; rename the composite",
    ]);
  });

  it("reserves the plugin name `composites` for the config's composites", async () => {
    const reserved = plugin('composites', [readTool('c')]);
    expect(await problemsOf({ plugins: [reserved], composites: [composite('mine')] })).toEqual(["plugins: the plugin name 'composites' is reserved for the config's composites"]);
    expect(await problemsOf({ composites: [composite('mine')] }, neighboursOf([plugin('base', [readTool('look')]), reserved]))).toEqual([
      "plugins: the plugin name 'composites' is reserved for the config's composites",
    ]);
    // Without composites of its own the name is free.
    expect((await planConfig(loaded({ plugins: [reserved] }), neighboursOf([plugin('base', [readTool('look')])]))).compositesPlugin).toBeNull();
  });

  it('names a bad policy entry by the flag that gave it, or by its place in the config', async () => {
    expect(await problemsOf({ deny: ['nope'] })).toEqual(["deny[0]: 'nope' is not the name of any tool (`mcbridge tools` lists them)"]);
    expect(await problemsOf({}, undefined, { allow: ['look', 'nope'] })).toEqual(["--allow: 'nope' is not the name of any tool (`mcbridge tools` lists them)"]);
    expect(await problemsOf({ deny: ['look'] }, undefined, { deny: ['nope'] })).toEqual(["--deny: 'nope' is not the name of any tool (`mcbridge tools` lists them)"]);
    const many = [...Array.from({ length: 11 }, () => 'look'), 'nope'];
    expect(await problemsOf({}, undefined, { allow: many })).toEqual(["--allow: 'nope' is not the name of any tool (`mcbridge tools` lists them)"]);
    // A composite's name is a tool the policy may name.
    expect((await planConfig(loaded({ composites: [composite('mine')], deny: ['mine'] }), neighboursOf([plugin('base', [readTool('look')])]))).policy).toEqual({ deny: ['mine'] });
  });
});

describe('ConfigRuntime', () => {
  it('loads inline plugins and composites into a host, and reports them in status', async () => {
    const host = makeHost([plugin('base', [readTool('look')])]);
    const runtime = new ConfigRuntime(host, { loaded: loaded({ plugins: [plugin('extra', [readTool('peek')])], composites: [composite('both')] }), log: silentLogger() });
    await runtime.start();
    expect(
      host.registry
        .list()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['both', 'look', 'peek']);
    const status = runtime.status();
    expect(status).toMatchObject({ file: null, reloads: 0, watching: false, plugins: ['extra', 'composites'] });
    // The composites are the config's: an inline config has no file, so they come from its directory.
    expect(host.plugins().find((p) => p.name === 'composites')).toMatchObject({ source: 'config', from: process.cwd() });
    expect(status).not.toHaveProperty('lastError');
    expect(Date.parse(status.loadedAt as string)).not.toBeNaN();
    expect(runtime.file).toBeNull();
  });

  it('has nothing to reload or watch without a file', async () => {
    const host = makeHost([plugin('base', [readTool('look')])]);
    const runtime = new ConfigRuntime(host, { loaded: loaded({ composites: [composite('both')] }), log: silentLogger() });
    await runtime.start();
    runtime.watch();
    expect(runtime.status().watching).toBe(false);
    expect(await runtime.reload()).toEqual({ ok: true, added: [], removed: [] });
    expect(runtime.status().reloads).toBe(0);
    await runtime.close();
  });
});

describe('ConfigRuntime.reload', () => {
  /** A config file naming one plugin package, `name`, whose source is `fields` (pluginSource). */
  async function withPackage(name: string, fields: string, host = makeHost([plugin('base', [readTool('look')])])) {
    const p = project();
    p.fakePackage(`mcbridge-plugin-${name}`, pluginSource(fields).replace("name: 'fake'", `name: 'mcbridge-plugin-${name}'`));
    const file = p.write('mcbridge.config.json', JSON.stringify({ plugins: [name] }));
    const runtime = new ConfigRuntime(host, { loaded: (await loadConfig({ file }))!, log: silentLogger(), watch: false });
    await runtime.start();
    return { p, host, runtime };
  }

  it('starts again an unchanged plugin whose setup failed', async () => {
    const g = globalThis as { flakySetups?: number };
    g.flakySetups = 0;
    const host = makeHost([]);
    await host.start(); // setups run on a started host
    const { runtime } = await withPackage('flaky', "setup: () => { globalThis.flakySetups += 1; if (globalThis.flakySetups === 1) throw new Error('not yet'); }", host);
    expect(host.plugins().find((p) => p.name === 'mcbridge-plugin-flaky')).toMatchObject({ state: 'failed' });
    expect(await runtime.reload()).toMatchObject({ ok: true, added: ['fake_tool'] });
    expect(host.plugins().find((p) => p.name === 'mcbridge-plugin-flaky')).toMatchObject({ state: 'loaded' });
    expect(g.flakySetups).toBe(2);
  });

  it('refuses a plugin named like one loaded by someone else, on a reload too', async () => {
    const { p, runtime } = await withPackage('first', '');
    p.fakePackage('mcbridge-plugin-second', pluginSource('').replace("name: 'fake'", "name: 'base'").replace("'fake_tool'", "'other_tool'"));
    p.write('mcbridge.config.json', JSON.stringify({ plugins: ['first', 'second'] }));
    const result = await runtime.reload();
    expect(result).toMatchObject({ ok: false });
    expect(result.error).toMatch(/plugins\[1\]: a plugin named 'base' is already loaded \(config\); list each plugin once$/);
  });
});

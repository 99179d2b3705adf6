import { afterEach, describe, expect, it } from 'vitest';
import { startTestHost, waitUntil, type TestHost, type TestHostOptions } from '../../../../core/testing/index.js';
import { pluginSource, project, removeProjects, type Project } from '../../../support/config-project.js';

const hosts: TestHost[] = [];
afterEach(async () => {
  for (const t of hosts.splice(0)) await t.close();
  removeProjects();
});

async function start(p: Project, config: string, options: TestHostOptions = {}): Promise<TestHost> {
  const t = await startTestHost({ config: p.write('mcbridge.config.ts', config), ...options });
  hosts.push(t);
  return t;
}

const composite = (name: string) => `{ name: '${name}', description: 'Composite ${name}.', uses: ['state'], run: async () => '${name}' }`;

/** A plugin package that counts its setups and disposals in a global, so a test can see restarts. */
function countingPlugin(p: Project): void {
  p.fakePackage(
    'mcbridge-plugin-counter',
    pluginSource(
      "options: z.object({ label: z.string().default('a') }), setup: () => { globalThis.counterSetups = (globalThis.counterSetups ?? 0) + 1; }, dispose: () => { globalThis.counterDisposals = (globalThis.counterDisposals ?? 0) + 1; }",
      "[{ name: 'counter_label', description: 'Its label.', input: z.object({}), annotations: { readOnly: true }, run: async (_a, ctx) => ctx.config.label }]",
    ).replace("name: 'fake'", "name: 'mcbridge-plugin-counter'"),
  );
}

const counts = () => {
  const g = globalThis as { counterSetups?: number; counterDisposals?: number };
  return { setups: g.counterSetups ?? 0, disposals: g.counterDisposals ?? 0 };
};

describe('reloading the config', () => {
  it('adds and removes composites as one new surface revision, pushed to subscribers', async () => {
    const p = project();
    const t = await start(p, `export default { composites: [${composite('first')}] };\n`);
    expect(await t.call('first')).toBe('first');
    const surfaces: number[] = [];
    await t.client.subscribe(['surface']);
    t.client.on('event', (frame: { event: string; data: { revision: number } }) => {
      if (frame.event === 'surface') surfaces.push(frame.data.revision);
    });
    const revision = (await t.tools()).revision;

    p.write('mcbridge.config.ts', `export default { composites: [${composite('second')}] };\n`);
    expect(await t.reload()).toEqual({ ok: true, added: ['second'], removed: ['first'] });
    const manifest = await t.tools();
    expect(manifest.revision).toBe(revision + 1);
    expect(await t.call('second')).toBe('second');
    expect((await t.callError('first')).code).toBe('unknown_method');
    await waitUntil(() => surfaces.includes(revision + 1), 5_000, 'the surface push');
  });

  it('changes nothing once closed (a late SIGHUP while the daemon stops)', async () => {
    const p = project();
    const t = await start(p, `export default { composites: [${composite('first')}] };\n`);
    await t.daemon.config!.close();
    p.write('mcbridge.config.ts', `export default { composites: [${composite('second')}] };\n`);
    expect(await t.reload()).toEqual({ ok: true, added: [], removed: [] });
    expect(await t.call('first')).toBe('first');
    expect((await t.callError('second')).code).toBe('unknown_method');
  });

  it('applies a new policy', async () => {
    const p = project();
    const t = await start(p, 'export default {};\n');
    expect(await t.available()).toContain('mark');
    p.write('mcbridge.config.ts', "export default { deny: ['mark'] };\n");
    await t.reload();
    expect(await t.hidden()).toHaveProperty('mark');
    p.write('mcbridge.config.ts', 'export default { readOnly: true };\n');
    await t.reload();
    const hidden = await t.hidden();
    expect(hidden.command).toMatch(/^read-only mode/);
    expect(hidden).not.toHaveProperty('state');
  });

  it('keeps the running config when the edit is invalid, and says why', async () => {
    const p = project();
    const t = await start(p, `export default { composites: [${composite('kept')}] };\n`);
    p.write('mcbridge.config.ts', `export default { apiPort: 'x', composites: [${composite('lost')}] };\n`);
    const result = await t.reload();
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/mcbridge\.config\.ts: apiPort: Invalid input: expected number/);
    expect(await t.call('kept')).toBe('kept');
    expect((await t.callError('lost')).code).toBe('unknown_method');
    const status = (await t.call('status')) as { config: { lastError?: string; reloads: number } };
    expect(status.config).toMatchObject({ reloads: 0, lastError: expect.stringMatching(/apiPort/) });

    p.write('mcbridge.config.ts', `export default { plugins: ['mcbridge-plugin-missing'], composites: [${composite('lost')}] };\n`);
    expect((await t.reload()).error).toMatch(/plugins\[0\]: cannot find the plugin package 'mcbridge-plugin-missing'/);
    expect(await t.call('kept')).toBe('kept');
  });

  it.each([
    ['an empty file', ''],
    ['a file that exports undefined', 'export default undefined;\n'],
    ['a file whose default export disappeared', 'export const leftover = 1;\n'],
  ])('keeps the last good config when saved as %s, and says why', async (_what, source) => {
    const p = project();
    const t = await start(p, `export default { composites: [${composite('kept')}] };\n`);
    p.write('mcbridge.config.ts', source);
    const result = await t.reload();
    expect(result).toMatchObject({ ok: false, added: [], removed: [] });
    expect(result.error).toMatch(/mcbridge\.config\.ts: (is empty or exports nothing|Unrecognized key: "leftover")/);
    expect(await t.call('kept')).toBe('kept');
    const status = (await t.call('status')) as { config: { lastError?: string } };
    expect(status.config.lastError).toBe(result.error);
  });

  it('keeps an unchanged npm plugin running, and restarts it when its options change', async () => {
    const p = project();
    countingPlugin(p);
    const t = await start(p, "export default { plugins: [['counter', { label: 'a' }]], composites: [" + composite('one') + '] };\n');
    const base = counts();
    expect(await t.call('counter_label')).toBe('a');

    p.write('mcbridge.config.ts', "export default { plugins: [['counter', { label: 'a' }]], composites: [" + composite('two') + '] };\n');
    expect(await t.reload()).toMatchObject({ ok: true, added: ['two'], removed: ['one'] });
    expect(counts()).toEqual(base);

    p.write('mcbridge.config.ts', "export default { plugins: [['counter', { label: 'b' }]] };\n");
    expect(await t.reload()).toMatchObject({ ok: true });
    expect(counts()).toEqual({ setups: base.setups + 1, disposals: base.disposals + 1 });
    expect(await t.call('counter_label')).toBe('b');

    p.write('mcbridge.config.ts', 'export default {};\n');
    expect(await t.reload()).toMatchObject({ ok: true, removed: ['counter_label'] });
    expect(t.plugins().map((x) => x.name)).not.toContain('mcbridge-plugin-counter');
  });

  it('watches the file: a saved edit is live without a restart', async () => {
    const p = project();
    const t = await start(p, `export default { composites: [${composite('before_edit')}] };\n`, { watch: true });
    expect((await t.call('status')) as { config: { watching: boolean } }).toMatchObject({ config: { watching: true } });
    p.write('mcbridge.config.ts', `export default { composites: [${composite('before_edit')}, ${composite('after_edit')}] };\n`);
    await waitUntil(() => t.host.registry.get('after_edit') !== undefined, 10_000, 'the watcher to reload the config');
    expect(await t.call('after_edit')).toBe('after_edit');
  });
});

describe('reloads are serialised', () => {
  it('two saves in quick succession load one after the other, and the last one wins', async () => {
    const p = project();
    const t = await start(p, `export default { composites: [${composite('first')}] };\n`);
    const g = globalThis as { reloadActive?: number; reloadMax?: number };
    g.reloadActive = 0;
    g.reloadMax = 0;
    // Each load is slow and records how many loads were running at once. The worker that probes a
    // config first has globals of its own, without these counters (whatever thread the test runs in).
    const slow = (name: string) =>
      [
        'const g = globalThis;',
        "const counted = typeof g.reloadActive === 'number';",
        'if (counted) { g.reloadActive += 1; g.reloadMax = Math.max(g.reloadMax, g.reloadActive); }',
        'await new Promise((r) => setTimeout(r, 300));',
        'if (counted) g.reloadActive -= 1;',
        `export default { composites: [${composite(name)}] };`,
      ].join('\n');
    p.write('mcbridge.config.ts', slow('second'));
    const one = t.reload();
    p.write('mcbridge.config.ts', slow('third'));
    const two = t.reload();
    const [a, b] = await Promise.all([one, two]);
    expect(g.reloadMax).toBe(1);
    expect(a.ok && b.ok).toBe(true);
    expect(await t.call('third')).toBe('third');
    expect((await t.callError('second')).code).toBe('unknown_method');
  });
});

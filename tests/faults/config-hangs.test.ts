/**
 * Configs are code: one that never settles, spins forever or eats memory must be refused with a
 * message, at start and on reload, while the daemon keeps serving and later reloads still work.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../../core/testing/index.js';
import { runCli } from '../support/cli-process.js';
import { project, removeProjects, type Project } from '../support/config-project.js';

const HANGS = {
  'a top-level await that never settles': 'await new Promise(() => {});\nexport default {};\n',
  'an endless loop': 'for (;;) {}\nexport default {};\n',
} as const;

const composite = (name: string) => `{ name: '${name}', description: 'Composite ${name}.', uses: ['state'], run: async () => '${name}' }`;
const good = (name: string) => `export default { composites: [${composite(name)}] };\n`;

const hosts: TestHost[] = [];
/** A short bound only for the edit under test: a good config's first load may be slow on a busy machine. */
const bound = (seconds: string | undefined) => {
  if (seconds === undefined) delete process.env.MCBRIDGE_CONFIG_TIMEOUT;
  else process.env.MCBRIDGE_CONFIG_TIMEOUT = seconds;
};
afterEach(async () => {
  bound(undefined);
  for (const t of hosts.splice(0)) await t.close();
  removeProjects();
});

async function start(p: Project, source: string): Promise<TestHost> {
  const t = await startTestHost({ config: p.write('mcbridge.config.ts', source) });
  hosts.push(t);
  return t;
}

describe('a config that does not finish loading', () => {
  it.each(Object.entries(HANGS))('on reload, %s is refused; the daemon serves on and the next good edit loads', async (_what, source) => {
    const p = project();
    const t = await start(p, good('before'));
    p.write('mcbridge.config.ts', source);
    bound('2');
    const refused = await t.reload();
    bound(undefined);
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/mcbridge\.config\.ts: did not finish loading within 2 s/);
    expect(await t.call('before')).toBe('before');
    expect(await t.call('state')).toMatchObject({ type: 'state' });

    p.write('mcbridge.config.ts', good('after'));
    expect(await t.reload()).toMatchObject({ ok: true, added: ['after'], removed: ['before'] });
  });

  it('a config that allocates without end is refused, and the daemon lives', async () => {
    const p = project();
    const t = await start(p, good('before'));
    p.write('mcbridge.config.ts', 'const keep = []; for (;;) keep.push(new Array(1e6).fill(1));\nexport default {};\n');
    bound('20');
    const refused = await t.reload();
    expect(refused.error).toMatch(/ran out of memory while loading|did not finish loading/);
    expect(await t.call('before')).toBe('before');
  });

  it.each(Object.entries(HANGS))('at start, %s ends `mcbridge run` with exit 1 and a message naming the file', async (_what, source) => {
    const p = project();
    const file = p.write('mcbridge.config.ts', source);
    const run = await runCli(['run', '--sim', '--api-port', '0', '--config', file], { cwd: p.dir, env: { MCBRIDGE_CONFIG_TIMEOUT: '2' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('did not finish loading within 2 s');
    expect(run.stderr).toContain('mcbridge.config.ts');
  });
});

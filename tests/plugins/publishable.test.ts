/**
 * A built-in plugin is publishable unchanged: its compiled file, packed by npm as a package of its
 * own, installs into a server directory and loads by name beside nothing but mcbridge itself.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from 'mcbridge/testing';
import { project, REPO, removeProjects } from '../support/config-project.js';

const BUILT = path.join(REPO, 'dist/plugins/entities/index.js');
const NAME = 'mcbridge-plugin-entities-packed';
const scratch: string[] = [];
let host: TestHost | undefined;

afterAll(async () => {
  await host?.close();
  removeProjects();
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

/** `npm pack` a directory holding the compiled plugin and a package.json; the tarball's path. */
function pack(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-pack-'));
  scratch.push(dir);
  const pkg = path.join(dir, 'pkg');
  fs.mkdirSync(pkg);
  fs.copyFileSync(BUILT, path.join(pkg, 'index.js'));
  fs.writeFileSync(
    path.join(pkg, 'package.json'),
    JSON.stringify({
      name: NAME,
      version: '1.0.0',
      type: 'module',
      exports: { '.': './index.js' },
      peerDependencies: { mcbridge: '>=0.1.0', zod: '^4.0.0' },
    }),
  );
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: pkg, encoding: 'utf8' }).trim().split('\n').pop()!;
  return path.join(dir, out);
}

describe('a built-in plugin, packed as a package of its own', () => {
  it('installs from its tarball and serves its tool by name, with no built-ins loaded', async () => {
    expect(fs.existsSync(BUILT), `${BUILT} is missing: run \`npm run build\` first`).toBe(true);
    const tarball = pack();
    const p = project();
    const target = path.join(p.dir, 'node_modules', NAME);
    fs.mkdirSync(target, { recursive: true });
    // What `npm install <tarball>` lays down, without letting npm touch the linked node_modules.
    execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
    expect(fs.readFileSync(path.join(target, 'index.js'), 'utf8')).toBe(fs.readFileSync(BUILT, 'utf8'));

    const config = p.write('mcbridge.config.ts', `export default { plugins: ['${NAME}'] };\n`);
    host = await startTestHost({ config, builtins: false });
    expect(host.plugins()).toEqual([expect.objectContaining({ name: 'entities', source: 'npm', from: fs.realpathSync(target), state: 'loaded', tools: ['entities'] })]);
    expect(await host.available()).toEqual(['entities']);
    const before = host.sim.received.length;
    const pigs = await host.call('entities', { radius: 32, types: ['pig'] });
    expect(pigs).toMatchObject({ type: 'entities', total: 6, matched: 1, entities: [{ type: 'minecraft:pig' }] });
    expect(host.sim.received.slice(before)).toEqual(['ENTITIES 32.0']);
    const err = await host.callError('entities', { limit: 0 });
    expect(err).toMatchObject({ code: 'invalid_params' });
  });
});

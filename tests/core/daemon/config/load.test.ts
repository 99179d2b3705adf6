import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../core/daemon/config/errors.js';
import { loadConfig, SEARCH_PLACES } from '../../../../core/daemon/config/load.js';
import { project, removeProjects } from '../../../support/config-project.js';

afterEach(removeProjects);

async function loadError(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected the config to be refused');
}

const COMPOSITE = `{ name: 'hello', description: 'Says hello.', run: async () => 'hi' }`;

describe('config discovery and loaders', () => {
  const cases: Array<[string, string, Record<string, unknown>?]> = [
    ['mcbridge.config.ts', `import type { McbridgeConfig } from 'mcbridge';\nconst port: number = 9001;\nexport default { apiPort: port, composites: [${COMPOSITE}] } satisfies McbridgeConfig;\n`],
    ['mcbridge.config.mts', `import { defineConfig } from 'mcbridge';\nexport default defineConfig({ apiPort: 9001 as number, composites: [${COMPOSITE}] });\n`],
    ['mcbridge.config.cts', `const port: number = 9001;\nmodule.exports = { apiPort: port, composites: [${COMPOSITE}] };\n`],
    ['mcbridge.config.js', `export default { apiPort: 9001, composites: [${COMPOSITE}] };\n`],
    ['mcbridge.config.mjs', `import { defineConfig } from 'mcbridge';\nexport default defineConfig({ apiPort: 9001, composites: [${COMPOSITE}] });\n`],
    ['mcbridge.config.cjs', `module.exports = { apiPort: 9001, composites: [${COMPOSITE}] };\n`],
    ['mcbridge.config.js (CommonJS package)', `module.exports = { apiPort: 9001, composites: [${COMPOSITE}] };\n`, { type: 'commonjs' }],
  ];
  for (const [name, source, pkg] of cases) {
    it(`finds and loads ${name}`, async () => {
      const p = project({ packageJson: pkg ?? {} });
      const file = p.write(name.split(' ')[0]!, source);
      const loaded = await loadConfig({ cwd: p.dir });
      expect(loaded?.file).toBe(file);
      expect(loaded?.dir).toBe(p.dir);
      expect(loaded?.config.apiPort).toBe(9001);
      expect(loaded?.config.composites?.[0]).toMatchObject({ name: 'hello' });
    });
  }

  it('loads mcbridge.config.json and the "mcbridge" key of package.json', async () => {
    const json = project();
    json.write('mcbridge.config.json', JSON.stringify({ apiPort: 9002, deny: ['command'] }));
    expect((await loadConfig({ cwd: json.dir }))?.config).toEqual({ apiPort: 9002, deny: ['command'] });

    const pkg = project({ packageJson: { mcbridge: { readOnly: true, allow: ['state', 'entities'] } } });
    const loaded = await loadConfig({ cwd: pkg.dir });
    expect(loaded?.file).toBe(path.join(pkg.dir, 'package.json'));
    expect(loaded?.config).toEqual({ readOnly: true, allow: ['state', 'entities'] });
  });

  it('lets a TypeScript config import local .ts files', async () => {
    const p = project();
    p.write('tools/greeting.ts', `export const greeting = (name: string): string => \`hello \${name}\`;\n`);
    p.write(
      'mcbridge.config.ts',
      `import { greeting } from './tools/greeting.ts';\nimport { z } from 'zod';\nexport default { composites: [{ name: 'greet', description: 'Greets.', input: z.object({ name: z.string() }), run: async ({ args }: { args: { name: string } }) => greeting(args.name) }] };\n`,
    );
    const loaded = await loadConfig({ cwd: p.dir });
    const composite = loaded!.config.composites![0]!;
    expect(await composite.run({ args: { name: 'Alex' } } as never)).toBe('hello Alex');
  });

  it('prefers mcbridge.config.* over the package.json key, in the documented order', async () => {
    expect(SEARCH_PLACES[0]).toBe('mcbridge.config.ts');
    expect(SEARCH_PLACES.at(-1)).toBe('package.json');
    const p = project({ packageJson: { mcbridge: { apiPort: 1111 } } });
    p.write('mcbridge.config.mjs', 'export default { apiPort: 2222 };\n');
    p.write('mcbridge.config.ts', 'export default { apiPort: 3333 };\n');
    const loaded = await loadConfig({ cwd: p.dir });
    expect(loaded?.config.apiPort).toBe(3333);
    // What the search passed over, in search order, for `run` to warn of.
    expect(loaded?.passedOver).toEqual([path.join(p.dir, 'mcbridge.config.mjs'), path.join(p.dir, 'package.json')]);
    // Named with --config: nothing was passed over.
    expect(await loadConfig({ cwd: p.dir, file: 'mcbridge.config.mjs' })).not.toHaveProperty('passedOver');
  });

  it('searches up from a subdirectory and stops at the project root (the first package.json)', async () => {
    const p = project();
    p.write('mcbridge.config.mjs', 'export default { apiPort: 4444 };\n');
    fs.mkdirSync(path.join(p.dir, 'a/b'), { recursive: true });
    expect((await loadConfig({ cwd: path.join(p.dir, 'a/b') }))?.config.apiPort).toBe(4444);

    const inner = path.join(p.dir, 'packages/inner');
    p.write('packages/inner/package.json', '{"name": "inner"}');
    expect(await loadConfig({ cwd: inner })).toBeNull();
  });

  it('skips an empty config file and finds the next place', async () => {
    const p = project({ packageJson: { mcbridge: { apiPort: 5555 } } });
    p.write('mcbridge.config.ts', '');
    p.write('mcbridge.config.json', '');
    const loaded = await loadConfig({ cwd: p.dir });
    expect(loaded?.config.apiPort).toBe(5555);
    // Empty files are no config: nothing to warn of.
    expect(loaded).not.toHaveProperty('passedOver');
  });

  it('passes over nothing in a folder of one config, nor a package.json without the "mcbridge" key', async () => {
    const p = project();
    p.write('mcbridge.config.mjs', 'export default { apiPort: 7777 };\n');
    fs.mkdirSync(path.join(p.dir, 'sub'));
    p.write('sub/mcbridge.config.ts', 'export default { apiPort: 8888 };\n');
    expect(await loadConfig({ cwd: p.dir })).not.toHaveProperty('passedOver');
    // A config in the folder above is another folder's: not "two in one folder".
    expect(await loadConfig({ cwd: path.join(p.dir, 'sub') })).not.toHaveProperty('passedOver');
  });

  it('returns null when there is no config', async () => {
    expect(await loadConfig({ cwd: project().dir })).toBeNull();
  });

  it('loads the file --config names, wherever it is', async () => {
    const p = project();
    const file = p.write('configs/staging.config.ts', 'export default { apiPort: 6666 };\n');
    const loaded = await loadConfig({ cwd: p.dir, file: 'configs/staging.config.ts' });
    expect(loaded).toMatchObject({ file, dir: path.dirname(file), config: { apiPort: 6666 } });
  });

  it('sees an edit on the next load (no module cache), for every module kind', async () => {
    for (const [file, v1, v2] of [
      ['mcbridge.config.mjs', 'export default { apiPort: 7101 };', 'export default { apiPort: 7102 };'],
      ['mcbridge.config.cjs', 'module.exports = { apiPort: 7101 };', 'module.exports = { apiPort: 7102 };'],
      ['mcbridge.config.js', 'export default { apiPort: 7101 };', 'export default { apiPort: 7102 };'],
    ] as const) {
      const p = project();
      p.write(file, v1);
      expect((await loadConfig({ cwd: p.dir }))?.config.apiPort).toBe(7101);
      p.write(file, v2);
      expect((await loadConfig({ cwd: p.dir }))?.config.apiPort, file).toBe(7102);
    }
    const p = project();
    p.write('helper.ts', 'export const port = 7001;\n');
    p.write('mcbridge.config.ts', "import { port } from './helper.ts';\nexport default { apiPort: port };\n");
    expect((await loadConfig({ cwd: p.dir }))?.config.apiPort).toBe(7001);
    p.write('helper.ts', 'export const port = 7002;\n');
    expect((await loadConfig({ cwd: p.dir }))?.config.apiPort).toBe(7002);
  });
});

describe('invalid configs name the file, the path inside it and what is expected', () => {
  it('a value of the wrong type', async () => {
    const p = project();
    p.write('mcbridge.config.ts', "export default { apiPort: '8765', readOnly: 'yes' };\n");
    const error = await loadError(loadConfig({ cwd: p.dir }));
    expect(error.code).toBe('invalid_params');
    expect(error.message).toMatch(/(^|\/)mcbridge\.config\.ts: apiPort: Invalid input: expected number, received string$/m);
    expect(error.message).toMatch(/(^|\/)mcbridge\.config\.ts: readOnly: Invalid input: expected boolean, received string$/m);
    expect(error.problems.map((x) => x.path)).toEqual(['apiPort', 'readOnly']);
  });

  it('a misspelt key', async () => {
    const p = project();
    p.write('mcbridge.config.mjs', 'export default { readonly: true };\n');
    const error = await loadError(loadConfig({ cwd: p.dir }));
    expect(error.message).toMatch(/mcbridge\.config\.mjs: Unrecognized key: "readonly"/);
  });

  it('a bad element deep inside a list', async () => {
    const p = project();
    p.write('mcbridge.config.json', JSON.stringify({ deny: ['state', ''] }));
    const error = await loadError(loadConfig({ cwd: p.dir }));
    expect(error.message).toMatch(/mcbridge\.config\.json: deny\[1\]: must be a tool name or glob/);
  });

  it('an export that is not an object', async () => {
    const p = project();
    p.write('mcbridge.config.mjs', 'export default () => ({});\n');
    expect((await loadError(loadConfig({ cwd: p.dir }))).message).toMatch(/mcbridge\.config\.mjs: exports a function; export the config object itself/);
    p.write('mcbridge.config.mjs', 'export default [1, 2];\n');
    expect((await loadError(loadConfig({ cwd: p.dir }))).message).toMatch(/must export an object .* got an array/);
  });

  it('a file that does not parse', async () => {
    const p = project();
    p.write('mcbridge.config.ts', 'export default { apiPort: 1, ;\n');
    expect((await loadError(loadConfig({ cwd: p.dir }))).message).toMatch(/\/mcbridge\.config\.ts: could not be loaded: ParseError/);
    const json = project();
    json.write('mcbridge.config.json', '{ "apiPort": 1, }');
    expect((await loadError(loadConfig({ cwd: json.dir }))).message).toMatch(/mcbridge\.config\.json: could not be loaded: /);
  });

  it('a --config file that does not exist, or a package.json without the key', async () => {
    const p = project();
    expect((await loadError(loadConfig({ cwd: p.dir, file: 'missing.config.ts' }))).message).toMatch(/missing\.config\.ts: does not exist/);
    expect((await loadError(loadConfig({ cwd: p.dir, file: 'package.json' }))).message).toMatch(/package\.json: has no "mcbridge" key/);
  });
});

/**
 * `mcbridge create-plugin` writes exactly the package docs/plugins.md shows, and it builds, passes
 * its own test and serves its tool from a daemon; `mcbridge init` writes a config that `run --sim`
 * and `config` load in a directory with nothing installed. Neither ever overwrites a file.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startTestHost } from '../../../../core/testing/index.js';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { REPO } from '../../../support/config-project.js';
import { waitUntil } from '../../../support/helpers.js';

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-authoring-')));
const processes = new CliProcesses();

afterEach(() => processes.stopAll());
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** The code block that follows the line "`<file>`:" in docs/plugins.md. */
function documented(file: string): string {
  const docs = fs.readFileSync(path.join(REPO, 'docs/plugins.md'), 'utf8');
  const at = docs.indexOf(`\`${file}\`:\n\n\`\`\``);
  expect(at, `docs/plugins.md shows ${file}`).toBeGreaterThan(0);
  const start = docs.indexOf('\n', docs.indexOf('```', at)) + 1;
  return docs.slice(start, docs.indexOf('```', start));
}

function link(dir: string, name: string, target: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, 'node_modules', name)), { recursive: true });
  fs.symlinkSync(target, path.join(dir, 'node_modules', name), 'dir');
}

/** The ```ts block of a README. */
function readmeSnippet(readme: string): string {
  const start = readme.indexOf('```ts\n');
  expect(start, 'the README shows a config').toBeGreaterThan(0);
  return readme.slice(start + 6, readme.indexOf('```', start + 6));
}

describe('mcbridge create-plugin', () => {
  const written = path.join(scratch, 'mcbridge-plugin-weather');
  // Where the package is used from: moved after it was written, as a shared or copied folder is.
  const dir = path.join(scratch, 'elsewhere', 'weather');

  it('writes the package of docs/plugins.md, file for file, with no path of this machine in it', async () => {
    const run = await runCli(['create-plugin', 'weather'], { cwd: scratch });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ package: 'mcbridge-plugin-weather', dir: written });
    // This machine's copy of mcbridge is named in the hint, never in a file.
    expect(run.stderr).toContain(`npm install --no-save ${JSON.stringify(REPO)} && npm install && npm test`);
    const files = ['package.json', 'tsconfig.json', 'src/index.ts', 'test/plugin.test.ts', 'README.md', '.gitignore'];
    for (const file of files) {
      const text = fs.readFileSync(path.join(written, file), 'utf8');
      expect(text, file).not.toContain(REPO);
      expect(text, file).not.toContain(scratch);
      expect(text, file).not.toMatch(/file:/);
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(written, 'package.json'), 'utf8'));
    expect(manifest).toEqual(JSON.parse(documented('package.json')));
    expect(manifest).toMatchObject({ type: 'module', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } }, peerDependencies: { mcbridge: expect.stringMatching(/^\^0\./) } });
    expect(manifest.devDependencies).not.toHaveProperty('mcbridge');
    for (const file of ['tsconfig.json', 'src/index.ts', 'test/plugin.test.ts']) {
      expect(fs.readFileSync(path.join(written, file), 'utf8'), file).toBe(documented(file));
    }
    fs.mkdirSync(path.dirname(dir));
    fs.renameSync(written, dir);
  });

  it("compiles its README's config snippet as written, against mcbridge's types", () => {
    const server = path.join(scratch, 'typed-server');
    fs.mkdirSync(server);
    fs.writeFileSync(path.join(server, 'package.json'), '{ "type": "module" }\n');
    fs.writeFileSync(path.join(server, 'mcbridge.config.ts'), readmeSnippet(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')));
    link(server, 'mcbridge', REPO);
    const tsc = path.join(REPO, 'node_modules/typescript/bin/tsc');
    const flags = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', 'mcbridge.config.ts'];
    execFileSync(process.execPath, [tsc, ...flags], { cwd: server, stdio: 'pipe' });
  }, 60_000);

  it('builds with tsc and passes its own test with vitest, after the move', () => {
    // What `npm install` lays down from its devDependencies, linked to this repository's copies.
    link(dir, 'mcbridge', REPO);
    for (const name of ['zod', 'vitest', '@types/node']) link(dir, name, fs.realpathSync(path.join(REPO, 'node_modules', name)));
    execFileSync(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir, stdio: 'pipe' });
    expect(fs.existsSync(path.join(dir, 'dist/index.js'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'dist/index.d.ts'))).toBe(true);
    const out = execFileSync(process.execPath, [path.join(dir, 'node_modules/vitest/vitest.mjs'), 'run'], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    expect(out).toMatch(/3 passed/);
  }, 120_000);

  it('loads into a daemon by name from a server directory, and by path from a config', async () => {
    const server = path.join(scratch, 'server');
    fs.mkdirSync(server);
    link(server, 'mcbridge-plugin-weather', dir);
    const byName = path.join(server, 'mcbridge.config.ts');
    fs.writeFileSync(byName, "export default { plugins: [['weather', { greeting: 'Hi' }]] };\n");
    const t = await startTestHost({ config: byName, builtins: false, sim: { players: [{ name: 'Alex' }] } });
    try {
      expect(t.plugins()).toEqual([expect.objectContaining({ name: 'mcbridge-plugin-weather', source: 'npm', state: 'loaded' })]);
      expect(await t.call('weather_greet')).toEqual({ greetings: ['Hi, Alex!'] });
    } finally {
      await t.close();
    }
    const byPath = path.join(scratch, 'by-path.config.ts');
    fs.writeFileSync(byPath, `import weather from ${JSON.stringify(path.join(dir, 'dist/index.js'))};\nexport default { plugins: [weather] };\n`);
    const p = await startTestHost({ config: byPath, builtins: false });
    try {
      expect(await p.call('weather_greet')).toEqual({ greetings: ['Hello, Steve!'] });
    } finally {
      await p.close();
    }
  }, 60_000);

  it('refuses to write over an existing package (exit 1, invalid_params), and bad names are usage errors (exit 2)', async () => {
    const before = fs.readFileSync(path.join(dir, 'src/index.ts'), 'utf8');
    fs.writeFileSync(path.join(dir, 'src/index.ts'), before + '// edited\n');
    const again = await runCli(['create-plugin', 'weather', '--dir', dir], { cwd: scratch });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/package\.json, .*src\/index\.ts.* already exist; nothing was written\. .*\[invalid_params\]/);
    expect(fs.readFileSync(path.join(dir, 'src/index.ts'), 'utf8')).toBe(before + '// edited\n');
    const bad = await runCli(['create-plugin', 'Bad Name!'], { cwd: scratch });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("'Bad Name!' is not a package name");
  });
});

describe('mcbridge init', () => {
  it('writes a commented config that `config` shows and `run --sim` serves, with nothing installed', async () => {
    const server = path.join(scratch, 'fresh-server');
    fs.mkdirSync(server);
    const init = await runCli(['init'], { cwd: server });
    expect(init.code).toBe(0);
    const file = path.join(server, 'mcbridge.config.ts');
    expect(JSON.parse(init.stdout)).toEqual({ file });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toMatch(/^\/\*\*\n \* mcbridge's config for this server directory/);
    expect(text).toContain("// deny: ['command'],");

    const shown = await runCli(['config'], { cwd: server });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ file, composites: [{ name: 'online_players', requires: ['state'] }] });

    const { child, out } = processes.start(['run', '--sim', '--api-port', '0'], { cwd: server });
    let port = 0;
    await waitUntil(
      () => {
        if (child.exitCode !== null) throw new Error(`run exited: ${out.stderr}`);
        port = Number(/mcbridge daemon listening on [^"]*:(\d+)"/.exec(out.stderr)?.[1] ?? 0);
        return port > 0 && out.stderr.includes('connected to server mod');
      },
      30_000,
      'the daemon to start',
    );
    const call = await runCli(['call', 'online_players', '--api-port', String(port)]);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toEqual(['Steve']);

    const again = await runCli(['init'], { cwd: server });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${file} already exists; nothing was written.`);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  }, 60_000);
});

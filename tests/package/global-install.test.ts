/**
 * The README's install: the package packed with `npm pack`, installed globally (here into a temp
 * prefix), and its `mcbridge` command run from a directory that has nothing installed: the daemon
 * on the sim, a call, and the MCP server answering the real SDK client, as the README's client
 * configs start it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcesses, runCli } from '../support/cli-process.js';
import { REPO } from '../support/config-project.js';
import { startDaemonProcess } from '../faults/support.js';

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-install-')));
const prefix = path.join(scratch, 'prefix');
const elsewhere = path.join(scratch, 'somewhere-else');
const bin = path.join(prefix, 'bin', 'mcbridge');
const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Record<string, any>;
let tarball = '';
let processes: CliProcesses;

beforeAll(() => {
  fs.mkdirSync(elsewhere);
  // --ignore-scripts: prepack would rebuild dist/ under the other test files; `npm test` built it.
  const name = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', scratch], { cwd: REPO, encoding: 'utf8' }).trim().split('\n').pop()!;
  tarball = path.join(scratch, name);
  // Dependencies come from npm's cache where it has them (npm ci filled it), else the registry.
  execFileSync('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error', tarball], {
    cwd: elsewhere,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  processes = new CliProcesses({ bin, cwd: elsewhere });
}, 300_000);

afterAll(async () => {
  await processes?.stopAll();
  fs.rmSync(scratch, { recursive: true, force: true });
});

function packedFiles(): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((f) => f.replace(/^package\//, ''));
}

describe('the packed package', () => {
  it('ships the CLI, the build, the docs and the examples the README links to, and no tests or bench build', () => {
    const files = packedFiles();
    for (const file of [
      'bin/mcbridge.js',
      'dist/core/frontends/cli/main.js',
      'dist/core/index.d.ts',
      'docs/plugins.md',
      'docs/protocol.md',
      'examples/webhook-receiver.mjs',
      'examples/mcbridge-plugin-sky/src/index.ts',
      'mcbridge.config.ts',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'CONTRIBUTING.md',
      'docs/architecture.md',
    ]) {
      expect(files, file).toContain(file);
    }
    expect(files.filter((f) => f.startsWith('tests/') || f.startsWith('dist/tests/') || f.includes('node_modules/'))).toEqual([]);
  });

  it('names its repository and runs no build script when users install it', () => {
    expect(manifest.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\//) });
    expect(manifest.scripts).not.toHaveProperty('prepare');
    expect(manifest.scripts).not.toHaveProperty('install');
    expect(manifest.scripts).not.toHaveProperty('postinstall');
    expect(manifest.scripts.prepack).toBe('npm run build');
  });
});

describe('`mcbridge` installed globally, run from another directory', () => {
  it("is a command on the prefix's PATH that knows its version", async () => {
    expect(fs.realpathSync(bin)).toBe(path.join(prefix, 'lib/node_modules/mcbridge/bin/mcbridge.js'));
    const run = await runCli(['--version'], { bin, cwd: elsewhere });
    expect(run).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
  });

  it('loads a config that imports mcbridge, mcbridge/kit and zod, with nothing installed beside it', async () => {
    const server = path.join(scratch, 'server');
    fs.mkdirSync(server);
    fs.writeFileSync(
      path.join(server, 'mcbridge.config.ts'),
      [
        "import { z } from 'zod';",
        "import { defineComposite, defineConfig } from 'mcbridge';",
        "import { lineText } from 'mcbridge/kit';",
        "export default defineConfig({ composites: [defineComposite({ name: 'say_back', description: 'Says it back.', input: z.object({ text: lineText('text', '\"hi\"') }), run: async ({ args }) => args.text })] });",
        '',
      ].join('\n'),
    );
    const run = await runCli(['config'], { bin, cwd: server });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ composites: [{ name: 'say_back' }] });
  });

  it('runs the daemon on the sim, answers `call state`, and serves MCP to the SDK client', async () => {
    const daemon = await startDaemonProcess(processes, ['--sim']);
    const call = await runCli(['call', 'state', '--api-port', String(daemon.port)], { bin, cwd: elsewhere });
    expect(call.stderr).toBe('');
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ type: 'state', playerList: [{ name: 'Steve' }] });

    // What an `mcpServers` entry with "command": "mcbridge" starts.
    const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--api-port', String(daemon.port)], cwd: elsewhere, stderr: 'pipe' });
    const client = new Client({ name: 'install-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      // The bundled front-end finds the installed package's version (it once said 0.0.0).
      expect(client.getServerVersion()).toMatchObject({ name: 'mcbridge', version: manifest.version });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['mc_status', 'mc_state', 'mc_entities']));
      const result = await client.callTool({ name: 'mc_state', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ type: 'state' });
    } finally {
      await client.close();
    }
  }, 60_000);
});

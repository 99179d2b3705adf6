/**
 * docs/cli.md "Global options and the config": `call`, `tools`, `plugins`, `watch`, `mcp` and `forward`
 * reach the daemon the config names (apiHost, apiPort, apiToken), unless MCBRIDGE_API_* (or the
 * predecessor's MC_AGENT_API_*) or a flag says otherwise.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { literalKeys } from '../../../../core/frontends/cli/client-config.js';
import { findConfigFile } from '../../../../core/daemon/config/places.js';
import { runCli } from '../../../support/cli-process.js';
import { project, removeProjects } from '../../../support/config-project.js';
import { freePort, startStack, type Stack } from '../../../support/helpers.js';

const TOKEN = 'client-config-token-0123';
const stacks: Stack[] = [];
afterEach(async () => {
  for (const stack of stacks.splice(0)) await stack.close();
});
afterAll(() => removeProjects());

/** A daemon on a port nobody would guess, requiring a token. */
async function daemon(): Promise<number> {
  const stack = await startStack({ daemon: { api: { port: 0, token: TOKEN } } });
  stacks.push(stack);
  return stack.daemon.apiAddress.port;
}

/** No variable from the test runner's environment may decide the outcome. */
const clean = { MCBRIDGE_API_PORT: '', MCBRIDGE_API_HOST: '', MC_AGENT_API_PORT: '', MC_AGENT_API_HOST: '', MCBRIDGE_API_TOKEN: '' };

describe('client commands read the config', { timeout: 60_000 }, () => {
  it('apiPort and apiToken from mcbridge.config.json, found from a subdirectory', async () => {
    const port = await daemon();
    const p = project({ install: false });
    p.write('mcbridge.config.json', JSON.stringify({ apiPort: port, apiToken: TOKEN }));
    fs.mkdirSync(path.join(p.dir, 'scripts'));
    const status = await runCli(['call', 'status'], { cwd: path.join(p.dir, 'scripts'), env: clean });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).api.port).toBe(port);
    const tools = await runCli(['tools'], { cwd: p.dir, env: clean });
    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(/available\s+state/);
  });

  it('the "mcbridge" key of package.json', async () => {
    const port = await daemon();
    const p = project({ install: false, packageJson: { mcbridge: { apiPort: port, apiToken: TOKEN } } });
    const ping = await runCli(['call', 'ping'], { cwd: p.dir, env: clean });
    expect(ping.code).toBe(0);
  });

  it('a TypeScript config that sets apiPort is evaluated', async () => {
    const port = await daemon();
    const p = project();
    p.write('mcbridge.config.ts', `const port: number = ${port};\nexport default { apiPort: port, apiToken: '${TOKEN}' };\n`);
    const ping = await runCli(['call', 'ping'], { cwd: p.dir, env: clean });
    expect(ping.stderr).toBe('');
    expect(ping.code).toBe(0);
  });

  it('a TypeScript config that names none of the client keys is not evaluated at all', async () => {
    const port = await daemon();
    const p = project();
    // Evaluating this would fail the command.
    p.write('mcbridge.config.ts', `throw new Error('evaluated');\nexport default {};\n`);
    const ping = await runCli(['call', 'ping', '--api-port', String(port)], { cwd: p.dir, env: { ...clean, MCBRIDGE_API_TOKEN: TOKEN } });
    expect(ping.stderr).toBe('');
    expect(ping.code).toBe(0);
  });

  it('a TypeScript config that gives them as literals is read without running it', async () => {
    const port = await daemon();
    const p = project();
    // Evaluating this would fail the command.
    p.write('mcbridge.config.ts', `throw new Error('evaluated');\n// apiPort: 1\nexport default {\n  apiPort: ${port},\n  apiToken: '${TOKEN}',\n  logLevel: undefined,\n};\n`);
    const ping = await runCli(['call', 'ping'], { cwd: p.dir, env: clean });
    expect(ping.stderr).toBe('');
    expect(ping.code).toBe(0);
  });

  it('precedence: the flag, then MCBRIDGE_API_PORT, then MC_AGENT_API_PORT, then the config', async () => {
    const port = await daemon();
    const nobody = String(await freePort());
    const p = project({ install: false });
    p.write('mcbridge.config.json', JSON.stringify({ apiPort: Number(nobody), apiToken: TOKEN }));
    const call = (args: string[], env: Record<string, string>) => runCli(['call', 'ping', ...args], { cwd: p.dir, env: { ...clean, ...env } });

    expect((await call([], {})).code).toBe(3); // the config's port: nobody there
    expect((await call([], { MC_AGENT_API_PORT: String(port) })).code).toBe(0);
    expect((await call([], { MCBRIDGE_API_PORT: String(port), MC_AGENT_API_PORT: nobody })).code).toBe(0);
    const flagWins = await call(['--api-port', nobody], { MCBRIDGE_API_PORT: String(port) });
    expect(flagWins.code).toBe(3);
    expect(flagWins.stderr).toContain(`127.0.0.1:${nobody}`);
    expect((await call(['--api-port', String(port)], { MCBRIDGE_API_PORT: nobody })).code).toBe(0);
  });

  it('MCBRIDGE_API_HOST and MC_AGENT_API_HOST name the address', async () => {
    const port = String(await freePort());
    const p = project({ install: false });
    const legacy = await runCli(['call', 'ping', '--api-port', port], { cwd: p.dir, env: { ...clean, MC_AGENT_API_HOST: '127.0.0.9' } });
    expect(legacy.stderr).toContain(`127.0.0.9:${port}`);
    const ours = await runCli(['call', 'ping', '--api-port', port], { cwd: p.dir, env: { ...clean, MCBRIDGE_API_HOST: '127.0.0.8', MC_AGENT_API_HOST: '127.0.0.9' } });
    expect(ours.stderr).toContain(`127.0.0.8:${port}`);
  });

  it('a bad value is refused, naming where it came from', async () => {
    const p = project({ install: false });
    p.write('mcbridge.config.json', JSON.stringify({ apiPort: 'eighty' }));
    const fromConfig = await runCli(['call', 'ping'], { cwd: p.dir, env: clean });
    expect(fromConfig.code).toBe(1);
    expect(fromConfig.stderr).toMatch(/mcbridge\.config\.json: apiPort: .*--api-port/);
    const fromEnv = await runCli(['call', 'ping'], { cwd: p.dir, env: { ...clean, MCBRIDGE_API_PORT: 'x' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(/^error: MCBRIDGE_API_PORT: expected a TCP port/m);
  });
});

describe('findConfigFile', () => {
  it('stops at the project root, as `run` does', () => {
    const outer = project({ install: false });
    outer.write('mcbridge.config.json', '{}');
    const inner = path.join(outer.dir, 'inner');
    fs.mkdirSync(inner);
    fs.writeFileSync(path.join(inner, 'package.json'), '{}');
    expect(findConfigFile(inner)).toBeNull();
    expect(findConfigFile(outer.dir)).toBe(path.join(outer.dir, 'mcbridge.config.json'));
    fs.writeFileSync(path.join(inner, 'mcbridge.config.mjs'), 'export default {};');
    expect(findConfigFile(inner)).toBe(path.join(inner, 'mcbridge.config.mjs'));
  });
});

describe('literalKeys', () => {
  it.each([
    ["export default { apiPort: 9000, apiHost: '127.0.0.2' }", { apiPort: 9000, apiHost: '127.0.0.2' }],
    ['export default defineConfig({\n  apiToken: undefined,\n  deny: ["mark"],\n});', {}],
    ['/* apiHost: "x" */ // apiPort: 1\nexport default { url: "http://x.org", logLevel: "debug" }', { logLevel: 'debug' }],
    ['export default { plugins: [] }', {}],
  ])('reads %j without running it', (source, values) => {
    expect(literalKeys(source)).toEqual(values);
  });

  it.each([
    'const port = 1; export default { apiPort: port }',
    'const apiPort = 1; export default { apiPort }',
    'export default { apiToken: process.env.T }',
    'export default { ...shared, apiPort: 1, nested: { apiPort: 2 } }',
  ])('leaves %j to evaluation', (source) => {
    expect(literalKeys(source)).toBeNull();
  });
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT_PORT, readPortFile, resolvePort } from '../../../../core/host/link/discovery.js';

let root: string;
/** An empty environment, so the developer's own MC_AGENT_* variables never leak in. */
const noEnv: NodeJS.ProcessEnv = {};

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'mcbridge-discovery-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(relative: string, content: string): Promise<string> {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

describe('readPortFile', () => {
  it('reads the bare port the mod writes (no trailing newline)', async () => {
    const file = await put('port.txt', '25581');
    expect(readPortFile(file)).toEqual({ kind: 'ok', port: 25581 });
  });

  it('accepts a trailing newline and surrounding whitespace', async () => {
    expect(readPortFile(await put('a.txt', '25581\n'))).toEqual({ kind: 'ok', port: 25581 });
    expect(readPortFile(await put('b.txt', '  25582\r\n'))).toEqual({ kind: 'ok', port: 25582 });
  });

  it('reports a missing file as missing, not as a problem', () => {
    expect(readPortFile(path.join(root, 'nope', 'port.txt'))).toEqual({ kind: 'missing' });
  });

  it('treats a path through a regular file as missing (ENOTDIR)', async () => {
    await put('file', 'x');
    expect(readPortFile(path.join(root, 'file', 'port.txt'))).toEqual({ kind: 'missing' });
  });

  it('reports a directory in place of the file as unreadable', async () => {
    await mkdir(path.join(root, 'port.txt'));
    const read = readPortFile(path.join(root, 'port.txt'));
    expect(read.kind).toBe('bad');
    expect(read.kind === 'bad' && read.problem).toMatch(/^cannot be read \(/);
  });

  it('rejects content that is not a number, quoting it', async () => {
    const read = readPortFile(await put('port.txt', 'not-a-port\n'));
    expect(read).toEqual({ kind: 'bad', problem: "does not contain a port number (found 'not-a-port')" });
  });

  it('reads a leading plus sign, but no other text around the digits', async () => {
    expect(readPortFile(await put('plus.txt', '+25581'))).toEqual({ kind: 'ok', port: 25581 });
    expect(readPortFile(await put('word.txt', 'port 25581'))).toEqual({ kind: 'bad', problem: "does not contain a port number (found 'port 25581')" });
  });

  it('quotes at most 40 characters of what it found', async () => {
    const read = readPortFile(await put('long.txt', 'x'.repeat(39) + 'yz' + 'w'.repeat(1000)));
    expect(read).toEqual({ kind: 'bad', problem: `does not contain a port number (found '${'x'.repeat(39)}y')` });
  });

  it('rejects an empty file', async () => {
    const read = readPortFile(await put('port.txt', ''));
    expect(read.kind).toBe('bad');
    expect(read.kind === 'bad' && read.problem).toContain("found ''");
  });

  it.each([
    ['70000', 'contains 70000, which is not a valid TCP port (1-65535)'],
    ['0', 'contains 0, which is not a valid TCP port (1-65535)'],
  ])('rejects the out-of-range port %s', async (content, problem) => {
    expect(readPortFile(await put('port.txt', content))).toEqual({ kind: 'bad', problem });
  });

  it.each(['-5', '25581.5', '0x63dd', '255 81'])('rejects %j', async (content) => {
    expect(readPortFile(await put('port.txt', content)).kind).toBe('bad');
  });
});

describe('resolvePort: explicit port', () => {
  it('uses a valid --mod-port without touching the file system', async () => {
    await put('mc-agent-server/port.txt', '30000');
    const r = resolvePort({ vantage: 'server', modPort: 25581, cwd: root, env: { MC_AGENT_PORT_FILE: path.join(root, 'x') } });
    expect(r).toEqual({ vantage: 'server', port: 25581, source: 'argument', checked: [], error: null, resolved: true });
  });

  it.each([0, 70000, -1, 1.5])('refuses --mod-port %s and says which flag is wrong', (modPort) => {
    const r = resolvePort({ vantage: 'server', modPort, cwd: root, env: noEnv });
    expect(r.resolved).toBe(false);
    expect(r.port).toBeNull();
    expect(r.source).toBe('argument');
    expect(r.checked).toEqual([]);
    expect(r.error).toContain('--mod-port');
    expect(r.error).toContain('1-65535');
  });

  it('accepts the edges of the port range', () => {
    expect(resolvePort({ vantage: 'server', modPort: 1, cwd: root, env: noEnv }).port).toBe(1);
    expect(resolvePort({ vantage: 'server', modPort: 65535, cwd: root, env: noEnv }).port).toBe(65535);
  });

  it('also wins on the client vantage', () => {
    const r = resolvePort({ vantage: 'client', modPort: 4000, cwd: root, env: noEnv });
    expect(r).toMatchObject({ vantage: 'client', port: 4000, source: 'argument', resolved: true });
  });
});

describe('resolvePort: explicit port file', () => {
  it('reads --port-file and beats discovery', async () => {
    await put('mc-agent-server/port.txt', '30000');
    const file = await put('elsewhere/p.txt', '25590');
    const r = resolvePort({ vantage: 'server', portFile: file, cwd: root, env: noEnv });
    expect(r).toEqual({ vantage: 'server', port: 25590, source: `port-file:${file}`, checked: [file], error: null, resolved: true });
  });

  it('resolves a relative --port-file against cwd', async () => {
    const file = await put('elsewhere/p.txt', '25590\n');
    const r = resolvePort({ vantage: 'server', portFile: 'elsewhere/p.txt', cwd: root, env: noEnv });
    expect(r.port).toBe(25590);
    expect(r.source).toBe(`port-file:${file}`);
  });

  it('reads MC_AGENT_PORT_FILE from the env it is given', async () => {
    await put('mc-agent-server/port.txt', '30000');
    const file = await put('env/p.txt', '25591');
    const r = resolvePort({ vantage: 'server', cwd: root, env: { MC_AGENT_PORT_FILE: file } });
    expect(r).toMatchObject({ port: 25591, source: `port-file:${file}`, checked: [file], resolved: true });
  });

  it('prefers --port-file over MC_AGENT_PORT_FILE', async () => {
    const flag = await put('flag.txt', '25592');
    const env = await put('env.txt', '25593');
    const r = resolvePort({ vantage: 'server', portFile: flag, cwd: root, env: { MC_AGENT_PORT_FILE: env } });
    expect(r.port).toBe(25592);
  });

  it('ignores an empty MC_AGENT_PORT_FILE', async () => {
    await put('mc-agent-server/port.txt', '25594');
    const r = resolvePort({ vantage: 'server', cwd: root, env: { MC_AGENT_PORT_FILE: '' } });
    expect(r.port).toBe(25594);
  });

  it('does not fall through to discovery when the explicit file is missing', async () => {
    await put('mc-agent-server/port.txt', '30000');
    const file = path.join(root, 'missing.txt');
    const r = resolvePort({ vantage: 'server', portFile: file, cwd: root, env: noEnv });
    expect(r).toEqual({
      vantage: 'server',
      port: null,
      source: 'port-file',
      checked: [file],
      error: `the port file '${file}' does not exist`,
      resolved: false,
    });
  });

  it('reports an invalid explicit file with its path and content', async () => {
    const file = await put('bad.txt', 'not-a-port');
    const r = resolvePort({ vantage: 'server', cwd: root, env: { MC_AGENT_PORT_FILE: file } });
    expect(r.resolved).toBe(false);
    expect(r.port).toBeNull();
    expect(r.error).toContain(file);
    expect(r.error).toContain('not-a-port');
  });

  it('also applies on the client vantage (no default-client fallback)', async () => {
    const file = path.join(root, 'missing.txt');
    const r = resolvePort({ vantage: 'client', portFile: file, cwd: root, env: noEnv });
    expect(r).toMatchObject({ resolved: false, port: null, source: 'port-file' });
  });
});

describe('resolvePort: server vantage discovery', () => {
  it('finds <cwd>/mc-agent-server/port.txt by default', async () => {
    const file = await put('mc-agent-server/port.txt', '25581');
    const r = resolvePort({ vantage: 'server', cwd: root, env: noEnv });
    expect(r).toEqual({ vantage: 'server', port: 25581, source: `port-file:${file}`, checked: [file], error: null, resolved: true });
  });

  it('accepts a port file with a trailing newline', async () => {
    await put('mc-agent-server/port.txt', '25581\n');
    expect(resolvePort({ vantage: 'server', cwd: root, env: noEnv }).port).toBe(25581);
  });

  it('takes --server-dir as the game dir', async () => {
    const file = await put('game/mc-agent-server/port.txt', '25583');
    const r = resolvePort({ vantage: 'server', serverDir: path.join(root, 'game'), cwd: os.tmpdir(), env: noEnv });
    expect(r.port).toBe(25583);
    expect(r.source).toBe(`port-file:${file}`);
  });

  it('resolves a relative --server-dir against cwd', async () => {
    await put('game/mc-agent-server/port.txt', '25583');
    expect(resolvePort({ vantage: 'server', serverDir: 'game', cwd: root, env: noEnv }).port).toBe(25583);
  });

  it('takes --server-dir as the mod dir (<dir>/port.txt) when it was named', async () => {
    const file = await put('game/mc-agent-server/port.txt', '25584');
    const dir = path.dirname(file);
    const r = resolvePort({ vantage: 'server', serverDir: dir, cwd: root, env: noEnv });
    expect(r.port).toBe(25584);
    expect(r.source).toBe(`port-file:${file}`);
    expect(r.checked).toEqual([path.join(dir, 'mc-agent-server', 'port.txt'), file]);
  });

  it('prefers <dir>/mc-agent-server/port.txt over <dir>/port.txt', async () => {
    await put('game/port.txt', '25000');
    await put('game/mc-agent-server/port.txt', '25585');
    expect(resolvePort({ vantage: 'server', serverDir: path.join(root, 'game'), cwd: root, env: noEnv }).port).toBe(25585);
  });

  it('uses MC_AGENT_SERVER_DIR, as game dir and as mod dir', async () => {
    await put('game/mc-agent-server/port.txt', '25586');
    expect(resolvePort({ vantage: 'server', cwd: os.tmpdir(), env: { MC_AGENT_SERVER_DIR: path.join(root, 'game') } }).port).toBe(25586);
    expect(resolvePort({ vantage: 'server', cwd: os.tmpdir(), env: { MC_AGENT_SERVER_DIR: path.join(root, 'game', 'mc-agent-server') } }).port).toBe(25586);
  });

  it('prefers --server-dir over MC_AGENT_SERVER_DIR', async () => {
    await put('a/mc-agent-server/port.txt', '25587');
    await put('b/mc-agent-server/port.txt', '25588');
    const r = resolvePort({ vantage: 'server', serverDir: path.join(root, 'a'), cwd: root, env: { MC_AGENT_SERVER_DIR: path.join(root, 'b') } });
    expect(r.port).toBe(25587);
  });

  it('does not pick up a bare ./port.txt when no dir was named', async () => {
    await put('port.txt', '25580');
    const r = resolvePort({ vantage: 'server', cwd: root, env: noEnv });
    expect(r.resolved).toBe(false);
    expect(r.port).toBeNull();
    expect(r.checked).toEqual([path.join(root, 'mc-agent-server', 'port.txt')]);
  });

  it('never falls back to the client locations or the client default port', async () => {
    await put('mc-agent/port.txt', '25601');
    const r = resolvePort({ vantage: 'server', cwd: root, env: noEnv });
    expect(r.resolved).toBe(false);
    expect(r.port).toBeNull();
    expect(r.port).not.toBe(DEFAULT_CLIENT_PORT);
    expect(r.source).toBe('unresolved');
    expect(r.vantage).toBe('server');
  });

  it('explains a missing port file in several actionable lines', () => {
    const r = resolvePort({ vantage: 'server', cwd: root, env: noEnv });
    const expected = path.join(root, 'mc-agent-server', 'port.txt');
    expect(r).toMatchObject({ vantage: 'server', port: null, source: 'unresolved', checked: [expected], resolved: false });
    const lines = r.error!.split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(lines[0]).toBe(`cannot find the server-vantage port file: no readable ${expected}`);
    expect(lines[1]).toBe('The mod writes it when its server entrypoint starts. Fix one of:');
    for (const flag of ['--server-dir', '--port-file', '--mod-port', '--vantage client', 'MC_AGENT_SERVER_DIR', 'MC_AGENT_PORT_FILE']) {
      expect(r.error).toContain(flag);
    }
  });

  it('names both candidates when a dir was named and neither exists', () => {
    const dir = path.join(root, 'game');
    const r = resolvePort({ vantage: 'server', serverDir: dir, cwd: root, env: noEnv });
    expect(r.checked).toEqual([path.join(dir, 'mc-agent-server', 'port.txt'), path.join(dir, 'port.txt')]);
    expect(r.error).toContain(path.join(dir, 'mc-agent-server', 'port.txt'));
  });

  it('reports an invalid port file with its path and content and stops there', async () => {
    const file = await put('game/mc-agent-server/port.txt', 'not-a-port');
    await put('game/port.txt', '25589'); // would be valid, but the search stops at the bad file
    const r = resolvePort({ vantage: 'server', serverDir: path.join(root, 'game'), cwd: root, env: noEnv });
    expect(r.resolved).toBe(false);
    expect(r.port).toBeNull();
    const first = r.error!.split('\n')[0]!;
    expect(first).toContain(file);
    expect(first).toContain("'not-a-port'");
    expect(r.error).toContain('--port-file');
  });

  it('reports an out-of-range port file with the valid range', async () => {
    const file = await put('mc-agent-server/port.txt', '70000');
    const r = resolvePort({ vantage: 'server', cwd: root, env: noEnv });
    expect(r.resolved).toBe(false);
    expect(r.error).toContain(file);
    expect(r.error).toContain('70000');
    expect(r.error).toContain('1-65535');
  });

  it('re-reads the file on every call (the mod may move to another port)', async () => {
    await put('mc-agent-server/port.txt', '25581');
    expect(resolvePort({ vantage: 'server', cwd: root, env: noEnv }).port).toBe(25581);
    await put('mc-agent-server/port.txt', '25582');
    expect(resolvePort({ vantage: 'server', cwd: root, env: noEnv }).port).toBe(25582);
  });
});

describe('resolvePort: client vantage (explicit opt-in)', () => {
  it('falls back to 25580 with source default-client when nothing is there', () => {
    const r = resolvePort({ vantage: 'client', cwd: root, env: noEnv });
    expect(r).toMatchObject({ vantage: 'client', port: DEFAULT_CLIENT_PORT, source: 'default-client', error: null, resolved: true });
    expect(DEFAULT_CLIENT_PORT).toBe(25580);
    expect(r.checked).toEqual([path.join(root, 'port.txt'), path.join(root, 'mc-agent', 'port.txt')]);
  });

  it('reads ./port.txt first', async () => {
    const file = await put('port.txt', '25600');
    await put('mc-agent/port.txt', '25601');
    const r = resolvePort({ vantage: 'client', cwd: root, env: noEnv });
    expect(r.port).toBe(25600);
    expect(r.source).toBe(`port-file:${file}`);
  });

  it('then ./mc-agent/port.txt', async () => {
    const file = await put('mc-agent/port.txt', '25601');
    const r = resolvePort({ vantage: 'client', cwd: root, env: noEnv });
    expect(r.port).toBe(25601);
    expect(r.source).toBe(`port-file:${file}`);
  });

  it('ignores the server locations and --server-dir', async () => {
    await put('mc-agent-server/port.txt', '25581');
    await put('game/mc-agent-server/port.txt', '25582');
    const r = resolvePort({ vantage: 'client', serverDir: path.join(root, 'game'), cwd: root, env: { MC_AGENT_SERVER_DIR: path.join(root, 'game') } });
    expect(r.port).toBe(DEFAULT_CLIENT_PORT);
    expect(r.source).toBe('default-client');
  });

  it('reports an invalid client port file instead of using the default', async () => {
    const file = await put('port.txt', 'garbage');
    const r = resolvePort({ vantage: 'client', cwd: root, env: noEnv });
    expect(r.resolved).toBe(false);
    expect(r.port).toBeNull();
    expect(r.error).toBe(`the client-vantage port file '${file}' does not contain a port number (found 'garbage')`);
    expect(r.source).toBe('port-file');
  });
});

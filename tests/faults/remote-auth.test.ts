import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { project } from '../support/config-project.js';
import { startStack, type Stack } from '../support/helpers.js';
import { ApiSocket, pollUntil, type Frame } from './support.js';

const TOKEN = 'remote-auth-token-0123456789';

let stack: Stack | undefined;
const sockets: ApiSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  await stack?.close();
  stack = undefined;
});

async function open(port: number, options: { localAddress?: string } = {}): Promise<ApiSocket> {
  const socket = await ApiSocket.open(port, options);
  sockets.push(socket);
  return socket;
}

async function tokenStack(guard = {}): Promise<Stack> {
  stack = await startStack({ daemon: { api: { token: TOKEN, guard } } });
  await stack.client.call('ping'); // the stack's own client authenticates first
  return stack;
}

async function pendingAuth(s: Stack): Promise<number> {
  return ((await s.client.call('status')) as { api: Frame }).api.pendingAuth as number;
}

describe('a token shorter than 16 characters', { timeout: 120_000 }, () => {
  it('stops `mcbridge run` with a clear message, from the flag or the environment (usage, exit 2) or the config (exit 1)', async () => {
    const base = ['run', '--sim', '--api-port', '0'];
    const config = project({ install: false });
    config.write('mcbridge.config.json', JSON.stringify({ apiToken: 'short' }));
    const runs = await Promise.all([
      runCli([...base, '--no-config', '--api-token', 'x']),
      runCli([...base, '--no-config'], { env: { MCBRIDGE_API_TOKEN: 'fifteen-chars!!' } }),
      runCli(base, { cwd: config.dir }),
    ]);
    expect(runs.map((run) => run.code)).toEqual([2, 2, 1]);
    for (const run of runs) expect(run.stderr).toMatch(/at least 16 characters/);
    expect(runs[1].stderr).toContain('MCBRIDGE_API_TOKEN');
    expect(runs[2].stderr).toMatch(/mcbridge\.config\.json: apiToken: expected a token of at least 16 characters/);
    config.remove();
  });
});

describe('before a connection has sent the token', { timeout: 60_000 }, () => {
  it('a peer holding every pre-auth slot from 8 loopback sources cannot keep 75 legitimate clients out; one source holds at most 8', async () => {
    const s = await tokenStack();
    const port = s.daemon.apiAddress.port;
    const held: ApiSocket[] = [];
    for (let source = 2; source <= 9; source++) {
      for (let i = 0; i < 8; i++) held.push(await open(port, { localAddress: `127.0.0.${source}` }));
    }
    await pollUntil(async () => (await pendingAuth(s)) === 64);
    const ninth = await open(port, { localAddress: '127.0.0.2' });
    await ninth.waitClosed();
    expect(ninth.frames[0]).toMatchObject({ ok: false, code: 'unavailable', error: expect.stringContaining('from 127.0.0.2 are waiting') });

    let admitted = 0;
    for (let i = 0; i < 75; i++) {
      const client = await open(port, { localAddress: `127.0.1.${i + 1}` });
      const answer = await client.request({ id: i, method: 'ping', auth: TOKEN });
      if (answer.ok) admitted += 1;
      client.close();
    }
    expect(admitted).toBe(75);
    // Those that gave way were told why.
    const gaveWay = held.filter((h) => h.frames.some((f) => f.code === 'unavailable'));
    expect(gaveWay.length).toBeGreaterThan(0);
    expect(gaveWay[0]!.frames.at(-1)!.error).toMatch(/gave its place to a newer one/);
  });

  it('closes a connection that sends 8 KiB without the token, and lets one that sent it send more', async () => {
    const s = await tokenStack();
    const port = s.daemon.apiAddress.port;
    const chatty = await open(port);
    chatty.write('x'.repeat(9_000));
    await chatty.waitClosed();
    expect(chatty.frames).toEqual([expect.objectContaining({ id: null, ok: false, code: 'unauthorized' })]);
    expect(chatty.frames[0]!.error).toMatch(/within the first 8192 bytes/);

    const trusted = await open(port);
    trusted.send({ id: 1, method: 'ping', auth: TOKEN });
    for (let id = 2; id <= 4; id++) trusted.send({ id, method: 'mark', params: { text: 'y'.repeat(4_000) }, auth: TOKEN });
    await trusted.until(() => trusted.responses(4).length === 1, 'the last answer');
    expect(trusted.responses().map((f) => f.ok)).toEqual([true, true, true, true]);
  });

  it('closes a connection that stays silent past the auth timeout, with a coded answer', async () => {
    const s = await tokenStack({ authTimeoutMs: 200 });
    const silent = await open(s.daemon.apiAddress.port);
    await silent.waitClosed();
    expect(silent.frames).toEqual([expect.objectContaining({ id: null, ok: false, code: 'unauthorized' })]);
    expect(silent.frames[0]!.error).toMatch(/within 200 ms of connecting/);
    expect(await pendingAuth(s)).toBe(0);
  });

  it('after 10 wrong tokens from one address throttles its guesses, never the right token it shares with the CLI', async () => {
    const s = await tokenStack();
    const port = s.daemon.apiAddress.port;
    const guesser = await open(port);
    for (let i = 0; i < 10; i++) {
      const answer = await guesser.request({ id: i, method: 'ping', auth: `guess-${i}-0123456789abcdef` });
      expect(answer).toMatchObject({ ok: false, code: 'unauthorized' });
      expect(answer.details).toBeUndefined();
    }
    const refused = await guesser.request({ id: 'wrong', method: 'ping', auth: 'guess-10-0123456789abcdef' });
    expect(refused).toMatchObject({ ok: false, code: 'unauthorized', details: { reason: 'throttled' } });
    expect(refused.error).toMatch(/too many failed token attempts from 127\.0\.0\.1; wait 60 s/);
    const cli = await open(port);
    expect(await cli.request({ id: 1, method: 'ping', auth: TOKEN })).toMatchObject({ ok: true });
    expect(await guesser.request({ id: 'right', method: 'ping', auth: TOKEN })).toMatchObject({ ok: true });
    await expect(s.client.call('state')).resolves.toMatchObject({ type: 'state' });
  });
});

/** docs/cli.md "Logs": pretty on a terminal (coloured), JSON when piped, --log-format either way, debug shows the link's traffic. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcesses, runCli } from '../../../support/cli-process.js';
import { freePort, waitUntil } from '../../../support/helpers.js';

const processes = new CliProcesses();
afterEach(() => processes.stopAll());

const ESC = '\u001b[';

describe('logs a person can read', { timeout: 90_000 }, () => {
  it('piped: JSON lines by default; --log-format pretty gives plain lines; --log-level debug shows each request, its reply, a cancel', async () => {
    const apiPort = await freePort();
    const json = processes.start(['run', '--sim', '--no-config', '--api-port', String(apiPort)]);
    await waitUntil(() => /"msg":"connected to server mod/.test(json.out.stderr), 30_000, 'the JSON daemon to connect');
    expect(JSON.parse(json.out.stderr.split('\n')[0]!)).toMatchObject({ level: 30, name: 'mcbridge' });
    await processes.stopAll();

    const pretty = processes.start(['run', '--sim', '--no-config', '--api-port', String(apiPort), '--log-format', 'pretty', '--log-level', 'debug']);
    await waitUntil(() => / INFO {2}connected to server mod/.test(pretty.out.stderr), 30_000, 'the pretty daemon to connect');
    expect(pretty.out.stderr).not.toContain(ESC);
    expect(pretty.out.stderr).toMatch(/ DEBUG connecting to the mod on 127\.0\.0\.1:\d+/);

    expect((await runCli(['call', 'state', '--api-port', String(apiPort)])).code).toBe(0);
    await waitUntil(() => / DEBUG mod replied state to STATE/.test(pretty.out.stderr), 10_000, 'the reply logged');
    expect(pretty.out.stderr).toMatch(/ DEBUG sent STATE/);

    // A client-side timeout cancels the WAIT in the daemon.
    const timedOut = await runCli(['call', 'wait', '{"ticks": 60000}', '--timeout', '0.5', '--api-port', String(apiPort)]);
    expect(timedOut.code).toBe(1);
    await waitUntil(() => / DEBUG cancelled WAIT 60000/.test(pretty.out.stderr), 10_000, 'the cancel logged');
  });

  it('on a terminal: pretty and coloured, without being asked', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-logs-'));
    const sim = processes.start(['sim', '--port', '0', '--dir', dir], { tty: true });
    await waitUntil(() => /listening on 127\.0\.0\.1/.test(sim.out.stdout), 30_000, 'the sim to log');
    expect(sim.out.stdout).toContain(`${ESC}32mINFO `);
    expect(sim.out.stdout).not.toContain('"level":30');
    sim.child.stdin!.write('\u0003');
    await new Promise((r) => sim.child.once('exit', r));
  });

  it('a bad level or format is a usage error, from the flag or the environment', async () => {
    for (const [args, env, pattern] of [
      [['call', 'ping', '--log-level', 'loud'], {}, /--log-level/],
      [['call', 'ping'], { MCBRIDGE_LOG_LEVEL: 'loud' }, /MCBRIDGE_LOG_LEVEL: expected one of/],
      [['run', '--sim'], { MCBRIDGE_LOG_LEVEL: 'loud' }, /MCBRIDGE_LOG_LEVEL: expected one of/],
      [['tools', '--log-format', 'colour'], {}, /expected json or pretty/],
      [['run', '--sim'], { MCBRIDGE_LOG_FORMAT: 'xml' }, /MCBRIDGE_LOG_FORMAT: expected json or pretty/],
    ] as const) {
      const result = await runCli([...args], { env });
      expect(result.code, `${args.join(' ')} ${JSON.stringify(env)}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(pattern);
    }
  });
});

/** docs/cli.md "Exit codes": a usage mistake exits 2, whatever the command, with a line that says what was wrong. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../support/cli-process.js';

const MISTAKES: Array<[string[], RegExp, NodeJS.ProcessEnv?]> = [
  [[], /Usage: mcbridge/],
  [['frobnicate'], /unknown command 'frobnicate'/],
  [['call'], /missing required argument 'method'/],
  [['call', 'state', '{}', 'extra'], /too many arguments for 'call'/],
  [['call', 'state', '{x'], /params must be a JSON object/],
  [['call', 'state', '[1]'], /params must be a JSON object/],
  [['call', 'state', '--api-port'], /argument missing/],
  [['call', 'state', '--api-port', '70000'], /expected a TCP port/],
  [['call', 'state', '--api-token', 'short'], /at least 16 characters/],
  [['--timeout', '0', 'call', 'state'], /expected a number of seconds above 0/],
  [['tools', 'extra'], /too many arguments for 'tools'/],
  [['plugins', '--bogus'], /unknown option '--bogus'/],
  [['watch', '--since', '-1'], /expected a whole number 0 or more/],
  [['watch', '--since', '0', '--limit', '0'], /expected a whole number 1 or more/],
  [['watch', '--frames', '--format', 'text'], /leave out --format text/],
  [['watch', '--format', 'yaml'], /Allowed choices are json, text/],
  [['mcp', '--token', 'abc'], /apply to --transport http only/],
  [['mcp', '--sim'], /configure the daemon that --embedded starts/],
  [['mcp', '--transport', 'sse'], /expected stdio, http or streamable-http/],
  [['discover', '--mod-port', '0'], /expected a TCP port 1-65535/],
  [['sim', '--port', '70000'], /expected a TCP port 0-65535/],
  [['run', '--sim', '--push-buffer', '0'], /expected a whole number of MiB/],
  [['run', '--sim', '--reconnect-delay', 'soon'], /expected a number of seconds/],
  [['run', '--sim', '--log-level', 'loud'], /expected one of fatal/],
  [['config', '--bogus'], /unknown option '--bogus'/],
  [['forward', '--spool-max-bytes', 'lots'], /expected a whole number 0 or more/],
  [['call', 'ping'], /^error: MCBRIDGE_API_PORT: expected a TCP port/m, { MCBRIDGE_API_PORT: 'eighty' }],
  [['tools'], /^error: MCBRIDGE_LOG_FORMAT: expected json or pretty/m, { MCBRIDGE_LOG_FORMAT: 'xml' }],
];

describe('usage mistakes exit 2', { timeout: 120_000 }, () => {
  it.each(MISTAKES)('mcbridge %j', async (args, message, env) => {
    const result = await runCli(args, { env });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('--help and --version are no mistake', async () => {
    expect((await runCli(['--help'])).code).toBe(0);
    expect((await runCli(['call', '--help'])).code).toBe(0);
    expect((await runCli(['--version'])).code).toBe(0);
  });
});

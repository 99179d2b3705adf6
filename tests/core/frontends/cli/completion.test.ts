/** docs/cli.md "Shell completion": the bash script, sourced in a real bash, completes commands, options and the daemon's tool names. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../../../support/cli-process.js';
import { startStack, type Stack } from '../../../support/helpers.js';

const run = promisify(execFile);
const stacks: Stack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

/** A directory holding an `mcbridge` command, as an install puts one on PATH. */
const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-bin-'));
fs.writeFileSync(path.join(bin, 'mcbridge'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

/** What bash offers for the words typed so far (the last one being completed). */
async function complete(words: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const script = `source <(mcbridge completion bash)\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}\n_mcbridge_complete\nprintf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await run('bash', ['-c', script], {
    env: { ...process.env, MCBRIDGE_API_PORT: '', MC_AGENT_API_PORT: '', MCBRIDGE_API_TOKEN: '', ...env, PATH: `${bin}:${process.env.PATH}` },
    cwd: os.tmpdir(),
  });
  return stdout.split('\n').filter(Boolean);
}

describe('shell completion', { timeout: 60_000 }, () => {
  it('bash: `mcbridge ca` completes to call, options and their values complete', async () => {
    expect(await complete(['mcbridge', 'ca'])).toEqual(['call']);
    expect(await complete(['mcbridge', 'do'])).toEqual(['doctor']);
    expect(await complete(['mcbridge', 'watch', '--fo'])).toEqual(['--format']);
    expect(await complete(['mcbridge', 'call', '--api-p'])).toEqual(['--api-port']);
    expect(await complete(['mcbridge', 'mcp', '--transport', ''])).toEqual(['stdio', 'http', 'streamable-http']);
    expect(await complete(['mcbridge', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
  });

  it("bash: one flag name on two commands completes each command's own values", async () => {
    expect(await complete(['mcbridge', 'run', '--transport', ''])).toEqual(['legacy', 'control']);
    expect(await complete(['mcbridge', 'mcp', '--transport', ''])).toEqual(['stdio', 'http', 'streamable-http']);
    expect(await complete(['mcbridge', 'run', '--vantage', 'c'])).toEqual(['client']);
    expect(await complete(['mcbridge', 'watch', '--events', ''])).toContain('chat');
    expect(await complete(['mcbridge', 'status', '--log-level', 'si'])).toEqual(['silent']);
  });

  it('bash: tool names come from the running daemon, the one the flag or the environment names', async () => {
    const s = await startStack();
    stacks.push(s);
    const port = String(s.daemon.apiAddress.port);
    expect(await complete(['mcbridge', 'call', '--api-port', port, 'sta'])).toEqual(['status', 'state']);
    expect(await complete(['mcbridge', 'call', 'wait'], { MCBRIDGE_API_PORT: port })).toEqual(['wait_for', 'wait']);
    // No daemon: no tool names, and no error on the terminal.
    expect(await complete(['mcbridge', 'call', '--api-port', '1', 'sta'])).toEqual([]);
  });

  it('zsh and fish scripts call back the same way; another shell is a usage error', async () => {
    for (const shell of ['zsh', 'fish']) {
      const script = await runCli(['completion', shell]);
      expect(script.code).toBe(0);
      expect(script.stdout).toContain('__complete --');
    }
    expect((await runCli(['completion', 'powershell'])).code).toBe(2);
  });
});

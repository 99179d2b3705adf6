/** docs/cli.md "Long calls": a spinner on a terminal, and Ctrl-C says in words what it cancelled. */
import { afterEach, describe, expect, it } from 'vitest';
import { describeCall } from '../../../../core/frontends/cli/spinner.js';
import { CliProcesses } from '../../../support/cli-process.js';
import { startStack, waitUntil, type Stack } from '../../../support/helpers.js';

const processes = new CliProcesses();
const stacks: Stack[] = [];
afterEach(async () => {
  await processes.stopAll();
  for (const s of stacks.splice(0)) await s.close();
});

async function apiPort(): Promise<string> {
  const s = await startStack();
  stacks.push(s);
  return String(s.daemon.apiAddress.port);
}

const exit = (child: import('node:child_process').ChildProcess) => new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

describe('describeCall', () => {
  it.each([
    ['wait', { ticks: 200 }, 'wait (200 ticks)'],
    ['wait_for', { match: { type: 'chat', text: 'hello' } }, 'wait_for (type "chat", text "hello")'],
    ['fork', { name: 'lab-1' }, "fork 'lab-1'"],
    ['command_output', { command: 'time query daytime' }, "command_output 'time query daytime'"],
    ['state', {}, 'state'],
  ] as const)('%s %j', (method, params, words) => {
    expect(describeCall(method, params)).toBe(words);
  });
});

describe('long calls', { timeout: 90_000 }, () => {
  it('on a terminal: a spinner line with the call in words and its progress; Ctrl-C cancels it and says what and when', async () => {
    const port = await apiPort();
    const call = processes.start(['call', 'wait', '{"ticks": 6000}', '--api-port', port], { tty: true });
    await waitUntil(() => /wait \(6000 ticks\) {2}\d+\.\d s {2}\d+\/6000 waiting for ticks {2}\(Ctrl-C cancels\)/.test(call.out.stdout), 30_000, 'the spinner with progress');
    const exited = exit(call.child);
    call.child.stdin!.write('\u0003');
    expect(await exited).toBe(130);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the spinner's erase-line escape is what is asserted
    expect(call.out.stdout).toMatch(/\r\u001b\[Kcancelled wait \(6000 ticks\) after \d+\.\d s\r?\n/);
    expect(call.out.stdout).not.toContain('WAIT 6000');
  });

  it('piped: no spinner; --progress lines for scripts; SIGINT still says what was cancelled', async () => {
    const port = await apiPort();
    const call = processes.start(['call', 'wait_for', '{"match": {"type": "chat", "text": "never"}, "timeout_ms": 600000}', '--progress', '--api-port', port]);
    await waitUntil(() => call.out.stderr.includes('progress '), 30_000, 'a progress line');
    const exited = exit(call.child);
    call.child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(call.out.stderr).not.toContain('Ctrl-C cancels');
    expect(call.out.stderr).toMatch(/^cancelled wait_for \(type "chat", text "never"\) after \d+\.\d s$/m);
    expect(call.out.stdout).toBe('');
  });
});

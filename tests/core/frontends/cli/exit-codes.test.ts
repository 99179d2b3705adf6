/**
 * The CLI's exit codes (docs/cli.md, "Exit codes"), in process: `main` against a daemon and sim on
 * real loopback sockets, so mutation testing (vitest.mutate-cli.config.ts) can see each decision.
 * The spawned-CLI suites beside this file check the same codes end to end from dist/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { McbridgeError } from '../../../../core/host/errors.js';
import { describeError, EXIT, exitCodeFor, UsageError } from '../../../../core/frontends/cli/exit.js';
import { main } from '../../../../core/frontends/cli/main.js';
import { closedPort, plugin, tool } from '../../../support/host.js';
import { startStack, waitUntil, type Stack } from '../../../support/helpers.js';

/**
 * Tools whose results and progress no built-in gives: an empty result, progress with neither a
 * total nor a message, and a tool that gives up with `cancelled` on its own (no Ctrl-C).
 */
const oddTools = plugin('odd', [
  tool('nothing'),
  tool('bare_progress', {
    run: async (_args, ctx) => {
      ctx.progress(7);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { done: true };
    },
  }),
  tool('gives_up', {
    run: async () => {
      throw new McbridgeError('cancelled', 'the inner wait was cancelled');
    },
  }),
]);

let stack: Stack;
let port: string;
let activityDir: string;
beforeAll(async () => {
  activityDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-exit-'));
  stack = await startStack({ daemon: { plugins: [{ plugin: oddTools }], api: { activityLog: { file: path.join(activityDir, 'activity.jsonl') } } } });
  port = String(stack.daemon.apiAddress.port);
});
afterAll(async () => {
  await stack.close();
  fs.rmSync(activityDir, { recursive: true, force: true });
});

/** What a run of `main` wrote, and the listeners it left on stdout (removed after each test). */
let out: { stdout: string; stderr: string };
let stdoutErrorListeners: unknown[];
beforeEach(() => {
  out = { stdout: '', stderr: '' };
  stdoutErrorListeners = process.stdout.listeners('error');
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.stderr += String(chunk);
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const listener of process.stdout.listeners('error')) if (!stdoutErrorListeners.includes(listener)) process.stdout.off('error', listener as never);
  process.exitCode = undefined;
});

const run = (...args: string[]) => main(['node', 'mcbridge', ...args]);

describe('exitCodeFor and describeError', () => {
  it('usage 2, unreachable 3 only for daemon_unreachable, anything else 1', () => {
    expect(EXIT).toEqual({ ok: 0, failed: 1, usage: 2, unreachable: 3, interrupted: 130 });
    expect(exitCodeFor(new UsageError('x'))).toBe(2);
    expect(exitCodeFor(new McbridgeError('unavailable', 'x', { reason: 'daemon_unreachable' }))).toBe(3);
    expect(exitCodeFor(new McbridgeError('unavailable', 'x', { reason: 'mod_unreachable' }))).toBe(1);
    expect(exitCodeFor(new McbridgeError('unavailable', 'x'))).toBe(1);
    // The command line must name a target, or one that exists (docs/cli.md, "Several game servers").
    expect(exitCodeFor(new McbridgeError('target_required', 'x'))).toBe(2);
    expect(exitCodeFor(new McbridgeError('target_unknown', 'x'))).toBe(2);
    expect(exitCodeFor(new Error('x'))).toBe(1);
    expect(exitCodeFor({ details: { reason: 'daemon_unreachable' } })).toBe(1);
  });

  it('one line: the code in brackets for ours, the message for an Error, the text of anything else', () => {
    expect(describeError(new McbridgeError('timeout', 'took too long'))).toBe('error: took too long [timeout]');
    expect(describeError(new UsageError('bad flag'))).toBe('error: bad flag');
    expect(describeError('plain')).toBe('error: plain');
    expect(describeError(42)).toBe('error: 42');
  });
});

describe('main, the quick call path', () => {
  it('a call that works: 0, its result on stdout as one JSON document ending in a newline', async () => {
    expect(await run('call', 'ping', '--api-port', port)).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ pong: true });
    expect(out.stdout).toMatch(/}\n$/);
    expect(out.stderr).toBe('');
  });

  it('a call whose result is empty: 0, and `null` on stdout', async () => {
    expect(await run('call', 'nothing', '--api-port', port)).toBe(0);
    expect(out.stdout).toBe('null\n');
  });

  it("the daemon's activity log names the CLI as the caller", async () => {
    expect(await run('call', 'state', '--api-port', port)).toBe(0);
    const file = path.join(activityDir, 'activity.jsonl');
    await waitUntil(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"state"'), 5_000, 'the activity log to hold the call');
    const records = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tool: string; caller: { frontend: string } });
    expect(records.filter((r) => r.tool === 'state').map((r) => r.caller.frontend)).toEqual(['cli']);
  });

  it('a command the game refused: 1, and the refusal on one line of stderr', async () => {
    expect(await run('call', 'command', '{"command": "frobnicate now"}', '--api-port', port)).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ refused: true });
    expect(out.stderr).toMatch(/^error: the game refused the command: Unknown or incomplete command, see below for error \| \S/);
    expect(out.stderr.split('\n')).toHaveLength(2);
  });

  it('--timeout: 1 with the timeout code, after the seconds given and not before', async () => {
    const started = Date.now();
    expect(await run('call', 'wait', '{"ticks": 6000}', '--timeout', '0.4', '--api-port', port)).toBe(1);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(5_000);
    expect(out.stderr).toMatch(/^error: no answer from the daemon for 'wait' within 400 ms \[timeout\]\n$/);
  });

  it('a wait_for that times out: 1 with the timeout code, and what happened meanwhile still on stdout', async () => {
    expect(await run('call', 'wait_for', '{"match": {"type": "never_happens"}, "timeout_ms": 300}', '--api-port', port)).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ matched: false, timedOut: true, seen: expect.any(Object) });
    expect(out.stderr).toMatch(/^error: wait_for timed out after \d+\.\d s without a match; what happened meanwhile is on stdout \[timeout\]\n$/);
    out.stderr = '';
    out.stdout = '';
    process.exitCode = undefined; // one process per command in real use
    // One that matches: 0.
    expect(await run('call', 'mark', '{"text": "here"}', '--api-port', port)).toBe(0);
    out.stdout = '';
    expect(await run('call', 'wait_for', '{"match": {"type": "mark", "text": "here"}, "since": 0, "timeout_ms": 5000}', '--api-port', port)).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ matched: true });
    expect(out.stderr).toBe('');
  });

  it('--progress: one line per progress report on stderr, with its total and message when given', async () => {
    expect(await run('call', 'wait_for', '{"match": {"type": "never_happens"}, "timeout_ms": 300}', '--progress', '--api-port', port)).toBe(1);
    expect(out.stderr.split('\n')[0]).toBe('progress 0/300 waiting for a matching event');
    expect(JSON.parse(out.stdout)).toMatchObject({ matched: false, timedOut: true });
    out.stderr = '';
    process.exitCode = undefined; // one process per command in real use
    expect(await run('call', 'bare_progress', '--progress', '--api-port', port)).toBe(0);
    expect(out.stderr).toBe('progress 7\n');
  });

  it('a spinner on a terminal for a long call only, and never with --progress', async () => {
    const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    try {
      expect(await run('call', 'wait_for', '{"match": {"type": "never_happens"}, "timeout_ms": 300}', '--api-port', port)).toBe(1);
      expect(out.stderr).toContain('wait_for (type "never_happens")');
      expect(out.stderr).toContain('(Ctrl-C cancels)');
      expect(out.stderr).toContain('0/300 waiting for a matching event');
      out.stderr = '';
      process.exitCode = undefined; // one process per command in real use
      expect(await run('call', 'ping', '--api-port', port)).toBe(0);
      expect(out.stderr).toBe('');
      expect(await run('call', 'wait_for', '{"match": {"type": "never_happens"}, "timeout_ms": 300}', '--progress', '--api-port', port)).toBe(1);
      expect(out.stderr).toMatch(/^progress 0\/300 waiting for a matching event\nerror: wait_for timed out/);
    } finally {
      if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
  });

  it('a command the game ran: 0', async () => {
    expect(await run('call', 'command', '{"command": "time query daytime"}', '--api-port', port)).toBe(0);
    expect(out.stderr).toBe('');
  });

  it('an unknown tool: 1, with its code', async () => {
    expect(await run('call', 'no_such_tool', '--api-port', port)).toBe(1);
    expect(out.stderr).toMatch(/^error: .* \[\w+\]\n$/);
  });

  it('params that are not a JSON object: 2', async () => {
    expect(await run('call', 'ping', '[1]', '--api-port', port)).toBe(2);
    expect(out.stderr).toMatch(/^error: params must be a JSON object/);
  });

  it('no daemon: 3', async () => {
    expect(await run('call', 'ping', '--api-port', String(await closedPort()))).toBe(3);
    expect(out.stderr).toMatch(/^error: .*\[unavailable\]\n$/);
  });

  it('Ctrl-C during a long call: 130, saying what it cancelled and after how long; Ctrl-C is given back after', async () => {
    const before = process.listeners('SIGINT');
    const done = run('call', 'wait', '{"ticks": 6000}', '--api-port', port);
    await waitUntil(() => process.listeners('SIGINT').some((l) => !before.includes(l)), 5_000, 'the call to listen for Ctrl-C');
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const listener of process.listeners('SIGINT')) if (!before.includes(listener)) (listener as () => void)();
    expect(await done).toBe(130);
    // Not a terminal: no spinner, only the one line.
    expect(out.stderr).toMatch(/^cancelled wait \(6000 ticks\) after \d+\.\d s\n$/);
    expect(Number(/after (\d+\.\d) s/.exec(out.stderr)?.[1])).toBeLessThan(10);
    expect(process.listeners('SIGINT')).toEqual(before);
  });

  it('a call cancelled by the daemon, not by Ctrl-C: 1 and its error, not 130', async () => {
    const before = process.listeners('SIGINT');
    expect(await run('call', 'gives_up', '--api-port', port)).toBe(1);
    expect(out.stderr).toBe('error: the inner wait was cancelled [cancelled]\n');
    expect(process.listeners('SIGINT')).toEqual(before);
  });
});

describe('main, the full program', () => {
  it('--version and --help: 0; an unknown command, a missing argument, a bad flag: 2', async () => {
    expect(await run('--version')).toBe(0);
    expect(await run('--help')).toBe(0);
    expect(out.stdout).toMatch(/discover .*print where the daemon would find the mod/);
    expect(await run('frobnicate')).toBe(2);
    expect(await run('call')).toBe(2);
    expect(await run('call', 'ping', '--api-port', 'seventy')).toBe(2);
  });

  it('status --json: 0 with a daemon and its mod, 1 when a check fails', async () => {
    expect(await run('status', '--json', '--no-config', '--api-port', port)).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: true });
    expect(out.stdout).toMatch(/}\n$/);
    out.stdout = '';
    expect(await run('status', '--json', '--no-config', '--api-port', String(await closedPort()))).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: false });
  });

  it('status in text: 1 when a check fails', async () => {
    expect(await run('status', '--no-config', '--api-port', String(await closedPort()))).toBe(1);
    expect(out.stdout).toMatch(/checks failed\n$/);
  });

  it('discover: 0 when the mod port is found, 1 when not', async () => {
    expect(await run('discover', '--mod-port', '25599')).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ port: 25599, resolved: true });
    expect(out.stdout).toMatch(/}\n$/);
    out.stdout = '';
    expect(await run('discover', '--vantage', 'server', '--server-dir', '/nonexistent-mcbridge-dir')).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ resolved: false });
  });

  it('an error thrown by a command: its code from exitCodeFor, one line on stderr', async () => {
    expect(await run('tools', '--api-port', String(await closedPort()))).toBe(3);
    expect(out.stderr.split('\n')).toHaveLength(2);
  });
});

describe('a closed stdout', () => {
  it('EPIPE ends with 0 and no word; another stdout error with 1 and its message', async () => {
    // process.exit does not return: the stand-in throws, so what follows it never runs.
    const exit = vi.spyOn(process, 'exit').mockImplementation(((code: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    await run('--version');
    const listener = process.stdout.listeners('error').find((l) => !stdoutErrorListeners.includes(l)) as (err: NodeJS.ErrnoException) => void;
    expect(listener).toBeDefined();
    expect(() => listener(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toThrow('exit 0');
    expect(out.stderr).toBe('');
    expect(() => listener(Object.assign(new Error('write EIO'), { code: 'EIO' }))).toThrow('exit 1');
    expect(out.stderr).toBe('error: write EIO\n');
    expect(exit).toHaveBeenCalledTimes(2);
  });

  it('is left to the MCP front-end under `mcp`', async () => {
    expect(await run('mcp', '--transport', 'carrier-pigeon')).toBe(2);
    expect(process.stdout.listeners('error').filter((l) => !stdoutErrorListeners.includes(l))).toHaveLength(0);
  });
});

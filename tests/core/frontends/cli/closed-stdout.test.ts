/** The CLI piped into a reader that stops early (`| head`): status 0, no EPIPE stack trace. */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../../../support/cli-process.js';
import { startStack, type Stack } from '../../../support/helpers.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('a CLI whose stdout is closed by its reader', { timeout: 60_000 }, () => {
  it('watch ends with status 0 and nothing on stderr once the reader is gone', async () => {
    stack = await startStack();
    const child = spawn(process.execPath, [BIN, 'watch', '--api-port', String(stack.daemon.apiAddress.port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MCBRIDGE_API_TOKEN: '' },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const sim = stack.sim;
    const pump = setInterval(() => sim.emit({ type: 'chat', player: 'p', text: 'x'.repeat(2000) }), 5);
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    // Like `head -n 1`: read the first line, then close the pipe.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await exited;
    clearInterval(pump);
    clearTimeout(timer);
    expect(stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(code).toBe(0);
  });
});

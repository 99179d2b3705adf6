/**
 * The predecessor's command lines (its `mc-bridge` CLI, issue 27) against a real `mcbridge run
 * --sim` process, with the flags its scripts pass. Where we differ on purpose,
 * docs/compatibility.md says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcesses, runCli } from '../support/cli-process.js';
import { startDaemonProcess, type DaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/helpers.js';

const processes = new CliProcesses();
let daemon: DaemonProcess;
let api: string[];

beforeAll(async () => {
  daemon = await startDaemonProcess(processes, ['--sim']);
  api = ['--api-port', String(daemon.port)];
}, 60_000);

afterAll(async () => {
  await processes.stopAll();
});

const lines = (text: string) => text.split('\n').filter(Boolean);

describe('predecessor command lines', { timeout: 60_000 }, () => {
  it('mc-bridge call command with a command the game refuses: the ack on stdout says refused, and the exit code is 1', async () => {
    const run = await runCli(['call', 'command', '{"command": "frobnicate now"}', ...api]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: 'cmd_ack', refused: true, refusal: expect.stringMatching(/^Unknown or incomplete command/) });
    expect(run.stderr).toMatch(/^error: the game refused the command: Unknown or incomplete command/);
    const ran = await runCli(['call', 'command', '{"command": "time query daytime"}', ...api]);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ refused: false });
  });

  it('a timeout exits 1, whichever side gives up', async () => {
    const client = await runCli(['call', 'wait', '{"ticks": 6000}', '--timeout', '0.3', ...api]);
    expect(client.code).toBe(1);
    expect(client.stderr).toMatch(/\[timeout\]/);
  });

  it("mc-bridge call snapshot answers with the predecessor's id and type beside name", async () => {
    const run = await runCli(['call', 'snapshot', '{"name": "compat"}', ...api]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: 'snapshot_ack', id: 'compat', name: 'compat' });
  });

  it('mc-bridge call mark with a line break folds it to a space, as the predecessor did', async () => {
    const run = await runCli(['call', 'mark', '{"text": "two\\nlines"}', ...api]);
    expect(run.code).toBe(0);
    const events = await runCli(['call', 'events', '{"category": "mark"}', ...api]);
    expect(JSON.parse(events.stdout).events.map((e: { text: string }) => e.text)).toContain('two lines');
  });

  it('mc-bridge watch --limit 5 (no --since) is accepted and follows new events; Ctrl-C ends it with 130', async () => {
    const watch = processes.start(['watch', '--events', 'mark', '--limit', '5', ...api]);
    await waitUntil(() => watch.out.stderr.includes('--limit caps the replay'), 20_000, 'the note about --limit');
    // The note comes before the subscription: mark until one is pushed.
    for (let i = 0; i < 40 && !watch.out.stdout.includes('after watch'); i++) {
      await runCli(['call', 'mark', '{"text": "after watch"}', ...api]);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(JSON.parse(lines(watch.out.stdout)[0]!)).toMatchObject({ type: 'mark', text: 'after watch' });
    const exited = new Promise<number | null>((resolve) => watch.child.once('exit', (code) => resolve(code)));
    watch.child.kill('SIGINT');
    expect(await exited).toBe(130);
  });
});

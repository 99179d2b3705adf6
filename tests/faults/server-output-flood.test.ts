/**
 * A launched server that prints a 10 MB line, then 48 MiB of binary, then a flood of lines (issue
 * 36): the daemon keeps answering `ping` and `state` meanwhile, the log keeps what a record may
 * hold (the big line cut and counted, the binary counted, not kept), and its memory stays bounded.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { CliProcesses } from '../support/cli-process.js';
import type { DaemonProcess } from '../support/daemon-process.js';
import { configuredDaemon, FAKE_SERVER, serverFolder } from '../support/servers.js';

type Json = Record<string, any>;
const MiB = 2 ** 20;
const processes = new CliProcesses();
let root: string;
let daemon: DaemonProcess;
let api: ApiClient;

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-flood-')));
  serverFolder(root, 'lab');
  const run = `bigline ${10 * 1000 * 1000}; binary ${48 * MiB}; flood 5000`;
  const config = { targets: { lab: { launch: { command: [process.execPath, FAKE_SERVER, '--mod', '--run-after', '1500', '--run', run], cwd: 'servers/lab' } } } };
  daemon = await configuredDaemon(processes, root, config);
  api = await ApiClient.connect({ port: daemon.port });
}, 60_000);

afterAll(async () => {
  api?.close();
  await processes.stopAll();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('a server that floods its console', { timeout: 120_000 }, () => {
  it('is read to the end while every ping and state is answered, bounded in records and memory', async () => {
    const rssBefore = daemon.rss();
    let answered = 0;
    let slowest = 0;
    let peak = rssBefore;
    for (;;) {
      const t0 = performance.now();
      expect(await api.call('ping', {})).toMatchObject({ pong: true, connected: true });
      expect(((await api.call('state', {})) as Json).type).toBe('state');
      slowest = Math.max(slowest, performance.now() - t0);
      answered += 1;
      peak = Math.max(peak, daemon.rss());
      const done = (await api.call('logs', { grep: 'flood done' })) as Json;
      if (done.records.length > 0) break;
    }
    expect(answered).toBeGreaterThan(3);
    // Answered throughout: no call waited behind the flood for long.
    expect(slowest).toBeLessThan(5_000);
    const summary = (await api.call('logs_summary', {})) as Json;
    const stdout = summary.sources.stdout;
    expect(stdout.cut).toBeGreaterThanOrEqual(1);
    expect(stdout.binaryBytes).toBeGreaterThan(40 * MiB);
    expect(stdout.lines).toBeGreaterThanOrEqual(5_000);
    expect(summary.ring.bytes).toBeLessThanOrEqual(16 * MiB);
    const big = (await api.call('logs', { grep: 'bigline done' })) as Json;
    expect(big.records).toHaveLength(1);
    // 10 MB line, 48 MiB of binary, 5,000 lines went through; the daemon held a small part of it.
    expect(peak - rssBefore).toBeLessThan(150 * MiB);
  });
});

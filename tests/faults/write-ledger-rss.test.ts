/**
 * Writes answered in MiB (issue 35, item 2): a real daemon process of a legacy target and a
 * control target, each sent 24 `command`s whose answers are 2 MiB, stays small (the ledger keeps
 * a cut with the size and digest of each big answer, not the answer), and a resent id is still
 * answered, said to be cut. Before, every answer was kept whole: 96 MiB here (the 254 answers of 8 MiB
 * killed a legacy daemon; this size keeps the test's own traffic small).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../core/api/client.js';
import { encodeFrame } from '../../core/host/link/control/frames.js';
import { CliProcesses } from '../support/cli-process.js';
import { allTargetsConnected } from '../support/daemon-process.js';
import { hostileFixture, TOKEN, WELCOME } from '../support/hostile-control.js';
import { ScriptedMod } from '../support/scripted-mod.js';
import { startDaemonProcess, type Frame } from './support.js';

const processes = new CliProcesses();
const fixture = hostileFixture();
const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await processes.stopAll();
});

const MiB = 2 ** 20;
const WRITES = 24;
const big = (tag: string) => `${tag}:${'o'.repeat(2 * MiB)}`;

describe('24 writes answered with 2 MiB each, on a legacy and a control target of one daemon', { timeout: 180_000 }, () => {
  it('the daemon stays small, the ledger is counted in bytes, and a resent id answers a cut that says so', async () => {
    const mod = await ScriptedMod.start({
      respond: (line) => (line.startsWith('CMD ') ? [{ line: { type: 'cmd_ack', millis: 1, detail: line.slice(4), output: [big(line)] } }] : undefined),
    });
    cleanups.push(() => mod.stop());
    const server = await fixture.server({
      hello: (s) => s.write(encodeFrame({ ...WELCOME, capabilities: ['state', 'command'], limits: {}, replay: { lost: false, to: 0 } })),
      frame: (s, f) => {
        if (f.type !== 'request') return;
        const result = f.op === 'command' ? { type: 'cmd_ack', millis: 1, detail: f.params.command, output: [big(f.params.command)] } : { type: 'pong' };
        s.write(encodeFrame({ type: 'reply', id: f.id, ok: true, result }));
      },
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-ledger-rss-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'far.token'), `${TOKEN}\n`, { mode: 0o600 });
    const config = path.join(dir, 'mcbridge.config.json');
    const far = { transport: 'control', address: server.address, pin: server.pin, tokenFile: path.join(dir, 'far.token') };
    fs.writeFileSync(config, JSON.stringify({ targets: { legacy: { modPort: mod.port }, far } }));
    const daemon = await startDaemonProcess(processes, [], { MCBRIDGE_STATE_DIR: path.join(dir, 'state') }, config);
    const api = await ApiClient.connect({ port: daemon.port });
    cleanups.push(() => api.close());
    const call = async (method: string, params: Frame) => (await api.call(method, params)) as Frame;
    await allTargetsConnected(api);
    const rssBefore = daemon.rss();

    for (const target of ['legacy', 'far']) {
      for (let i = 0; i < WRITES; i++) {
        const answer = await call('command', { target, command: `say ${i}`, request_id: `${target}-${i}` });
        expect(answer.output[0]).toHaveLength(2 * MiB + `say ${i}:`.length + (target === 'legacy' ? 'CMD '.length : 0));
      }
      const status = await call('status', { target });
      // The control link reports its writes beside its other facts (issue 38 makes them one).
      const writes = status.link.writes ?? status.control.writes;
      expect(writes.tracked).toBe(WRITES);
      // Whole, these answers are 48 MiB; kept, a few hundred bytes each.
      expect(writes.bytes).toBeLessThan(WRITES * 4096);
      const again = await call('command', { target, command: 'say 0', request_id: `${target}-0` });
      expect(again).toMatchObject({ duplicate: true, requestId: `${target}-0`, truncated: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(again.originalBytes).toBeGreaterThan(2 * MiB);
    }
    expect(daemon.alive()).toBe(true);
    // 96 MiB of answers went through it (kept whole, with the transient copies of each call, over the bound).
    expect(daemon.rss() - rssBefore).toBeLessThan(160 * MiB);
    expect(mod.received.filter((l) => l.startsWith('CMD ')).length).toBe(WRITES);
    expect(server.frames.filter((f) => f.op === 'command').length).toBe(WRITES);
  });
});

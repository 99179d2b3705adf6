/**
 * A hostile control server sending big events (issue 35, item 1): a real daemon process of two
 * targets keeps the flooded one's ring within --buffer-bytes (its events counted at their size,
 * not a fixed 256 bytes), stays small, and the other target answers throughout.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../core/host/link/control/frames.js';
import { CliProcesses } from '../support/cli-process.js';
import { allTargetsConnected } from '../support/daemon-process.js';
import { hostileFixture, TOKEN, WELCOME } from '../support/hostile-control.js';
import { ApiSocket, startDaemonProcess, type Frame } from './support.js';

const processes = new CliProcesses();
const fixture = hostileFixture();
const dirs: string[] = [];
afterEach(async () => {
  await processes.stopAll();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const MiB = 2 ** 20;
const EVENTS = 80;

describe('a control server sending 80 events of 4 MiB', { timeout: 120_000 }, () => {
  it('the ring holds at most --buffer-bytes of them, the daemon stays small, and the other target answers', async () => {
    let go: () => void = () => {};
    const server = await fixture.server((s) => {
      s.write(encodeFrame({ ...WELCOME, limits: {}, replay: { lost: false, to: 0 } }));
      const text = 'x'.repeat(4 * MiB);
      go = () => {
        let seq = 0;
        const next = () => {
          while (seq < EVENTS) if (!s.write(encodeFrame({ type: 'event', seq: ++seq, event: { type: 'game', text: `${seq}:${text}` } }))) return void s.once('drain', next);
        };
        next();
      };
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-big-control-'));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'far.token'), `${TOKEN}\n`, { mode: 0o600 });
    const config = path.join(dir, 'mcbridge.config.json');
    const far = { transport: 'control', address: server.address, pin: server.pin, tokenFile: path.join(dir, 'far.token'), bufferBytes: 8 };
    fs.writeFileSync(config, JSON.stringify({ targets: { far, near: { sim: true } } }));
    const daemon = await startDaemonProcess(processes, [], undefined, config);
    const api = await ApiSocket.open(daemon.port);
    let n = 0;
    const call = async (method: string, params: Frame) => (await api.request({ id: `c${++n}`, method, params })) as Frame;
    await allTargetsConnected({ call: async (method, params) => (await call(method, params ?? {})).result });
    const rssBefore = daemon.rss();

    go();
    let far8: Frame = {};
    let nearAnswers = 0;
    for (;;) {
      expect(await call('state', { target: 'near' })).toMatchObject({ ok: true });
      nearAnswers += 1;
      far8 = (await call('status', { target: 'far' })).result;
      expect(far8.events.bytes).toBeLessThanOrEqual(8 * MiB);
      if (far8.events.lastSeq >= EVENTS) break;
    }
    expect(daemon.alive()).toBe(true);
    expect(far8.events).toMatchObject({ maxBytes: 8 * MiB });
    expect(far8.events.buffered).toBeLessThanOrEqual(2);
    expect(far8.events.evicted).toBeGreaterThanOrEqual(EVENTS - 2);
    // 320 MiB went through it; a ring counting 256 bytes an event would hold all of it for good.
    // Right after the flood, RSS still holds garbage not yet collected (166 MiB once on a loaded
    // machine): what counts is what stays, so it is read while the daemon answers calls, until
    // it is under the bound or 20 s have passed.
    const deadline = Date.now() + 20_000;
    let growth = daemon.rss() - rssBefore;
    while (growth >= 150 * MiB && Date.now() < deadline) {
      expect(await call('status', { target: 'far' })).toMatchObject({ ok: true });
      growth = daemon.rss() - rssBefore;
    }
    expect(growth).toBeLessThan(150 * MiB);
    expect(nearAnswers).toBeGreaterThan(0);
    api.close();
  });
});

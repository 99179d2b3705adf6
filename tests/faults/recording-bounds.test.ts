import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SNAPSHOT_LINES } from '../../plugins/snapshot/files.js';
import { CliProcesses } from '../support/cli-process.js';
import { cart, useTemps, writeRecording } from '../support/restore.js';
import { ApiSocket, startDaemonProcess } from './support.js';

/**
 * Reading a recording is verify's, order's and restore's first step, and verify is open to
 * read-only daemons: a hostile recording must get a coded answer while the daemon goes on
 * serving everyone else (issue 24, items 2 and N18).
 */
const processes = new CliProcesses();
const tmp = useTemps('mcbridge-recbound-');
afterEach(() => processes.stopAll());
const uuid = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;

describe('reading a recording in a daemon process', { timeout: 120_000 }, () => {
  it('48 MiB of `{}` lines: verify, order and restore refuse with invalid_params naming the line bound; the daemon stays small', async () => {
    const dir = tmp();
    writeRecording(dir, []);
    const line = '{}\n';
    const chunk = line.repeat(Math.ceil((1024 * 1024) / line.length));
    const fd = fs.openSync(path.join(dir, 'entities.jsonl'), 'w');
    for (let i = 0; i < 48; i++) fs.writeSync(fd, chunk);
    fs.closeSync(fd);
    const daemon = await startDaemonProcess(processes, ['--sim']);
    const socket = await ApiSocket.open(daemon.port);
    for (const method of ['verify', 'order']) {
      const answer = await socket.request({ id: method, method, params: { directory: dir } });
      expect(answer).toMatchObject({ ok: false, code: 'invalid_params' });
      expect(answer.error).toContain(`more than ${MAX_SNAPSHOT_LINES} lines`);
      expect(answer.error).toMatch(/radius/);
    }
    expect(daemon.rss()).toBeLessThan(400 * 1024 * 1024);
    const refused = await socket.request({ id: 'r', method: 'restore', params: { directory: dir } });
    expect(refused).toMatchObject({ ok: false, code: 'invalid_params' });
    expect(refused.error).toContain(`more than ${MAX_SNAPSHOT_LINES} lines`);
    expect(await socket.request({ id: 'p', method: 'ping' })).toMatchObject({ ok: true });
    socket.close();
  });

  it("while verify reads a big recording, another client's ping and state are answered before it", async () => {
    const count = 150_000;
    const dir = writeRecording(
      tmp(),
      Array.from({ length: count }, (_, i) => cart(uuid(i), [i % 100, 64, Math.floor(i / 100)])),
    );
    const daemon = await startDaemonProcess(processes, ['--sim']);
    const verifier = await ApiSocket.open(daemon.port);
    const bystander = await ApiSocket.open(daemon.port);
    verifier.send({ id: 'v', method: 'verify', params: { directory: dir }, progress: true });
    await verifier.until(() => verifier.frames.some((f) => f.type === 'progress' && f.id === 'v'), 'verify to report reading progress');
    expect(await bystander.request({ id: 'p', method: 'ping' })).toMatchObject({ ok: true });
    expect(await bystander.request({ id: 's', method: 'state' })).toMatchObject({ ok: true });
    expect(verifier.responses('v')).toEqual([]); // both answered while verify was still running
    await verifier.until(() => verifier.responses('v').length === 1, 'the verify answer');
    expect(verifier.responses('v')[0]).toMatchObject({ ok: true, result: { ok: false, expected: { count } } });
    verifier.close();
    bystander.close();
  });

  it('a recording nested deeper than the reader allows gets invalid_params, never internal', async () => {
    // Written as text: JSON.stringify itself overflows on values this deep.
    const deep = '['.repeat(5_000) + ']'.repeat(5_000);
    const deepMeta = writeRecording(tmp(), []);
    fs.writeFileSync(path.join(deepMeta, 'meta.json'), `{"protocol":${deep},"entities":0}`);
    const deepLine = writeRecording(tmp(), [cart(uuid(1), [0, 64, 0])]);
    const record = JSON.stringify({ order: 0, ...cart(uuid(1), [0, 64, 0]) });
    fs.writeFileSync(path.join(deepLine, 'entities.jsonl'), `${record.slice(0, -1)},"extra":${deep}}\n`);
    const daemon = await startDaemonProcess(processes, ['--sim']);
    const socket = await ApiSocket.open(daemon.port);
    for (const [i, dir] of [deepMeta, deepLine].entries()) {
      for (const method of ['verify', 'order']) {
        const answer = await socket.request({ id: `${method}${i}`, method, params: { directory: dir } });
        expect(answer).toMatchObject({ ok: false, code: 'invalid_params' });
        expect(answer.error).toMatch(/nests JSON more than 128 levels deep/);
      }
    }
    expect(daemon.alive()).toBe(true);
    socket.close();
  });
});

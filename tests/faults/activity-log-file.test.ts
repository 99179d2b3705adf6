/**
 * The activity-log file under a real daemon process: removed by logrotate, or failing. The daemon
 * opens it again (or counts the lost lines), and never closes or writes a descriptor it no longer
 * owns: before this was so, the stale number was reused by a client's socket, which then died or
 * received another client's activity lines.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcesses } from '../support/cli-process.js';
import { ApiSocket, startDaemonProcess, type Frame } from './support.js';

const processes = new CliProcesses();
const dirs: string[] = [];
afterEach(async () => {
  await processes.stopAll();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Every frame a socket got is a response to one of its own ids (or, if subscribed, an event). */
function onlyOwn(socket: ApiSocket, ids: Set<unknown>, events: boolean): void {
  for (const frame of socket.frames) {
    if (events && frame.type === 'event') continue;
    expect(frame, JSON.stringify(frame).slice(0, 200)).toMatchObject({ type: 'response' });
    expect(ids.has(frame.id)).toBe(true);
  }
}

describe('the activity-log file', { timeout: 90_000 }, () => {
  it("removed while the daemon runs (at the edge of rotation): opened again; no socket dies or gets another client's lines", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-activity-'));
    dirs.push(dir);
    const file = path.join(dir, 'activity.jsonl');
    // A log just under its 10 MiB rotation size (sparse), so the next lines rotate the removed file.
    fs.writeFileSync(file, '');
    fs.truncateSync(file, 10 * 1024 * 1024 - 10);
    const daemon = await startDaemonProcess(processes, ['--sim', '--activity-log', file]);
    fs.rmSync(file);

    const subscriber = await ApiSocket.open(daemon.port);
    expect(await subscriber.request({ id: 's1', method: 'subscribe', params: { events: ['mark'] } })).toMatchObject({ ok: true });
    const subscriberIds = new Set<unknown>(['s1']);
    const clients: Array<{ socket: ApiSocket; ids: Set<unknown> }> = [];
    for (let round = 0; round < 12; round++) {
      // A fresh connection each round: it is what a stale descriptor number would be given to.
      const socket = await ApiSocket.open(daemon.port);
      const ids = new Set<unknown>();
      clients.push({ socket, ids });
      for (let i = 0; i < 3; i++) {
        const id = `c${round}-${i}`;
        ids.add(id);
        expect(await socket.request({ id, method: 'mark', params: { text: `round ${round} call ${i}` } })).toMatchObject({ ok: true });
      }
      const id = `s-${round}`;
      subscriberIds.add(id);
      expect(await subscriber.request({ id, method: 'ping' })).toMatchObject({ ok: true });
    }
    await subscriber.until(() => subscriber.frames.filter((f) => f.type === 'event').length >= 36, 'the 36 mark events');

    for (const { socket, ids } of clients) {
      expect(socket.closed).toBe(false);
      onlyOwn(socket, ids, false);
    }
    onlyOwn(subscriber, subscriberIds, true);
    expect(subscriber.closed).toBe(false);
    expect(daemon.alive()).toBe(true);

    // The file was opened again and holds the calls made after it was removed.
    const records = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Frame);
    expect(records.filter((r) => r.event === 'call' && r.tool === 'mark')).toHaveLength(36);
    expect(daemon.out.stderr).toContain('opened it again');
    const status = await subscriber.request({ id: 'st', method: 'status' });
    expect(status.result.api.activityLog).toMatchObject({ file, lost: 0, reopened: 1 });
    for (const { socket } of clients) socket.close();
    subscriber.close();
  });

  it('on a full disk (/dev/full answers every write with ENOSPC): calls go on, lost lines are counted in status, one warning', async () => {
    const daemon = await startDaemonProcess(processes, ['--sim', '--activity-log', '/dev/full']);
    const socket = await ApiSocket.open(daemon.port);
    for (let i = 0; i < 5; i++) expect(await socket.request({ id: i, method: 'mark', params: { text: `full ${i}` } })).toMatchObject({ ok: true });
    const status = await socket.request({ id: 'st', method: 'status' });
    // Each mark writes a start line and an end line.
    expect(status.result.api.activityLog).toMatchObject({ file: '/dev/full', lost: 10, failing: expect.stringContaining('ENOSPC') });
    expect(daemon.out.stderr.match(/could not write the activity log/g)).toHaveLength(1);
    expect(daemon.alive()).toBe(true);
    socket.close();
  });
});

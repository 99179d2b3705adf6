/** The spool file: what reads is kept, whatever else the file holds (N20), in both formats. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { buildDelivery } from '../../../plugins/webhook/body.js';
import { Forwarder } from '../../../plugins/webhook/forwarder.js';
import { parseSpool, receiverKey, recordBytes, Spool } from '../../../plugins/webhook/spool.js';
import { captureLog } from './test-receiver.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const spoolFile = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-spool-unit-'));
  dirs.push(d);
  return path.join(d, 'w.spool');
};
const delivery = (n: number) => buildDelivery({ type: 'mark', category: 'mark', seq: n, streamId: 's', eventId: `s:${n}`, receivedAt: n, text: `m${n}` });
const KEY = receiverKey('http://127.0.0.1:1/x', 0);

it('renders and reads back the cursor, the clean stop and every queue in order', () => {
  const state = { streamId: 's', lastSeq: 9, closed: true, queues: { [KEY]: [delivery(1), delivery(2)], '1:other': [delivery(3)] } };
  const text = Spool.render(state);
  expect(text.split('\n')).toHaveLength(5);
  expect(parseSpool(text)).toEqual({ state, skipped: 0 });
  expect(parseSpool(Spool.render({ queues: {} }))).toEqual({ state: { queues: {} }, skipped: 0 });
  expect(Buffer.byteLength(text.split('\n')[1]!) + 1).toBe(recordBytes(KEY, delivery(1)));
});

it('skips what does not read: a torn line, a record of the wrong shape, a lost header (its cursor gone)', () => {
  const lines = Spool.render({ streamId: 's', lastSeq: 3, queues: { [KEY]: [delivery(1), delivery(2)] } })
    .trimEnd()
    .split('\n');
  const bad = [
    '{"r":',
    '{"r":"k","d":{"eventId":1,"type":"t","body":"b"}}',
    '{"r":"k","d":null}',
    '{"r":"k","d":{"eventId":"e","type":1,"body":"b"}}',
    '{"r":"k","d":{"eventId":"e","type":"t","body":1}}',
    `{"r":"${'k'.repeat(65)}","d":${JSON.stringify(delivery(5))}}`,
    '[1]',
    'null',
  ];
  const torn = parseSpool([lines[0], lines[1], ...bad, lines[2]].join('\n'));
  expect(torn.skipped).toBe(bad.length);
  expect(torn.state).toEqual({ streamId: 's', lastSeq: 3, queues: { [KEY]: [delivery(1), delivery(2)] } });
  const headless = parseSpool([lines[1], lines[2]].join('\n'));
  expect(headless).toEqual({ state: { queues: { [KEY]: [delivery(1), delivery(2)] } }, skipped: 1 });
  expect(parseSpool('garbage\n')).toEqual({ state: { queues: {} }, skipped: 1 });
  expect(parseSpool('null')).toEqual({ state: { queues: {} }, skipped: 1 });
  const badCursor = parseSpool(JSON.stringify({ spool: 2, streamId: 's', lastSeq: -1 }));
  expect(badCursor).toEqual({ state: { queues: {} }, skipped: 0 });
});

it('takes a cursor only whole: a string stream id of at most 200 characters and a seq >= 0; record keys up to 64 characters', () => {
  const header = (h: Record<string, unknown>) => parseSpool(JSON.stringify({ spool: 2, ...h })).state;
  expect(header({ streamId: 'x'.repeat(200), lastSeq: 0 })).toStrictEqual({ queues: {}, streamId: 'x'.repeat(200), lastSeq: 0 });
  for (const bad of [{ streamId: 'x'.repeat(201), lastSeq: 1 }, { streamId: 5, lastSeq: 1 }, { lastSeq: 1 }, { streamId: 's' }]) expect(header(bad)).toStrictEqual({ queues: {} });
  const key = 'k'.repeat(64);
  expect(parseSpool(`{"r":"${key}","d":${JSON.stringify(delivery(1))}}`)).toEqual({ state: { queues: { [key]: [delivery(1)] } }, skipped: 1 });
});

it('counts a lost header once, skips blank lines, and reads a file that is one JSON number or odd queues as damaged', () => {
  const [head, one, two] = Spool.render({ streamId: 's', lastSeq: 3, queues: { [KEY]: [delivery(1), delivery(2)] } })
    .trimEnd()
    .split('\n');
  expect(parseSpool([one, two, one].join('\n'))).toEqual({ state: { queues: { [KEY]: [delivery(1), delivery(2), delivery(1)] } }, skipped: 1 });
  expect(parseSpool([head, '   ', one, '\t', two].join('\n'))).toEqual({ state: { streamId: 's', lastSeq: 3, queues: { [KEY]: [delivery(1), delivery(2)] } }, skipped: 0 });
  expect(parseSpool('7')).toEqual({ state: { queues: {} }, skipped: 1 });
  expect(parseSpool(JSON.stringify({ queues: 5 }))).toEqual({ state: { queues: {} }, skipped: 1 });
});

it('reads the first format (one JSON object), keeping its good deliveries', () => {
  const old = { streamId: 's', lastSeq: 4, closed: true, queues: { [KEY]: [delivery(1), { eventId: 'x' }, delivery(2)], bad: 'nope' } };
  expect(parseSpool(JSON.stringify(old))).toEqual({ state: { streamId: 's', lastSeq: 4, closed: true, queues: { [KEY]: [delivery(1), delivery(2)] } }, skipped: 2 });
  expect(parseSpool(JSON.stringify({ queues: null }))).toEqual({ state: { queues: {} }, skipped: 1 });
});

it('load: a missing file is a fresh start, a damaged one is moved aside and named, one too long is read up to its bound', () => {
  const file = spoolFile();
  expect(new Spool(file, 4096).load()).toEqual({ queues: {} });
  fs.writeFileSync(file, Spool.render({ streamId: 's', lastSeq: 1, queues: { [KEY]: [delivery(1)] } }));
  expect(new Spool(file, 4096).load()).toEqual({ streamId: 's', lastSeq: 1, queues: { [KEY]: [delivery(1)] } });
  expect(fs.existsSync(file)).toBe(true);

  fs.appendFileSync(file, '{"torn":\n');
  const damaged = new Spool(file, 4096).load();
  expect(damaged.queues[KEY]).toEqual([delivery(1)]);
  expect(damaged.damage).toEqual({ skipped: 1, movedTo: expect.stringMatching(/w\.spool\.damaged-\d+$/) });
  expect(fs.existsSync(file)).toBe(false);
  expect(fs.readFileSync(damaged.damage!.movedTo!, 'utf8')).toContain('{"torn":');
  // The forwarder that takes such a spool says where the damaged file went.
  fs.writeFileSync(file, `${Spool.render({ queues: {} })}{"torn":\n`);
  const { lines, log } = captureLog();
  const forwarder = new Forwarder({ receivers: [] }, log);
  forwarder.takeSpool(new Spool(file, 4096));
  const movedTo = forwarder.status().spoolStatus!.damaged!.movedTo!;
  expect(lines).toEqual([expect.stringContaining(`was damaged: 1 part(s) could not be read and are lost, the rest is delivered; the file was moved to ${movedTo} {`)]);

  const long = spoolFile();
  fs.writeFileSync(long, Spool.render({ queues: { [KEY]: [delivery(1)] } }) + 'x'.repeat(4096 + 1024 * 1024));
  const cut = new Spool(long, 4096).load();
  expect(cut.queues[KEY]).toEqual([delivery(1)]);
  expect(cut.damage?.skipped).toBe(2); // the unread tail, and the partial line where reading stopped
  // Exactly at the bound plus the slack is not too long: nothing is cut, nothing moved.
  const full = spoolFile();
  const rendered = Spool.render({ streamId: 's', lastSeq: 1, queues: { [KEY]: [delivery(1)] } });
  fs.writeFileSync(full, rendered + '\n'.repeat(4096 + 1024 * 1024 - Buffer.byteLength(rendered)));
  expect(new Spool(full, 4096).load()).toEqual({ streamId: 's', lastSeq: 1, queues: { [KEY]: [delivery(1)] } });
  const folder = spoolFile();
  fs.mkdirSync(folder);
  expect(() => new Spool(folder, 4096).load()).toThrow(/webhook spool .* cannot be read \(EISDIR\): check it is a file/);
  const plain = spoolFile();
  fs.writeFileSync(plain, '');
  const underAFile = path.join(plain, 'spool');
  expect(() => new Spool(underAFile, 4096).load()).toThrow(`webhook spool ${underAFile} cannot be read (ENOTDIR): check its permissions`);
  // Both refusals are the user's to fix, and neither leaves a descriptor open, nor does a good read.
  const fds = () => fs.readdirSync('/proc/self/fd').length;
  const before = fds();
  for (const at of [folder, underAFile]) expect(() => new Spool(at, 4096).load()).toThrow(expect.objectContaining({ code: 'invalid_params' }));
  for (let i = 0; i < 20; i += 1) {
    new Spool(full, 4096).load();
    expect(() => new Spool(folder, 4096).load()).toThrow();
  }
  expect(fds()).toBe(before);
});

/** A tmpfs remounted read-only once `fill` has written it; null where mounting is not allowed (root with CAP_SYS_ADMIN is needed). */
function readOnlyDir(fill: (dir: string) => void): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-spool-ro-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    fs.rmSync(dir, { recursive: true });
    return null;
  }
  fill(dir);
  execFileSync('mount', ['-o', 'remount,ro', dir]);
  return dir;
}

it('a damaged spool that cannot be moved aside is still read, and the forwarder says it will be overwritten', async (t) => {
  const file = (dir: string) => path.join(dir, 'w.spool');
  const dir = readOnlyDir((d) => fs.writeFileSync(file(d), `${Spool.render({ streamId: 's', lastSeq: 2, queues: { [KEY]: [delivery(1)] } })}{"torn":\n`));
  if (dir === null) return t.skip();
  try {
    const { lines, log } = captureLog();
    const forwarder = new Forwarder({ receivers: [{ url: 'http://127.0.0.1:1/x', secret: 'whsec-ro-test', events: ['*'], queueSize: 4, maxAttempts: 1, backoff: 0, maxBackoff: 0, timeout: 1 }] }, log);
    expect(forwarder.takeSpool(new Spool(file(dir), 4096)).resume).toEqual({ streamId: 's', lastSeq: 2 });
    expect(forwarder.status().spoolStatus?.damaged).toEqual({ skipped: 1, moveError: 'EROFS' });
    expect(forwarder.status().receivers[0]).toMatchObject({ queued: 1, gaps: 1 });
    const said = `webhook spool ${file(dir)} was damaged: 1 part(s) could not be read and are lost, the rest is delivered; the file was could not be moved aside (EROFS); it is overwritten`;
    expect(lines.some((l) => l.includes(said))).toBe(true);
    expect(lines.filter((l) => l.includes('events may have been lost before they could be queued (spool-damaged)'))).toHaveLength(1);
    // Writing fails and says so; once the file system takes writes again, it says that too.
    await forwarder.flush();
    expect(lines.some((l) => l.startsWith(`error webhook spool ${file(dir)} cannot be written (`))).toBe(true);
    execFileSync('mount', ['-o', 'remount,rw', dir]);
    await forwarder.flush();
    expect(lines.some((l) => l.startsWith(`info webhook spool ${file(dir)} is written again`))).toBe(true);
    // What was owed and not in flight (never started) is written back.
    expect(parseSpool(fs.readFileSync(file(dir), 'utf8')).state.queues).toEqual({ [KEY]: [delivery(1)] });
    await forwarder.stop();
  } finally {
    execFileSync('umount', ['-l', dir]);
    fs.rmSync(dir, { recursive: true });
  }
});

/**
 * The write ledger file read and written as a hostile stranger would have it (issue 35, item
 * 23): entries edited by hand, another daemon on the file, answers too big to read back, more
 * writes in flight than a file may list (a disk that never finishes a write: tests/faults/write-ledger-disk.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McbridgeError } from '../../../../core/host/errors.js';
import { readLedgerFile } from '../../../../core/host/link/ledger-file.js';
import type { ModReply } from '../../../../core/host/link/replies.js';
import { fingerprintOf, KEEP_ERROR_CHARS, LEDGER_MS, MAX_IN_FLIGHT, sendWrite, WriteLedger } from '../../../../core/host/link/writes.js';
import { recorder, writeLedgerFile } from './ledger-support.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tmpFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-ledger-hostile-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, '.mcbridge', 'write-ledger-default.json');
}

function open(file: string, log = recorder().log): WriteLedger {
  const ledger = new WriteLedger(undefined, { file, log });
  cleanups.push(() => ledger.close());
  return ledger;
}

const ack = (detail: string): ModReply => ({ type: 'cmd_ack', detail });
const never = () => new Promise<ModReply>(() => {});
const entry = (id: string, at: number, extra: Record<string, unknown> = {}) => ({
  id,
  at,
  fingerprint: fingerprintOf(`CMD say ${id}`),
  operation: 'CMD',
  state: 'completed',
  reply: ack(id),
  ...extra,
});

function ids(file: string): string[] {
  return (readLedgerFile(file) as { entries: Array<{ id: string }> }).entries.map((e) => e.id);
}

describe('a ledger file edited by hand', () => {
  it('entries of the wrong type cost themselves: the others are used, the file as found is copied aside, then rewritten', async () => {
    const file = tmpFile();
    const now = Date.now();
    writeLedgerFile(file, [entry('good-1', now), { ...entry('bad-at', now), at: 'yesterday' }, { ...entry('bad-state', now), state: 'done' }, 42, entry('good-2', now)]);
    const found = fs.readFileSync(file, 'utf8');
    const ledger = open(file);
    expect(ledger.size).toBe(2);
    expect(ledger.admit('good-2', 'CMD say good-2')).toMatchObject({ duplicate: true, detail: 'good-2' });
    const status = ledger.summary().file!;
    expect(status).toMatchObject({ loaded: 2, skipped: 3, problem: '3 of its entries did not read and were left out' });
    expect(fs.readFileSync(status.setAside!, 'utf8')).toBe(found);
    await ledger.close();
    expect(ids(file)).toEqual(['good-1', 'good-2']);
  });

  it('an id listed twice with different contents is taken as a write that may have run, never as either answer', () => {
    const file = tmpFile();
    const now = Date.now();
    writeLedgerFile(file, [entry('twice', now - 10, { state: 'pending', reply: undefined }), entry('twice', now), entry('same', now), entry('same', now)]);
    const ledger = open(file);
    const refused = ledger.admit('twice', 'CMD say twice') as McbridgeError;
    expect(refused).toBeInstanceOf(McbridgeError);
    expect([refused.code, refused.outcome]).toEqual(['busy', { retryable: false, resultUnknown: true, requestId: 'twice' }]);
    expect(ledger.statusOf('twice')).toMatchObject({ state: 'unknown', sent: true, error: { message: expect.stringMatching(/listed it twice/) } });
    // The same entry twice is one entry.
    expect(ledger.admit('same', 'CMD say same')).toMatchObject({ duplicate: true });
    expect(ledger.size).toBe(2);
  });

  it('a time in the future is taken as now: it does not keep older entries past their 30 minutes', () => {
    const file = tmpFile();
    const now = Date.now();
    const future = now + 10 * 365 * 24 * 3600_000;
    writeLedgerFile(file, [entry('future', future), entry('old', now - LEDGER_MS - 60_000), entry('recent', now - 1000)]);
    const ledger = open(file);
    expect(ledger.statusOf('old')).toMatchObject({ state: 'unknown', note: expect.stringMatching(/no record/) });
    expect(ledger.statusOf('recent').state).toBe('completed');
    const kept = ledger.statusOf('future');
    expect(kept.state).toBe('completed');
    expect(kept.updatedAtMillis as number).toBeLessThanOrEqual(Date.now());
  });
});

describe('what the ledger writes, it reads back', () => {
  it('an error of 100,000 characters and big details: kept cut (and said), so the next daemon reads its file whole', async () => {
    const file = tmpFile();
    const first = open(file);
    const message = `CMD say x: ${'e'.repeat(100_000)}`;
    await sendWrite(first, 'long-err', 'CMD say x', () => Promise.reject(new McbridgeError('mod_error', message, { echo: 'd'.repeat(100_000) }))).catch(() => undefined);
    await first.close();
    const second = open(file);
    expect(second.summary().file).toMatchObject({ loaded: 1, skipped: 0, problem: null });
    const refused = second.admit('long-err', 'CMD say x') as McbridgeError;
    expect(refused.code).toBe('mod_error');
    expect(refused.message.length).toBeLessThanOrEqual(KEEP_ERROR_CHARS);
    expect(refused.message.slice(-60)).toMatch(/… \(cut: 100011 characters\)$/);
    expect(refused.details).toEqual({ detailsCut: true });
  });

  it(`no more than ${MAX_IN_FLIGHT} writes in flight: the next is refused before it is sent (retryable), and the file stays one the next daemon reads`, async () => {
    const file = tmpFile();
    const first = open(file);
    let sent = 0;
    const send = () => {
      sent += 1;
      return never();
    };
    for (let n = 0; n < MAX_IN_FLIGHT; n += 1) void sendWrite(first, `f-${n}`, `CMD say ${n}`, send);
    const over = await sendWrite(first, 'f-over', 'CMD say over', send).catch((err: McbridgeError) => err);
    expect(over).toBeInstanceOf(McbridgeError);
    expect((over as McbridgeError).outcome).toEqual({ retryable: true, resultUnknown: false, requestId: 'f-over' });
    expect((over as McbridgeError).message).toMatch(/4096 writes are in flight.*was not sent.*send it again/);
    await first.durable();
    expect(sent).toBe(MAX_IN_FLIGHT);
    await first.close();
    const second = open(file);
    expect(second.summary().file).toMatchObject({ loaded: MAX_IN_FLIGHT, problem: null });
    expect(second.statusOf('f-over').sent).toBeUndefined();
  });
});

describe('a link planted as the temporary file', () => {
  it('is never written through: the save fails (ELOOP), the link is removed, the next save lands; its target is untouched', async () => {
    const file = tmpFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const victim = path.join(path.dirname(file), 'victim.txt');
    fs.writeFileSync(victim, 'keep me');
    fs.symlinkSync(victim, `${file}.tmp`);
    const ledger = open(file);
    await sendWrite(ledger, 'l-1', 'CMD say 1', async () => ack('1'));
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep me');
    expect(ledger.summary().file).toMatchObject({ failing: true, lastError: expect.stringMatching(/^ELOOP/), unsafeSends: 1 });
    const onDisk: boolean[] = [];
    await sendWrite(ledger, 'l-2', 'CMD say 2', async () => {
      onDisk.push(ids(file).includes('l-2'));
      return ack('2');
    });
    expect(onDisk).toEqual([true]);
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep me');
    expect(fs.lstatSync(file).isFile()).toBe(true);
  });
});

describe('one writer per ledger file', () => {
  it('a second ledger on a file in use keeps to memory and says so; the first one’s file is untouched; once given up, the next takes it', async () => {
    const file = tmpFile();
    const first = open(file);
    await sendWrite(first, 'mine', 'CMD say mine', async () => ack('mine'));
    const { log, warnings } = recorder();
    const second = open(file, log);
    expect(second.summary().file).toMatchObject({ heldBy: expect.stringMatching(/another target of this daemon/), loaded: 0 });
    expect(second.admit('mine', 'CMD say mine')).toBeNull();
    expect(warnings.join('\n')).toMatch(/is in use by .*kept in memory only.*MCBRIDGE_STATE_DIR/);
    await sendWrite(second, 'theirs', 'CMD say theirs', async () => ack('theirs'));
    expect(second.summary().file!.unsafeSends).toBe(1);
    await second.close();
    await first.close();
    expect(ids(file)).toEqual(['mine']);
    const third = open(file);
    expect(third.summary().file).toMatchObject({ heldBy: null, loaded: 1 });
  });

  it('a lock left by a daemon that died (SIGKILL) is taken over; one of a live process is not', async () => {
    const file = tmpFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Above Linux's largest pid (2^22): no process has it, as none has a killed daemon's.
    const dead = 2 ** 22 + 1;
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: dead, at: 1 }));
    const taken = open(file);
    expect(taken.summary().file!.heldBy).toBeNull();
    await taken.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    // PID 1 is alive (init), and not this process.
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 1, at: 1 }));
    expect(open(file).summary().file!.heldBy).toBe('the process 1');
  });
});

/**
 * The write ledger's file (issue 35, item 23): each write's `pending` entry on disk before the
 * write is sent, read back by the next ledger on the file (a restarted daemon), bounded as the
 * memory ledger is; a corrupt, cut, deep or huge file set aside and said, never a crash; a folder
 * that cannot be written counted and said, the write sent all the same.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McbridgeError } from '../../../../core/host/errors.js';
import { MAX_FILE_BYTES, readLedgerFile } from '../../../../core/host/link/ledger-file.js';
import type { ModReply } from '../../../../core/host/link/replies.js';
import { fingerprintOf, KEEP_WHOLE_BYTES, LEDGER_BYTES, LEDGER_ENTRIES, sendWrite, WriteLedger } from '../../../../core/host/link/writes.js';
import { recorder, writeLedgerFile } from './ledger-support.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tmpFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-ledger-file-'));
  dirs.push(dir);
  return path.join(dir, '.mcbridge', 'write-ledger-default.json');
}

function open(file: string, log = recorder().log): WriteLedger {
  return new WriteLedger(undefined, { file, log });
}

function storedEntry(file: string, id: string): Record<string, unknown> | undefined {
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: Array<Record<string, unknown>> };
  return json.entries.find((e) => e.id === id);
}

const ack = (detail: string): ModReply => ({ type: 'cmd_ack', detail });
const never = () => new Promise<ModReply>(() => {});

const completed = (id: string, reply: ModReply) => ({ id, at: Date.now(), fingerprint: fingerprintOf(`CMD ${id}`), operation: 'CMD', state: 'completed', reply });

describe('the write ledger on disk', () => {
  it("a write's pending entry is on disk before it is sent, and its answer once it settles", async () => {
    const file = tmpFile();
    const ledger = open(file);
    const atSend: unknown[] = [];
    await sendWrite(ledger, 'w-1', 'CMD say hi', async () => {
      atSend.push(storedEntry(file, 'w-1'));
      return ack('say hi');
    });
    expect(atSend).toEqual([expect.objectContaining({ state: 'pending', operation: 'CMD', fingerprint: fingerprintOf('CMD say hi') })]);
    await ledger.close();
    expect(storedEntry(file, 'w-1')).toMatchObject({ state: 'completed', reply: { type: 'cmd_ack', detail: 'say hi' } });
  });

  it('writes of one tick share one disk write, and each is on disk before it is sent', async () => {
    const file = tmpFile();
    const ledger = open(file);
    const onDisk: boolean[] = [];
    await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        sendWrite(ledger, `t-${n}`, `CMD say ${n}`, async () => {
          onDisk.push(storedEntry(file, `t-${n}`) !== undefined);
          return ack(`${n}`);
        }),
      ),
    );
    expect(onDisk).toEqual(Array(50).fill(true));
    expect(ledger.summary().file!.writes).toBe(1);
  });

  it('read back by the next ledger: completed answers duplicate, another payload conflicts, one that may have run is refused and request_status answers each', async () => {
    const file = tmpFile();
    const first = open(file);
    await sendWrite(first, 'w-done', 'CMD say done', async () => ack('say done'));
    await sendWrite(first, 'w-failed', 'CMD bad', () => Promise.reject(new McbridgeError('mod_error', 'CMD bad: unknown command'))).catch(() => undefined);
    await sendWrite(first, 'w-lost', 'MARK lost', () => Promise.reject(new McbridgeError('timeout', 'no answer')), { sentOnError: true }).catch(() => undefined);
    void sendWrite(first, 'w-flight', 'CMD say flight', never);
    await first.close();
    // The first ledger is never told more: its daemon was killed.

    const second = open(file);
    expect(second.summary().file).toMatchObject({ loaded: 4, problem: null });
    expect(second.admit('w-done', 'CMD say done')).toEqual({ type: 'cmd_ack', detail: 'say done', duplicate: true, requestId: 'w-done' });
    const conflict = second.admit('w-done', 'CMD say other') as McbridgeError;
    expect([conflict.code, conflict.outcome]).toEqual(['conflict', { retryable: false, resultUnknown: false, requestId: 'w-done' }]);
    expect((second.admit('w-failed', 'CMD bad') as McbridgeError).code).toBe('mod_error');
    for (const id of ['w-flight', 'w-lost']) {
      const line = id === 'w-lost' ? 'MARK lost' : 'CMD say flight';
      // Not even where the server keeps a ledger of its own (a control target): its run may have ended.
      const refused = second.admit(id, line, true) as McbridgeError;
      expect(refused).toBeInstanceOf(McbridgeError);
      expect(refused.code).toBe('busy');
      expect(refused.outcome).toEqual({ retryable: false, resultUnknown: true, requestId: id });
      expect(refused.message).toMatch(new RegExp(`before the daemon restarted.*may have run.*mcbridge request-status ${id}`));
      expect(second.statusOf(id)).toMatchObject({ requestId: id, state: 'unknown', sent: true, source: 'daemon' });
    }
    expect(second.statusOf('w-done')).toMatchObject({ state: 'completed', operation: 'CMD', result: { type: 'cmd_ack', detail: 'say done' } });
    expect(second.statusOf('w-failed')).toMatchObject({ state: 'failed', error: { code: 'mod_error' } });
    expect(second.statusOf('w-never')).toMatchObject({ state: 'unknown', source: 'daemon' });
    expect(second.statusOf('w-never').sent).toBeUndefined();
  });

  const cut = (file: string) => {
    writeLedgerFile(file, [completed('a', ack('a')), completed('b', ack('b'))]);
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
  };
  const bad: Array<[string, (file: string) => void, RegExp]> = [
    ['not JSON', (f) => fs.writeFileSync(f, 'garbage{'), /not JSON/],
    ['cut short', cut, /not JSON \(cut short/],
    ['another shape', (f) => fs.writeFileSync(f, JSON.stringify({ entries: [] })), /not a write ledger this daemon wrote: format/],
    [
      'of another target',
      (f) => fs.writeFileSync(f, JSON.stringify({ format: 'mcbridge-write-ledger', version: 1, target: 'other', savedAt: 1, entries: [completed('a', ack('a'))] })),
      /the write ledger of target 'other', not of 'default'/,
    ],
    ['naming no target', (f) => fs.writeFileSync(f, JSON.stringify({ format: 'mcbridge-write-ledger', version: 1, savedAt: 1, entries: [] })), /not a write ledger this daemon wrote: target/],
    [
      'that is a symbolic link to a good ledger elsewhere',
      (f) => {
        const elsewhere = `${path.dirname(f)}/elsewhere.json`;
        writeLedgerFile(elsewhere, [completed('a', ack('a'))]);
        fs.rmSync(f);
        fs.symlinkSync(elsewhere, f);
      },
      /symbolic link/,
    ],
    [
      'that is a folder',
      (f) => {
        fs.rmSync(f);
        fs.mkdirSync(f);
      },
      /not a plain file \(a folder\)/,
    ],
    [
      'too many entries',
      (f) =>
        writeLedgerFile(
          f,
          Array.from({ length: 8193 }, (_, n) => completed(`n-${n}`, ack('x'))),
        ),
      /entries/,
    ],
    [
      'whose answer nests 100,000 deep',
      (f) => {
        writeLedgerFile(f, [completed('deep', ack('deep'))]);
        fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('"detail":"deep"', `"detail":${'['.repeat(100_000)}${']'.repeat(100_000)}`));
      },
      /nests deeper than/,
    ],
    ['over the size a ledger can take', (f) => fs.truncateSync(f, MAX_FILE_BYTES + 1), /over the \d+ a write ledger can take/],
  ];
  it.each(bad)('a file %s is set aside and said, and the ledger starts empty and works', async (_, make, problem) => {
    const file = tmpFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    make(file);
    const { log, warnings } = recorder();
    const ledger = open(file, log);
    expect(ledger.size).toBe(0);
    const status = ledger.summary().file!;
    expect(status.problem).toMatch(problem);
    expect(status.setAside).toMatch(/write-ledger-default\.json\.bad-\d+$/);
    expect(fs.existsSync(status.setAside!)).toBe(true);
    expect(warnings.join('\n')).toMatch(/was not used: .*moved to/);
    expect(await sendWrite(ledger, 'after', 'CMD say after', async () => ack('after'))).toMatchObject({ detail: 'after' });
    await ledger.close();
    expect(readLedgerFile(file)).toMatchObject({ entries: [expect.objectContaining({ id: 'after', state: 'completed' })] });
  });

  it('read back within the memory bounds: no more than 1024 entries, 16 MiB, and a big answer kept as a cut', () => {
    const many = tmpFile();
    writeLedgerFile(
      many,
      Array.from({ length: 3000 }, (_, n) => completed(`n-${n}`, ack(`${n}`))),
    );
    const counted = open(many);
    expect(counted.size).toBe(LEDGER_ENTRIES);
    // The newest are kept.
    expect(counted.statusOf('n-2999').state).toBe('completed');
    expect(counted.statusOf('n-0').state).toBe('unknown');

    const big = tmpFile();
    const large = 'x'.repeat(KEEP_WHOLE_BYTES - 1024);
    const huge = 'y'.repeat(1024 * 1024);
    writeLedgerFile(big, [completed('huge', { type: 'cmd_ack', detail: 'huge', output: [huge] }), ...Array.from({ length: 300 }, (_, n) => completed(`l-${n}`, { type: 'cmd_ack', output: [large] }))]);
    const sized = open(big);
    expect(sized.bytes).toBeLessThanOrEqual(LEDGER_BYTES);
    expect(sized.size).toBeLessThan(300);
    const another = tmpFile();
    writeLedgerFile(another, [completed('huge', { type: 'cmd_ack', detail: 'huge', output: [huge] })]);
    const kept = open(another).statusOf('huge').result as Record<string, unknown>;
    expect(kept).toMatchObject({ type: 'cmd_ack', detail: 'huge', truncated: true, originalBytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(kept.output).toBeUndefined();
  });

  it('the file stays bounded as the ledger is: 1100 writes leave 1024 entries on disk', async () => {
    const file = tmpFile();
    const ledger = open(file);
    await Promise.all(Array.from({ length: 1100 }, (_, n) => sendWrite(ledger, `b-${n}`, `CMD say ${n}`, async () => ack(`${n}`))));
    await ledger.close();
    const read = readLedgerFile(file) as { entries: Array<{ id: string }> };
    expect(read.entries.length).toBe(LEDGER_ENTRIES);
    expect(read.entries.at(-1)!.id).toBe('b-1099');
  });

  it('a folder that cannot be written (a file stands where it should be): the write goes, the failure is counted and said, nothing throws', async () => {
    const file = tmpFile();
    const blocker = path.dirname(file);
    fs.writeFileSync(blocker, 'not a folder');
    const { log, warnings } = recorder();
    const ledger = open(file, log);
    let sent = 0;
    for (const n of [1, 2]) {
      expect(
        await sendWrite(ledger, `f-${n}`, `CMD say ${n}`, async () => {
          sent += 1;
          return ack(`${n}`);
        }),
      ).toMatchObject({ detail: `${n}` });
    }
    expect(sent).toBe(2);
    // Still refused in this run: the memory ledger holds.
    expect(ledger.admit('f-1', 'CMD say 1')).toMatchObject({ duplicate: true });
    const status = ledger.summary().file!;
    expect(status).toMatchObject({ failing: true, unsafeSends: 2, lastError: expect.stringMatching(/^(ENOTDIR|EEXIST)/) });
    expect(status.failures).toBeGreaterThanOrEqual(2);
    expect(warnings.filter((w) => /cannot save the write ledger/.test(w))).toHaveLength(1);
    await ledger.close();
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ActivityLog, type ActivityRecord } from '../../../core/api/activity-log.js';
import { redactUrls, redactValue } from '../../../core/util/redact.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcbridge-activity-'));
  dirs.push(dir);
  return path.join(dir, 'activity.jsonl');
}

/** A pino logger whose lines land in an array. */
function capture(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: pino({ level }, stream), lines };
}

const caller = { frontend: 'mcp', conn: 3, session: 'abcd1234' };
const SECRET = 's3cr3t-t0ken-value';

describe('ActivityLog', () => {
  it('writes one line per call, a start line first for mutating calls, with duration and outcome', () => {
    const file = tempFile();
    const { log, lines } = capture();
    const activity = new ActivityLog({ log, file });
    activity.begin({ id: 1, tool: 'state', caller, mutating: false, args: {} })('ok');
    activity.begin({ id: 2, tool: 'command', caller, mutating: true, args: { command: 'say hi' } })('ok');
    activity.begin({ id: 3, tool: 'command', caller, mutating: true, args: { command: 'op me' } })('tool_disabled');
    activity.close();
    const records = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ActivityRecord);
    expect(records.map((r) => [r.event, r.id, r.tool, r.outcome ?? null])).toEqual([
      ['call', 1, 'state', 'ok'],
      ['start', 2, 'command', null],
      ['call', 2, 'command', 'ok'],
      ['start', 3, 'command', null],
      ['call', 3, 'command', 'tool_disabled'],
    ]);
    expect(records[2]).toMatchObject({ caller, mutating: true, args: { command: 'say hi' }, ms: expect.any(Number) });
    // At info, the read that succeeded stays out of the process log; mutating and refused calls do not.
    expect(lines.map((l) => (l.activity as ActivityRecord).id)).toEqual([2, 2, 3, 3]);
  });

  it('redacts secrets and URL credentials, paths and queries in arguments', () => {
    const file = tempFile();
    const { log, lines } = capture('debug');
    const activity = new ActivityLog({ log, file });
    activity.begin({
      id: 'x',
      tool: 'webhook_test',
      caller,
      mutating: true,
      args: { apiToken: SECRET, nested: { password: SECRET }, url: `https://user:${SECRET}@hooks.example.net/services/${SECRET}?key=${SECRET}`, text: 'x'.repeat(500) },
    })('ok');
    activity.close();
    const text = fs.readFileSync(file, 'utf8') + JSON.stringify(lines);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('/services/');
    const record = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]) as ActivityRecord;
    expect(record.args).toMatchObject({ apiToken: '[redacted]', nested: { password: '[redacted]' }, url: 'https://[redacted]@hooks.example.net/…' });
    expect((record.args as { text: string }).text).toMatch(/^x{200}…\(\+300 chars\)$/);
  });

  it('rotates by size and keeps the configured number of old files', () => {
    const file = tempFile();
    const activity = new ActivityLog({ log: capture().log, file, maxBytes: 2_000, keep: 2 });
    for (let i = 0; i < 100; i++) activity.begin({ id: i, tool: 'state', caller, mutating: false, args: { i } })('ok');
    activity.close();
    const names = fs.readdirSync(path.dirname(file)).sort();
    expect(names).toEqual(['activity.jsonl', 'activity.jsonl.1', 'activity.jsonl.2']);
    for (const name of names) {
      const content = fs.readFileSync(path.join(path.dirname(file), name), 'utf8');
      expect(Buffer.byteLength(content)).toBeLessThanOrEqual(2_000);
      for (const line of content.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    }
    const last = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id as number);
    expect(last.at(-1)).toBe(99);
  });
});

describe('redactValue', () => {
  it('never throws and bounds depth, length and items', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 5_000; i++) deep = [deep];
    expect(JSON.stringify(redactValue(deep))).toBe('[[[["[…]"]]]]');
    expect(redactValue(Array.from({ length: 30 }, (_, i) => i))).toHaveLength(21);
    expect(redactValue({ f() {}, n: 1n, s: Symbol('x'), u: undefined })).toEqual({ f: '[function f]', n: '1', s: 'Symbol(x)' });
  });

  it("keeps a URL's scheme and host only", () => {
    expect(redactUrls('post to http://a:b@host:8080/p/q?x=1 now')).toBe('post to http://[redacted]@host:8080/… now');
    expect(redactUrls('https://example.org')).toBe('https://example.org');
  });
});

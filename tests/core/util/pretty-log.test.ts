import { describe, expect, it } from 'vitest';
import { prettyLine } from '../../../core/util/pretty-log.js';

const line = (record: Record<string, unknown>) => JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 1, 12, 3, 4, 5), pid: 7, hostname: 'h', name: 'mcbridge', ...record }) + '\n';

describe('prettyLine', () => {
  it("prints time, level, message and the other fields as key=value, without pino's own keys", () => {
    const out = prettyLine(line({ msg: 'connected to server mod on port 25565', port: 25565, caps: ['chat', 'state'], note: 'two words' }), false);
    expect(out).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}connected to server mod on port 25565 {2}port=25565 caps=\["chat","state"\] note="two words"\n$/);
    expect(out).not.toMatch(/pid|hostname|mcbridge/);
  });

  it('names a logger other than mcbridge, and shows an error by its message', () => {
    const out = prettyLine(line({ level: 40, name: 'mcbridge-forward', msg: 'lost the daemon', err: { type: 'Error', message: 'ECONNREFUSED', stack: 'Error: at x' } }), false);
    expect(out).toContain('WARN  [mcbridge-forward] lost the daemon  err="ECONNREFUSED"');
    expect(out).not.toContain('stack');
  });

  it('colours only when asked', () => {
    expect(prettyLine(line({ msg: 'm' }), false)).not.toContain('\u001b[');
    expect(prettyLine(line({ level: 50, msg: 'm' }), true)).toContain('\u001b[31mERROR\u001b[0m');
  });

  it('passes a line that is not JSON through as it is', () => {
    expect(prettyLine('plain text', false)).toBe('plain text\n');
  });
});

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startTestHost } from '../../core/testing/index.js';
import { refuses } from '../support/helpers.js';

describe('mcbridge/testing: startTestHost', () => {
  it('stops the daemon and the sim it started when the daemon never connects', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    // The sim listens on 127.0.0.2, the daemon dials 127.0.0.1: it never connects.
    const err = await startTestHost({ sim: { host: '127.0.0.2' }, log }).then(
      () => new Error('expected startTestHost to fail'),
      (e: Error) => e,
    );
    expect(err.message).toMatch(/timed out .* the daemon to connect/);
    const api = lines.map((l) => JSON.parse(l) as { api?: { port: number } }).find((l) => l.api)?.api;
    expect(api?.port).toBeGreaterThan(0);
    expect(await refuses(api!.port)).toBe(true);
  }, 15_000);
});

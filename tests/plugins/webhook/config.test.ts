import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OFF_MESSAGE, resolveReceivers } from '../../../plugins/webhook/config.js';

const URL_ = 'https://hooks.example.com/h/abc?token=t';
const dir = mkdtempSync(join(tmpdir(), 'mcbridge-webhook-config-'));
function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}
const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect((err as { code?: string }).code).toBe('invalid_params');
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('webhook config', () => {
  it('is off by default, naming both variables', () => {
    expect(resolveReceivers({}, {})).toEqual({ receivers: [], off: OFF_MESSAGE });
    expect(OFF_MESSAGE).toContain('MC_AGENT_WEBHOOK_URL');
    expect(OFF_MESSAGE).toContain('MC_AGENT_WEBHOOK_SECRET');
  });

  it('needs both URL and secret; each refusal names the missing variable', () => {
    expect(refusal(() => resolveReceivers({}, { MC_AGENT_WEBHOOK_URL: URL_ }))).toMatch(/^MC_AGENT_WEBHOOK_SECRET is not set/);
    expect(refusal(() => resolveReceivers({}, { MC_AGENT_WEBHOOK_SECRET: 's' }))).toMatch(/^MC_AGENT_WEBHOOK_URL is not set/);
  });

  it('builds the default receiver from the environment with the documented defaults', () => {
    expect(resolveReceivers({}, { MC_AGENT_WEBHOOK_URL: URL_, MC_AGENT_WEBHOOK_SECRET: 's' }).receivers[0]).toEqual({
      url: URL_,
      secret: 's',
      events: ['chat', 'game', 'mark', 'error'],
      queueSize: 256,
      maxAttempts: 5,
      backoff: 1,
      maxBackoff: 30,
      timeout: 10,
    });
  });

  it('parses tuning variables; the environment wins over the file, the file over defaults', () => {
    const cfg = file('cfg.json', { url: 'http://file.example/x', secret: 'filesecret', events: ['game'], queue_size: 7, max_attempts: 3, timeout: 4 });
    const env = {
      MC_AGENT_WEBHOOK_CONFIG: cfg,
      MC_AGENT_WEBHOOK_SECRET: 'envsecret',
      MC_AGENT_WEBHOOK_EVENTS: ' chat , mark,chat',
      MC_AGENT_WEBHOOK_QUEUE: '9',
      MC_AGENT_WEBHOOK_BACKOFF: '0.5',
      MC_AGENT_WEBHOOK_MAX_BACKOFF: '2',
    };
    expect(resolveReceivers({}, env).receivers[0]).toEqual({
      url: 'http://file.example/x',
      secret: 'envsecret',
      events: ['chat', 'mark'],
      queueSize: 9,
      maxAttempts: 3,
      backoff: 0.5,
      maxBackoff: 2,
      timeout: 4,
    });
  });

  it('rejects bad numbers and non-http URLs without echoing credentials', () => {
    const base = { MC_AGENT_WEBHOOK_URL: URL_, MC_AGENT_WEBHOOK_SECRET: 's' };
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_QUEUE: 'lots' }))).toContain('MC_AGENT_WEBHOOK_QUEUE must be a non-negative number');
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_BACKOFF: '-1' }))).toContain('MC_AGENT_WEBHOOK_BACKOFF');
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_QUEUE: '0' }))).toContain('queue size must be a whole number >= 1');
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_TIMEOUT: '0' }))).toContain('timeout must be more than 0');
    const bad = refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_URL: 'ftp://user:pw@host.example/secret-path?token=q' }));
    expect(bad).toContain('absolute http:// or https:// URL');
    for (const leak of ['pw', 'secret-path', 'token=q']) expect(bad).not.toContain(leak);
  });

  it('names a missing or malformed config file without echoing it', () => {
    expect(refusal(() => resolveReceivers({}, { MC_AGENT_WEBHOOK_CONFIG: join(dir, 'nope.json') }))).toContain('nope.json cannot be read (ENOENT)');
    const broken = file('broken.json', '{"secret": "hunter2", ');
    const msg = refusal(() => resolveReceivers({}, {}, broken));
    expect(msg).toContain('is not valid JSON');
    expect(msg).not.toContain('hunter2');
    expect(refusal(() => resolveReceivers({}, {}, file('list.json', [1])))).toContain('must hold a JSON object');
  });

  it('resolves a list of receivers from named variables and files, and refuses one without a secret', () => {
    const secretFile = file('secret.txt', 'from-file\n');
    const env = { A_URL: 'http://a.example/x', A_SECRET: 'sa', B_URL: 'https://b.example:8443/y' };
    const { receivers } = resolveReceivers(
      {
        receivers: [
          { urlEnv: 'A_URL', secretEnv: 'A_SECRET', events: '*' },
          { urlEnv: 'B_URL', secretFile, events: ['chat'], timeout: 2 },
        ],
      },
      env,
    );
    expect(receivers.map((r) => [r.url, r.secret, r.events, r.timeout])).toEqual([
      ['http://a.example/x', 'sa', ['*'], 10],
      ['https://b.example:8443/y', 'from-file', ['chat'], 2],
    ]);
    expect(refusal(() => resolveReceivers({ receivers: [{ urlEnv: 'A_URL' }] }, env))).toBe(
      'webhook receiver 1: no secret: set secretEnv to an environment variable that holds it, or secretFile to a file that does',
    );
    expect(refusal(() => resolveReceivers({ receivers: [{ urlEnv: 'NOPE', secretEnv: 'A_SECRET' }] }, env))).toContain('NOPE (urlEnv) is not set');
    expect(refusal(() => resolveReceivers({ receivers: [{ urlEnv: 'A_URL', secretEnv: 'A_SECRET', events: ['chatter'] }] }, env))).toContain("unknown event category 'chatter'");
  });

  it('reads a receivers list from the JSON config file', () => {
    const cfg = file('multi.json', { receivers: [{ urlEnv: 'A_URL', secretEnv: 'A_SECRET', queueSize: 3 }] });
    expect(resolveReceivers({}, { A_URL: 'http://a.example', A_SECRET: 'x', MC_AGENT_WEBHOOK_CONFIG: cfg }).receivers[0]).toMatchObject({ url: 'http://a.example', queueSize: 3 });
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OFF_MESSAGE, resolvePaths, resolveReceivers, spoolOfTarget } from '../../../plugins/webhook/config.js';

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

describe('webhook config: every source and every refusal', () => {
  const base = { MC_AGENT_WEBHOOK_URL: URL_, MC_AGENT_WEBHOOK_SECRET: 's' };

  it('takes url, secret, events and every number from the file when the environment is empty', () => {
    const cfg = file('all.json', { url: 'http://file.example/x', secret: 'fs', events: 'mark', queue_size: 2, max_attempts: 4, backoff: 3, max_backoff: 6, timeout: 7 });
    expect(resolveReceivers({}, { MC_AGENT_WEBHOOK_URL: '', MC_AGENT_WEBHOOK_EVENTS: '', MC_AGENT_WEBHOOK_BACKOFF: '' }, cfg).receivers[0]).toEqual({
      url: 'http://file.example/x',
      secret: 'fs',
      events: ['mark'],
      queueSize: 2,
      maxAttempts: 4,
      backoff: 3,
      maxBackoff: 6,
      timeout: 7,
    });
    // Only text is a value: a number or true in the file is refused or taken for none.
    expect(refusal(() => resolveReceivers({}, {}, file('bool.json', { url: URL_, secret: 's', queue_size: true })))).toBe('config file: queue_size must be a non-negative number; got "true"');
    expect(refusal(() => resolveReceivers({}, {}, file('num-url.json', { url: 5, secret: 's' })))).toMatch(/^MC_AGENT_WEBHOOK_URL is not set/);
    // An empty string in the file is no value: the secret then comes from nowhere.
    expect(refusal(() => resolveReceivers({}, {}, file('empty.json', { url: URL_, secret: '' })))).toMatch(/^MC_AGENT_WEBHOOK_SECRET is not set/);
  });

  it('refuses what is not a list of categories, an empty list and unparsable numbers, quoting the value', () => {
    expect(refusal(() => resolveReceivers({}, {}, file('ev.json', { ...{ url: URL_, secret: 's' }, events: 5 })))).toBe('config file: events: events must be a comma list or a list of categories');
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_EVENTS: ' , ' }))).toBe('MC_AGENT_WEBHOOK_EVENTS: events is empty; name at least one category, or * for all');
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_EVENTS: 'chat,bogus' }))).toBe(
      "MC_AGENT_WEBHOOK_EVENTS: unknown event category 'bogus'; use * or some of hello, chat, game, mark, sample, error, other",
    );
    expect(resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_EVENTS: '*' }).receivers[0]!.events).toEqual(['*']);
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_TIMEOUT: ' ' }))).toBe('MC_AGENT_WEBHOOK_TIMEOUT must be a non-negative number; got " "');
    expect(refusal(() => resolveReceivers({}, {}, file('n.json', { url: URL_, secret: 's', max_backoff: 'x'.repeat(60) })))).toBe(
      `config file: max_backoff must be a non-negative number; got ${JSON.stringify('x'.repeat(60)).slice(0, 40)}`,
    );
  });

  it('checks the numbers together, each refusal naming where they came from', () => {
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_QUEUE: '1.5' }))).toBe('webhook: queue size must be a whole number >= 1');
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_MAX_ATTEMPTS: '0' }))).toBe('webhook: max attempts must be a whole number >= 1 (the first try counts)');
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_MAX_ATTEMPTS: '2.5' }))).toContain('max attempts must be a whole number');
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_BACKOFF: '5', MC_AGENT_WEBHOOK_MAX_BACKOFF: '4' }))).toBe('webhook: max backoff (4 s) must be at least backoff (5 s)');
    expect(
      resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_BACKOFF: '4', MC_AGENT_WEBHOOK_MAX_BACKOFF: '4', MC_AGENT_WEBHOOK_QUEUE: '1', MC_AGENT_WEBHOOK_MAX_ATTEMPTS: '1' }).receivers[0],
    ).toMatchObject({
      backoff: 4,
      maxBackoff: 4,
      queueSize: 1,
      maxAttempts: 1,
    });
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_URL: 'file:///etc/passwd' }))).toBe(
      'webhook: the webhook URL must be an absolute http:// or https:// URL with a host (got something that is not one)',
    );
    expect(refusal(() => resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_URL: 'ws://h.example:81/p?q' }))).toBe(
      "webhook: the webhook URL must be an absolute http:// or https:// URL with a host (got 'ws://h.example:81/…')",
    );
    expect(resolveReceivers({}, { ...base, MC_AGENT_WEBHOOK_URL: 'https://h.example/' }).receivers[0]!.url).toBe('https://h.example/');
  });

  it('a listed receiver: values given in the JSON file, a variable falling back to its file, an empty or missing file, numbers', () => {
    const secretFile = file('s2.txt', '  ');
    const cfg = file('direct.json', { receivers: [{ url: 'http://d.example', secret: 'ds', maxAttempts: 2, backoff: 0.5, maxBackoff: 0.5, queueSize: 4 }] });
    expect(resolveReceivers({}, {}, cfg).receivers[0]).toEqual({
      url: 'http://d.example',
      secret: 'ds',
      events: ['chat', 'game', 'mark', 'error'],
      queueSize: 4,
      maxAttempts: 2,
      backoff: 0.5,
      maxBackoff: 0.5,
      timeout: 10,
    });
    const urlFile = file('u.txt', 'http://f.example/p\n');
    expect(resolveReceivers({ receivers: [{ urlEnv: 'UNSET', urlFile, secretEnv: 'S' }] }, { S: 'x' }).receivers[0]!.url).toBe('http://f.example/p');
    expect(refusal(() => resolveReceivers({ receivers: [{ urlFile, secretFile }] }, {}))).toBe(`webhook receiver 1: the file ${secretFile} (secretFile) is empty; write the receiver's secret into it`);
    const gone = join(dir, 'gone.txt');
    expect(refusal(() => resolveReceivers({ receivers: [{ urlFile, secretFile: gone }] }, {}))).toBe(`webhook receiver 1: the file ${gone} cannot be read (ENOENT)`);
    expect(refusal(() => resolveReceivers({ receivers: [{ urlFile, secretEnv: 'S' }, { secretEnv: 'S' }] }, { S: 'x' }))).toBe(
      'webhook receiver 2: no url: set urlEnv to an environment variable that holds it, or urlFile to a file that does',
    );
  });

  it('an empty receivers list in the options falls to the file; a bad list in the file is refused by its place', () => {
    const cfg = file('one.json', { receivers: [{ urlEnv: 'A', secretEnv: 'B' }] });
    expect(resolveReceivers({ receivers: [] }, { A: 'http://a.example', B: 'b' }, cfg).receivers).toHaveLength(1);
    expect(resolveReceivers({ receivers: [] }, { ...base, MC_AGENT_WEBHOOK_CONFIG: file('none.json', {}) }).receivers[0]!.url).toBe(URL_);
    const bad = file('bad.json', { receivers: [{ urlEnv: 'A', queueSize: 0 }] });
    expect(refusal(() => resolveReceivers({}, {}, bad))).toMatch(new RegExp(`^webhook config file ${bad}: receivers: .+ at 0\\.queueSize$`));
    expect(refusal(() => resolveReceivers({}, {}, file('null.json', 'null')))).toContain('must hold a JSON object');
    expect(refusal(() => resolveReceivers({}, {}, file('num.json', '5')))).toContain('must hold a JSON object');
  });
});

describe('webhook config: the forward flags', () => {
  const env = { MC_AGENT_WEBHOOK_URL: URL_, MC_AGENT_WEBHOOK_SECRET: 's', MC_AGENT_WEBHOOK_QUEUE: '9', MC_AGENT_WEBHOOK_EVENTS: 'chat' };

  it('win over the environment for every receiver, in the predecessor units', () => {
    expect(resolveReceivers({}, env, undefined, { events: 'mark,game', queue: '3', maxAttempts: 2, backoff: '0.25', maxBackoff: '8', deliveryTimeout: '1.5' }).receivers[0]).toEqual({
      url: URL_,
      secret: 's',
      events: ['mark', 'game'],
      queueSize: 3,
      maxAttempts: 2,
      backoff: 0.25,
      maxBackoff: 8,
      timeout: 1.5,
    });
    const listed = resolveReceivers({ receivers: [{ urlEnv: 'MC_AGENT_WEBHOOK_URL', secretEnv: 'MC_AGENT_WEBHOOK_SECRET', queueSize: 50 }] }, env, undefined, { queue: 4 });
    expect(listed.receivers[0]).toMatchObject({ queueSize: 4, events: ['chat', 'game', 'mark', 'error'] });
  });

  it('refuses a bad flag by its name', () => {
    expect(refusal(() => resolveReceivers({}, env, undefined, { queue: '2.5' }))).toBe('--queue must be a whole number >= 1; got "2.5"');
    expect(refusal(() => resolveReceivers({}, env, undefined, { maxAttempts: 0 }))).toBe('--max-attempts must be a whole number >= 1; got 0');
    expect(refusal(() => resolveReceivers({}, env, undefined, { queue: `0.${'5'.repeat(50)}` }))).toBe(`--queue must be a whole number >= 1; got "0.${'5'.repeat(37)}`);
    expect(resolveReceivers({}, env, undefined, { queue: '1', maxAttempts: '1' }).receivers[0]).toMatchObject({ queueSize: 1, maxAttempts: 1 });
    expect(refusal(() => resolveReceivers({}, env, undefined, { deliveryTimeout: '0' }))).toBe('--delivery-timeout must be more than 0 seconds');
    expect(refusal(() => resolveReceivers({}, env, undefined, { backoff: 'soon' }))).toBe('--backoff must be a non-negative number; got "soon"');
    expect(refusal(() => resolveReceivers({}, env, undefined, { events: 'nope' }))).toContain("--events: unknown event category 'nope'");
    // A backoff of 0 is allowed (retry at once); only the timeout must be positive.
    expect(resolveReceivers({}, env, undefined, { backoff: 0, maxBackoff: 0 }).receivers[0]).toMatchObject({ backoff: 0, maxBackoff: 0 });
  });
});

describe('webhook config: paths', () => {
  it('makes the spool and the credential files absolute from the config folder, and leaves the rest', () => {
    const options = {
      spool: 'state/w.spool',
      spoolMaxBytes: 8192,
      receivers: [
        { urlFile: 'u', secretFile: '/abs/s', events: '*' },
        { urlEnv: 'U', secretFile: 's' },
      ],
    };
    expect(resolvePaths(options, '/cfg')).toStrictEqual({
      spool: '/cfg/state/w.spool',
      spoolMaxBytes: 8192,
      receivers: [
        { urlFile: '/cfg/u', secretFile: '/abs/s', events: '*' },
        { urlEnv: 'U', secretFile: '/cfg/s' },
      ],
    });
    expect(resolvePaths({}, '/cfg')).toStrictEqual({});
  });

  it("names a target's spool after it, beside the default one", () => {
    expect(spoolOfTarget('/s/spool.jsonl', 'default')).toBe('/s/spool.jsonl');
    expect(spoolOfTarget('/s/spool.jsonl', 'live')).toBe('/s/spool.live.jsonl');
    expect(spoolOfTarget('/s/spool', 'live')).toBe('/s/spool.live');
  });
});

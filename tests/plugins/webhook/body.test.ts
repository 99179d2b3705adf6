/** The pure parts of a delivery: the body's fields, the headers, redaction, and how a status is classified. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../../core/index.js';
import { attemptHeaders, buildDelivery, sign } from '../../../plugins/webhook/body.js';
import { classify } from '../../../plugins/webhook/post.js';
import { REDACTED, redactUrl, sanitizer } from '../../../plugins/webhook/redact.js';

const body = (event: Record<string, unknown>) => JSON.parse(buildDelivery(event).body) as Record<string, unknown>;

describe('webhook body', () => {
  it('finds the sender under every name the mod uses, as a string, a name or an id', () => {
    expect(body({ playerName: 'P' }).sender).toBe('P');
    expect(body({ from: { id: 'uuid-1' } }).sender).toBe('uuid-1');
    expect(body({ sender: { name: '', id: 'i' } }).sender).toBe('i');
    expect(body({ sender: '', player: { name: 'Alex' } }).sender).toBe('Alex');
    expect(body({ sender: { other: 1 }, name: 7 }).sender).toBeNull();
    expect(body({ sender: null, from: 'F' }).sender).toBe('F');
    expect(body({ sender: { id: 5 } }).sender).toBeNull();
  });

  it('finds the context id at the top or inside a context object, else the context itself', () => {
    expect(body({ context_id: '', contextId: 'c2' }).context_id).toBe('c2');
    expect(body({ contextId: null, context: { context_id: 'c3' } }).context_id).toBe('c3');
    expect(body({ context: { contextId: 0 } }).context_id).toBe(0);
    expect(body({ context: { unrelated: true } }).context_id).toBeNull();
    expect(body({ context: { id: null, context_id: 'c4' } }).context_id).toBe('c4');
    expect(body({ context_id: null, context: { id: 'c5' } }).context_id).toBe('c5');
    expect(body({ context: 'plain' }).context_id).toBe('plain');
    expect(body({}).context_id).toBeNull();
  });

  it('fills what an event lacks: an event id, the type from the category, the time now, no tick, no target', () => {
    const now = Date.now();
    const d = buildDelivery({ streamId: 's9' });
    const b = JSON.parse(d.body) as Record<string, unknown>;
    expect(d.eventId).toMatch(/^s9:[0-9a-f]{12}$/);
    expect(buildDelivery({}).eventId).toMatch(/^mcbridge:[0-9a-f]{12}$/);
    expect(b).toMatchObject({ eventId: d.eventId, sequence: null, streamId: 's9', target: null, event: 'other', type: 'other', category: 'other', tick: null });
    expect(b.timestamp as number).toBeGreaterThanOrEqual(now);
    expect(d.type).toBe('other');
    expect(body({ target: 'live', category: 'chat', type: '', seq: 0 })).toMatchObject({ target: 'live', type: 'chat', sequence: 0, eventId: 'mcbridge:0' });
  });

  it('signs "<timestamp>." + body and sends every header of an attempt', () => {
    const d = buildDelivery({ eventId: 'e1', type: 't', category: 'chat' });
    const headers = attemptHeaders(d, 'k', 3, 1_700_000_000_999);
    const expected = `sha256=${createHmac('sha256', 'k').update(`1700000000.${d.body}`).digest('hex')}`;
    expect(sign('k', 1_700_000_000, d.body)).toBe(expected);
    expect(headers).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      'User-Agent': `mcbridge/${VERSION}`,
      'X-MC-Agent-Signature': expected,
      'X-MC-Agent-Timestamp': '1700000000',
      'X-MC-Agent-Event-Id': 'e1',
      'X-MC-Agent-Event-Type': 't',
      'X-MC-Agent-Attempt': '3',
    });
  });
});

describe('webhook redaction', () => {
  it('a URL without a host shows nothing', () => {
    expect(redactUrl('mailto:x@example.com')).toBe('');
  });

  it('replaces the longest form of the URL first, then the secret, then each piece of two or more characters', () => {
    const clean = sanitizer('http://u%40x:p@h.example/', 'sec');
    expect(clean('at http://u%40x:p@h.example/ user u@x pass p sec')).toBe('at http://h.example user [redacted] pass p [redacted]');
    // The userinfo quoted as written, percent-encoded, goes too.
    expect(clean('from http://u%40x:p@h.example')).toBe(`from http://${REDACTED}:p@h.example`);
    // The path `/` is too short to be a secret; a query is one.
    expect(sanitizer('http://h.example/?t=1', '')('GET /?t=1')).toBe(`GET /${REDACTED}`);
    // The URL as given and as normalised (a trailing slash added): the longer goes first, whole.
    expect(sanitizer('http://u:pw@h.example', '')('at http://u:pw@h.example/ x')).toBe('at http://h.example x');
    expect(sanitizer('http://u:pw@h.example', '')('at http://u:pw@h.example x')).toBe('at http://h.example x');
    // A piece of two characters is one too.
    expect(sanitizer('http://h.example/a', '')('GET /a')).toBe(`GET ${REDACTED}`);
    // Not a URL: only the text itself goes.
    expect(sanitizer('not a url', 'k')('not a url, k')).toBe(', [redacted]');
  });
});

describe('webhook status classes', () => {
  it.each([
    [199, 'permanent'],
    [200, 'delivered'],
    [299, 'delivered'],
    [300, 'permanent'],
    [399, 'permanent'],
    [400, 'permanent'],
    [408, 'retry'],
    [425, 'retry'],
    [429, 'retry'],
    [499, 'permanent'],
    [500, 'retry'],
  ])('HTTP %i is %s', (status, kind) => {
    expect(classify(status).kind).toBe(kind);
  });

  it('says a redirect was not followed, and quotes a reason phrase only when it is not the standard one, cleaned and bounded', () => {
    expect(classify(302)).toEqual({ kind: 'permanent', status: 302, error: 'HTTP 302 redirect was not followed' });
    expect([300, 399, 400, 299, 199].map((s) => (classify(s) as { error?: string }).error)).toEqual([
      'HTTP 300 redirect was not followed',
      'HTTP 399 redirect was not followed',
      'HTTP 400',
      undefined,
      'HTTP 199',
    ]);
    expect(classify(404, 'Not Found')).toEqual({ kind: 'permanent', status: 404, error: 'HTTP 404' });
    expect(classify(503, ' busy\u0007now ')).toEqual({ kind: 'retry', status: 503, error: 'HTTP 503 (the receiver said: busy now)' });
    expect(classify(500, 'x'.repeat(300)).kind === 'retry' && (classify(500, 'x'.repeat(300)) as { error: string }).error).toBe(`HTTP 500 (the receiver said: ${'x'.repeat(200)})`);
    expect(classify(500, '  ')).toEqual({ kind: 'retry', status: 500, error: 'HTTP 500' });
  });
});

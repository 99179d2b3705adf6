import { describe, expect, it } from 'vitest';
import { MAX_ID_LENGTH, parseRequestLine } from '../../../core/api/request-line.js';

const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('parseRequestLine', () => {
  it('reads a request and keeps string, number and null ids', () => {
    for (const id of ['req-1', 7, 2.5, null]) {
      const parsed = parseRequestLine(JSON.stringify({ id, method: 'state', params: {} }));
      expect(parsed).toMatchObject({ ok: true, id, frame: { method: 'state' } });
    }
    expect(parseRequestLine('{"method":"ping"}')).toMatchObject({ ok: true, id: null });
  });

  it('refuses a line nested past the bound before parsing it, echoing its id only when the id is a readable scalar', () => {
    const parsed = parseRequestLine(`{"id":${deep(5_000)},"method":"ping"}`);
    expect(parsed).toMatchObject({ ok: false, id: null, error: { code: 'invalid_request' } });
    expect(parsed.ok || parsed.error.message).toMatch(/deeper than 64 levels/);
    expect(parseRequestLine(`{"id":1,"method":"state","params":{"a":${deep(70)}}}`)).toMatchObject({ ok: false, id: 1 });
    expect(parseRequestLine(`{"params":{"id":2,"a":${deep(70)}}, "id" : "outer" }`)).toMatchObject({ ok: false, id: 'outer' });
    expect(parseRequestLine(`{"\\u0069d":3,"params":${deep(70)}}`)).toMatchObject({ ok: false, id: 3 });
    for (const id of ['1e999', JSON.stringify('x'.repeat(257)), 'true', '{"a":1}']) {
      expect(parseRequestLine(`{"id":${id},"params":${deep(70)}}`), id).toMatchObject({ ok: false, id: null });
    }
  });

  it('refuses ids that are not a short string, a finite number or null, and echoes none of them', () => {
    const bad = ['[1]', '{"a":1}', 'true', JSON.stringify('x'.repeat(MAX_ID_LENGTH + 1)), '1e999'];
    for (const id of bad) {
      const parsed = parseRequestLine(`{"id":${id},"method":"ping"}`);
      expect(parsed, id).toMatchObject({ ok: false, id: null, error: { code: 'invalid_request' } });
      expect(parsed.ok || parsed.error.message).toMatch(/request id must be a string of at most 256 characters, a number or null/);
    }
    expect(parseRequestLine(JSON.stringify({ id: 'x'.repeat(MAX_ID_LENGTH), method: 'ping' }))).toMatchObject({ ok: true });
  });

  it('answers a bad envelope with the id when the id itself was fine', () => {
    expect(parseRequestLine('{"id":3}')).toMatchObject({ ok: false, id: 3, error: { code: 'invalid_request' } });
    expect(parseRequestLine('{"id":4,"method":"state","params":[1]}')).toMatchObject({ ok: false, id: 4, error: { code: 'invalid_params' } });
    expect(parseRequestLine(JSON.stringify({ id: 5, method: 'm'.repeat(129) }))).toMatchObject({ ok: false, id: 5, error: { code: 'invalid_request' } });
    expect(parseRequestLine('not json')).toMatchObject({ ok: false, id: null, error: { code: 'invalid_request' } });
    expect(parseRequestLine('[1,2]')).toMatchObject({ ok: false, id: null, error: { code: 'invalid_request' } });
  });

  it('checks the everyday envelope by hand by the same rules as the schema, which still words every refusal', () => {
    const refused = (line: string) => parseRequestLine(line) as { ok: false; error: { code: string; message: string } };
    expect(refused('{"id":6,"method":"state","progress":"yes"}')).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(refused('{"id":7,"method":"state","auth":42}')).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(refused('{"id":8,"method":"state","params":"x"}')).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringContaining('params must be a JSON object') } });
    expect(refused('{"id":9,"method":""}')).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringContaining('method must not be empty') } });
    expect(refused('{"id":10,"method":7}')).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(refused('{"id":11,"method":"state","caller":{"frontend":"Not A Name"}}')).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    // What passes: null params, a boolean progress, a string auth, keys the envelope does not know.
    expect(parseRequestLine('{"id":12,"method":"state","params":null,"progress":true,"auth":"t","extra":1}')).toMatchObject({
      ok: true,
      id: 12,
      frame: { method: 'state', params: null, progress: true, auth: 't' },
    });
    expect(parseRequestLine('{"id":13,"method":"state","caller":{"frontend":"mcp","session":"s1"}}')).toMatchObject({ ok: true, frame: { caller: { frontend: 'mcp', session: 's1' } } });
  });
});

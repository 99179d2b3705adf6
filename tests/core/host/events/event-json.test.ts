import { describe, expect, it } from 'vitest';
import { spliceEventJson, topLevelValueSpan } from '../../../../core/host/events/event-json.js';
import { EventLog, type RecordedEvent } from '../../../../core/host/events/event-log.js';

/**
 * `EventLog.toJson` reuses the mod's text. Whatever the text looks like, the result must
 * parse to the same object, with the same key order, as JSON.stringify of the event.
 */

function recordLine(log: EventLog, line: string): RecordedEvent {
  return log.record(JSON.parse(line) as Record<string, unknown>, line);
}

function expectSameAsStringify(log: EventLog, event: RecordedEvent): string {
  const json = log.toJson(event);
  const parsed = JSON.parse(json) as Record<string, unknown>;
  const expected = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
  expect(parsed).toStrictEqual(expected);
  expect(Object.keys(parsed)).toStrictEqual(Object.keys(expected));
  return json;
}

const IDS = ',"streamId":"s","eventId":"s:';

describe('EventLog.toJson', () => {
  it('is byte-identical to JSON.stringify for a compact mod line, with and without a chat seq', () => {
    const log = new EventLog({ streamId: 'f'.repeat(32) });
    const lines = [
      '{"type":"game","millis":1,"text":"Set the time to 1000","event":true}',
      '{"type":"chat","millis":2,"seq":17,"text":"hi","sender":"Alex","context_id":"ctx-1","context":{"tick":5,"seq":3},"event":true}',
      '{"type":"chat","millis":2,"seq":null,"text":"no seq value","event":true}',
      '{"type":"x"}',
    ];
    for (const line of lines) {
      const event = recordLine(log, line);
      expect(log.toJson(event)).toBe(JSON.stringify(event));
    }
  });

  it('keeps the meaning of odd but valid mod text: spaces, escapes, nested and quoted "seq"', () => {
    const log = new EventLog({ streamId: 'quote"and\\slash' });
    const lines = [
      '  { "type" : "chat" , "seq" : 5 , "text" : "a \\"seq\\": 9" }  ',
      '{\n\t"text": "\\u0041\\\\", "type": "game", "nested": {"seq": 1, "a": [1, {"seq": 2}, "]}"]}, "seq": 4.5e1\r\n}',
      '{"\\u0073eq": 8, "type": "chat", "text": "key written with an escape"}',
      '{"type":"game","context_id":"ctx \\"quoted\\"","text":"😀 ünïcode"}',
      '{"type":"chat","seq":"not-a-number","text":"seq as a string","event":true}',
      '{"type":"chat","seq":{"deep":[1,2]},"event":true}',
      '{"type":"chat","text":"x","seq":true}',
    ];
    for (const line of lines) expectSameAsStringify(log, recordLine(log, line));
  });

  it('falls back to JSON.stringify when the mod text cannot be spliced, and stays correct', () => {
    const log = new EventLog({ streamId: 'b'.repeat(32) });
    const lines = [
      '{"type":"chat","seq":1,"seq":2,"text":"duplicate seq: JSON.parse keeps the last value"}',
      '{"type":7,"text":"type is not a string"}',
      '{"text":"no type at all"}',
      '{"type":"game","category":"chat","text":"claims a field we set"}',
      '{"type":"game","receivedAt":1,"streamId":"x","eventId":"y"}',
      '{"type":"game","contextId":"c","context_id":"d"}',
      '{"type":"game","modSeq":3}',
    ];
    for (const line of lines) expectSameAsStringify(log, recordLine(log, line));
  });

  it('stringifies events recorded without text, and events already evicted from the ring', () => {
    const log = new EventLog({ capacity: 2, streamId: 'c'.repeat(32) });
    const synthetic = log.record({ type: 'bridge_disconnected', text: 'gone' });
    expect(log.toJson(synthetic)).toBe(JSON.stringify(synthetic));
    const first = recordLine(log, '{"type":"game","text":"one"}');
    recordLine(log, '{"type":"game","text":"two"}');
    recordLine(log, '{"type":"game","text":"three"}');
    expect(log.at(first.seq)).toBeUndefined();
    expect(log.toJson(first)).toBe(JSON.stringify(first));
  });

  it('agrees with JSON.stringify over many generated lines', () => {
    const log = new EventLog({ capacity: 50, streamId: 'd'.repeat(32) });
    let state = 12345;
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
    const values = [0, -1.5, 1e21, 'plain', 'quote " and \\ and \n', '"seq":1', '}', '{"seq":2}', true, null, [1, { seq: 3 }], { seq: 4, x: '}' }];
    for (let n = 0; n < 500; n += 1) {
      const obj: Record<string, unknown> = {};
      const keys = ['text', 'millis', 'sender', 'context', 'seq', 'event', 'a\\b', 'type'];
      for (let k = 0; k < 5; k += 1) obj[keys[rand(keys.length)]!] = values[rand(values.length)];
      obj.type = ['chat', 'game', 'mark', 'hello'][rand(4)];
      if (rand(3) === 0) obj.context_id = `ctx-${rand(100)}`;
      const line = JSON.stringify(obj, null, rand(2) === 0 ? undefined : rand(4));
      expectSameAsStringify(log, recordLine(log, line));
    }
  });
});

describe('spliceEventJson', () => {
  it('appends our fields after the mod text and moves a chat seq to modSeq', () => {
    const base = { seq: 9, category: 'chat', receivedAt: 100 };
    expect(spliceEventJson('{"type":"game"}', base, IDS)?.join('')).toBe('{"type":"game","seq":9,"streamId":"s","eventId":"s:9","category":"chat","receivedAt":100}');
    expect(spliceEventJson('{"type":"chat","seq":3}', { ...base, modSeq: 3, contextId: 'c' }, IDS)?.join('')).toBe(
      '{"type":"chat","seq":9,"modSeq":3,"streamId":"s","eventId":"s:9","category":"chat","receivedAt":100,"contextId":"c"}',
    );
  });

  it('gives up (null) when the seq to replace is duplicated or missing', () => {
    const base = { seq: 1, category: 'chat', receivedAt: 1, modSeq: 1 };
    expect(spliceEventJson('{"type":"chat","seq":1,"seq":1}', base, IDS)).toBeNull();
    expect(spliceEventJson('{"type":"chat","x":{"seq":1}}', base, IDS)).toBeNull();
  });
});

describe('topLevelValueSpan', () => {
  const value = (text: string, key: string) => {
    const span = topLevelValueSpan(text, key);
    return span && text.slice(span.start, span.end);
  };

  it('finds a top-level value of any kind and ignores nested and quoted keys', () => {
    expect(value('{"a":{"k":1},"k":[1,"]"],"b":2}', 'k')).toBe('[1,"]"]');
    expect(value('{"s":"\\"k\\":1","k":"v\\\\"}', 'k')).toBe('"v\\\\"');
    expect(value('{ "k" : -2.5e3 }', 'k')).toBe('-2.5e3');
    expect(value('{"\\u006b":null}', 'k')).toBe('null');
  });

  it('is null for an absent or duplicated key and for non-objects', () => {
    expect(value('{"a":{"k":1}}', 'k')).toBeNull();
    expect(value('{"k":1,"k":2}', 'k')).toBeNull();
    expect(value('{}', 'k')).toBeNull();
    expect(value('[1]', 'k')).toBeNull();
  });
});

describe('topLevelValueSpan on text that is not one valid object', () => {
  const value = (text: string, key: string) => {
    const span = topLevelValueSpan(text, key);
    return span && text.slice(span.start, span.end);
  };

  it('is null for every truncation or missing delimiter, wherever it falls', () => {
    for (const text of [
      '',
      '{',
      '{"k',
      '{"k"',
      '{"k" 1}',
      '{"k":',
      '{"k":}',
      '{"k":"abc',
      '{"k":{"a":1',
      '{"k":[1,2',
      '{"k":{"a":"x}',
      '{"k":1 "b":2}',
      '{"k":1,',
      '{k:1}',
      '{"a":1,k:2}',
      '{"a":"\\"}',
      // Not an object's opening, a key's opening quote, a colon or a comma, where the rest would parse.
      'x"k":1}',
      '{xk":1}',
      '{"k"=1}',
      '{"k":1 ;"b":2}',
      '{"k":1]}',
      // A key cut off after an escape: null, not JSON.parse's throw.
      '{"\\ab',
    ]) {
      expect(topLevelValueSpan(text, 'k'), JSON.stringify(text)).toBeNull();
    }
  });

  it('ends a number, true, false or null at each kind of whitespace, a comma or the brace', () => {
    for (const ws of [' ', '\t', '\n', '\r']) {
      expect(value(`{"k":12${ws},"b":2}`, 'k'), JSON.stringify(ws)).toBe('12');
      expect(value(`{${ws}"k"${ws}:${ws}true${ws}}`, 'k'), JSON.stringify(ws)).toBe('true');
    }
    expect(value('{"k":false}', 'k')).toBe('false');
    // A string runs to its closing quote, over spaces, commas and braces.
    expect(value('{"k":"a b, c}","z":1}', 'k')).toBe('"a b, c}"');
    // A key with no escape is compared as written, never parsed (this one holds a raw tab).
    expect(value('{"a\tb":1,"k":2}', 'k')).toBe('2');
    expect(value('{"a":[1,2],"k":3}', 'k')).toBe('3');
  });

  it('reads a key or value string whose quote follows backslashes: odd escapes it, even does not', () => {
    expect(value('{"k":"a\\\\\\"b","c":1}', 'k')).toBe('"a\\\\\\"b"');
    expect(value('{"a\\\\":1,"k":2}', 'k')).toBe('2');
    expect(value('{"a\\"k":1,"k":2}', 'k')).toBe('2');
    expect(value('{"k":{"s":"}\\"}","t":[{"u":"]"}]},"z":0}', 'k')).toBe('{"s":"}\\"}","t":[{"u":"]"}]}');
  });

  it('finds the key after nested objects and arrays that close in any order, and not inside them', () => {
    expect(value('{"a":[{"k":1},[{}]],"k":{"k":[]}}', 'k')).toBe('{"k":[]}');
    expect(value('{"a":{"b":{"c":{}}}}', 'c')).toBeNull();
  });
});

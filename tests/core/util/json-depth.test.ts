import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth } from '../../../core/util/json-depth.js';
import { Prng } from '../../support/prng.js';

/** The nesting depth JSON.parse sees, by walking the parsed value: the reference. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

describe('exceedsJsonDepth', () => {
  it('counts arrays and objects, exactly at the bound', () => {
    expect(exceedsJsonDepth(nested(64), 64)).toBe(false);
    expect(exceedsJsonDepth(nested(65), 64)).toBe(true);
    const objects = '{"a":'.repeat(65) + '1' + '}'.repeat(65);
    expect(exceedsJsonDepth(objects, 65)).toBe(false);
    expect(exceedsJsonDepth(objects, 64)).toBe(true);
  });

  it('catches the 10 KB id that used to kill the daemon', () => {
    expect(exceedsJsonDepth(`{"id":${nested(5_000)},"method":"ping"}`, 64)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes and backslash runs included', () => {
    const tricky = [
      JSON.stringify({ text: '['.repeat(500) }),
      JSON.stringify({ text: `"${'{'.repeat(300)}\\"[[[` }),
      JSON.stringify({ a: '\\', b: '['.repeat(200) }),
      JSON.stringify({ a: '\\\\"', b: [[['{{{{'.repeat(100)]]] }),
    ];
    for (const text of tricky) {
      expect(exceedsJsonDepth(text, 3), text.slice(0, 40)).toBe(depthOf(JSON.parse(text)) > 3);
    }
  });

  it('agrees with the parsed depth on many flat-but-bracket-heavy lines', () => {
    const entities = JSON.stringify({ event: true, entities: Array.from({ length: 500 }, (_, i) => ({ id: i, tags: [`[${i}]`] })) });
    expect(depthOf(JSON.parse(entities))).toBe(4);
    expect(exceedsJsonDepth(entities, 4)).toBe(false);
    expect(exceedsJsonDepth(entities, 3)).toBe(true);
  });

  it('leaves malformed text to JSON.parse', () => {
    expect(exceedsJsonDepth('{"unterminated": "[[[[[[', 2)).toBe(false);
    expect(exceedsJsonDepth('', 1)).toBe(false);
  });
});

describe('exceedsJsonDepth against JSON.parse on generated values', () => {
  it('agrees on 2,000 random trees whose strings are full of brackets, quotes and backslashes', () => {
    const rng = new Prng(20260214);
    const text = () => Array.from({ length: rng.int(0, 12) }, () => rng.pick(['[', ']', '{', '}', '"', '\\', 'a', ' ', ':', ','])).join('');
    const tree = (depth: number): unknown => {
      if (depth === 0 || rng.next() < 0.2) return rng.pick([text(), rng.int(-9, 9), null, true]);
      const children = Array.from({ length: rng.int(0, 3) }, () => tree(depth - 1));
      return rng.next() < 0.5 ? children : Object.fromEntries(children.map((c, i) => [text() + i, c]));
    };
    for (let i = 0; i < 2_000; i++) {
      const line = JSON.stringify(tree(rng.int(0, 12)));
      const bound = rng.int(1, 10);
      expect(exceedsJsonDepth(line, bound), `seed ${rng.seed}, case ${i}: ${line}`).toBe(depthOf(JSON.parse(line)) > bound);
    }
  });
});

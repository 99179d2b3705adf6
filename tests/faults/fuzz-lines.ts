/**
 * Generated bad request lines for the API fuzz test. Each case says whether the daemon owes
 * it an answer (blank lines are not requests) and which id that answer carries: the case's
 * own when it was a small scalar, else null.
 */
import type { Prng } from '../support/prng.js';

export interface FuzzCase {
  kind: string;
  /** The bytes written, line ending included. */
  bytes: Buffer;
  /** Undefined: no answer is owed (blank line). */
  answerId?: string | number | null;
}

const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** A method name no tool has. */
const unknownMethod = (rng: Prng) => `fuzz_${rng.int(0, 1e9).toString(36)}`;

function bigString(rng: Prng): string {
  return 'x'.repeat(rng.int(64 * 1024, 1024 * 1024));
}

function line(text: string | Buffer, eol: string): Buffer {
  return Buffer.concat([typeof text === 'string' ? Buffer.from(text, 'utf8') : text, Buffer.from(eol)]);
}

type Maker = (rng: Prng, id: string) => { kind: string; text: string | Buffer; answerId?: string | number | null };

const MAKERS: Array<[weight: number, make: Maker]> = [
  [
    12,
    (rng) => {
      // Random bytes, invalid UTF-8 included; no newline inside, and never blank.
      const bytes = rng.bytes(rng.int(1, 200));
      for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) bytes[i] = 0x41;
      bytes[0] = 0x7e;
      return { kind: 'random-bytes', text: bytes, answerId: null };
    },
  ],
  [
    10,
    (rng, id) => {
      const full = JSON.stringify({ id, method: 'state', params: { a: [1, 2, { b: 'c' }] } });
      return { kind: 'truncated-json', text: full.slice(0, rng.int(1, full.length - 1)), answerId: null };
    },
  ],
  [
    10,
    (rng) => {
      const ids = ['[1]', '{"a":1}', 'true', 'false', JSON.stringify('i'.repeat(rng.int(257, 5_000))), deep(rng.int(2, 60)), '1e999'];
      return { kind: 'bad-id', text: `{"id":${rng.pick(ids)},"method":"ping"}`, answerId: null };
    },
  ],
  [
    10,
    (rng, id) => {
      const methods = ['1', 'null', '[]', '{}', '""', 'true', JSON.stringify('m'.repeat(rng.int(129, 10_000)))];
      return { kind: 'bad-method', text: `{"id":${JSON.stringify(id)},"method":${rng.pick(methods)}}`, answerId: id };
    },
  ],
  [
    10,
    (rng, id) => {
      const params = ['[1]', '"p"', '7', 'true', '[]'];
      return { kind: 'bad-params-type', text: `{"id":${JSON.stringify(id)},"method":"state","params":${rng.pick(params)}}`, answerId: id };
    },
  ],
  [
    10,
    (rng, id) => {
      const cases = [
        { method: 'entities', params: { radius: 'far' } },
        { method: 'state', params: { verbose: true } },
        { method: 'events', params: { since: { nested: [1] } } },
        { method: 'subscribe', params: { events: 42 } },
        { method: 'cancel', params: {} },
        { method: unknownMethod(rng), params: {} },
        { method: 'command', params: { command: 42 } },
      ];
      return { kind: 'bad-params', text: JSON.stringify({ id, ...rng.pick(cases) }), answerId: id };
    },
  ],
  [
    1,
    (rng, id) => {
      const where = rng.pick(['params', 'method-unknown', 'id']);
      if (where === 'id') return { kind: 'huge-id', text: JSON.stringify({ id: bigString(rng), method: 'ping' }), answerId: null };
      const method = where === 'params' ? 'state' : unknownMethod(rng);
      return { kind: 'huge-string', text: JSON.stringify({ id, method, params: { s: bigString(rng) } }), answerId: id };
    },
  ],
  [
    8,
    (rng, id) => {
      const nest = deep(rng.int(65, 20_000));
      // Refused before parsing; answered with the request's id where its text shows one.
      const [text, answerId] = rng.pick<[string, string | null]>([
        [`{"id":${nest},"method":"ping"}`, null],
        [`{"id":${JSON.stringify(id)},"method":"state","params":{"x":${nest}}}`, id],
        [`{"id":${JSON.stringify(id)},"method":${nest}}`, id],
        [nest, null],
        ['{"a":'.repeat(200) + '1' + '}'.repeat(200), null],
      ]);
      return { kind: 'deep', text, answerId };
    },
  ],
  [
    8,
    (rng) => {
      const values = ['1', '-0.5', '"a string"', '[1,2,3]', 'null', 'true', '[]', '"{\\"id\\":1}"'];
      return { kind: 'not-an-object', text: rng.pick(values), answerId: null };
    },
  ],
  [
    6,
    (rng, id) => {
      // Invalid UTF-8 inside a string: decoded as U+FFFD, an unknown method.
      const head = Buffer.from(`{"id":${JSON.stringify(id)},"method":"`);
      const junk = Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82].slice(0, rng.int(1, 6)));
      return { kind: 'invalid-utf8', text: Buffer.concat([head, junk, Buffer.from('"}')]), answerId: id };
    },
  ],
  [6, (rng) => ({ kind: 'blank', text: rng.pick(['', ' ', '\t', '   \t ']) })],
];

const TOTAL_WEIGHT = MAKERS.reduce((sum, [w]) => sum + w, 0);

/** `count` cases; a few more are fixed: lines past the 16 MiB bound, and CR-only lines. */
export function fuzzCases(rng: Prng, count: number, prefix: string): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (let i = 0; i < count; i++) {
    let roll = rng.next() * TOTAL_WEIGHT;
    let make = MAKERS[0]![1];
    for (const [weight, maker] of MAKERS) {
      make = maker;
      if ((roll -= weight) < 0) break;
    }
    const { kind, text, answerId } = make(rng, `${prefix}-${i}`);
    const crlf = rng.next() < 0.2;
    cases.push({ kind: crlf ? `${kind}+crlf` : kind, bytes: line(text, crlf ? '\r\n' : '\n'), answerId });
  }
  return cases;
}

export function oversizeCase(): FuzzCase {
  return { kind: 'oversize', bytes: line(Buffer.alloc(16 * 1024 * 1024 + 100, 0x7b), '\n'), answerId: null };
}

/** Cut the stream at random points, so lines arrive split across writes. */
export function* randomChunks(rng: Prng, cases: FuzzCase[]): Generator<Buffer> {
  const all = Buffer.concat(cases.map((c) => c.bytes));
  for (let at = 0; at < all.length; ) {
    const size = rng.int(1, 256 * 1024);
    yield all.subarray(at, at + size);
    at += size;
  }
}

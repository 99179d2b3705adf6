import { describe, expect, it } from 'vitest';
import { javaDoubleString, javaFloatString, javaTrim, parseJavaDouble, parseJavaInt } from '../../../core/sim/java-text.js';
import { dbl, flt, toJavaJson } from '../../../core/sim/json.js';
import { nbt, parseSnbtCompound, writeCompactSnbt, writePrettySnbt } from '../../../core/sim/snbt.js';
import { intsToUuid, parseUuid, uuidToInts } from '../../../core/sim/uuid.js';

describe('Java number text', () => {
  it('prints doubles like Double.toString', () => {
    expect(javaDoubleString(64)).toBe('64.0');
    expect(javaDoubleString(-0)).toBe('-0.0');
    expect(javaDoubleString(0)).toBe('0.0');
    expect(javaDoubleString(1e-4)).toBe('1.0E-4');
    expect(javaDoubleString(0.001)).toBe('0.001');
    expect(javaDoubleString(-0.0784000015258789)).toBe('-0.0784000015258789');
    expect(javaDoubleString(1e7)).toBe('1.0E7');
    expect(javaDoubleString(1234567.5)).toBe('1234567.5');
    expect(javaDoubleString(12345678.9)).toBe('1.23456789E7');
    expect(javaDoubleString(Number.NaN)).toBe('NaN');
  });

  it('prints floats as the shortest text that reads back as the same float', () => {
    expect(javaFloatString(12.5)).toBe('12.5');
    expect(javaFloatString(0.1)).toBe('0.1');
    expect(javaFloatString(Math.fround(0.1))).toBe('0.1');
    expect(javaFloatString(20)).toBe('20.0');
    expect(javaFloatString(-90)).toBe('-90.0');
    expect(javaFloatString(1e-5)).toBe('1.0E-5');
  });

  it('serialises ints without and doubles with a decimal point', () => {
    const text = toJavaJson({ tick: 5, y: dbl(64), yaw: flt(90), v: dbl(1e-4), list: [dbl(-0)], skip: undefined, s: 'a<b' });
    expect(text).toBe('{"tick":5,"y":64.0,"yaw":90.0,"v":1.0E-4,"list":[-0.0],"s":"a<b"}');
  });

  it('parses ints and doubles with Java exception messages', () => {
    expect(parseJavaInt('-12')).toBe(-12);
    expect(() => parseJavaInt('x')).toThrow('For input string: "x"');
    expect(() => parseJavaInt(' 5')).toThrow('For input string: " 5"');
    expect(() => parseJavaInt('99999999999')).toThrow('For input string');
    expect(parseJavaDouble('16')).toBe(16);
    expect(parseJavaDouble('1e2')).toBe(100);
    expect(parseJavaDouble('2.5d')).toBe(2.5);
    expect(parseJavaDouble('-5')).toBe(-5);
    expect(() => parseJavaDouble('abc')).toThrow('For input string: "abc"');
  });

  it('trims like String.trim (chars <= U+0020 only)', () => {
    expect(javaTrim('\t PING \r')).toBe('PING');
    expect(javaTrim('\u00a0PING')).toBe('\u00a0PING');
  });
});

describe('UUIDs', () => {
  it('round-trips through the NBT int array form', () => {
    const uuid = '069a79f4-44e9-4726-a5be-fca90e38aaf5';
    const ints = uuidToInts(uuid);
    expect(ints).toEqual([110787060, 1156138790, -1514210135, 238594805]);
    expect(intsToUuid(ints)).toBe(uuid);
  });

  it('accepts dashed and 32-hex forms only', () => {
    expect(parseUuid('069A79F444E94726A5BEFCA90E38AAF5')).toBe('069a79f4-44e9-4726-a5be-fca90e38aaf5');
    expect(parseUuid('Steve')).toBeNull();
  });
});

describe('SNBT', () => {
  const tag = nbt.compound([
    ['UUID', nbt.intArray([1, -2, 3, 4])],
    ['Health', nbt.float(10)],
    ['Motion', nbt.list([nbt.double(0), nbt.double(-0.0784000015258789), nbt.double(1e-5)])],
    ['Name', nbt.string('say "hi"\n')],
    ['Flag', nbt.bool(true)],
    ['Big', nbt.long(5n)],
  ]);

  it('writes compact SNBT with every key double-quoted', () => {
    expect(writeCompactSnbt(tag)).toBe('{"UUID":[I;1,-2,3,4],"Health":10.0f,"Motion":[0.0d,-0.0784000015258789d,1.0E-5d],"Name":"say \\"hi\\"\\n","Flag":1b,"Big":5L}');
  });

  it('writes the pretty form with sorted keys', () => {
    expect(writePrettySnbt(nbt.list([nbt.double(0), nbt.double(-0.5)]))).toBe('[0.0d, -0.5d]');
    expect(
      writePrettySnbt(
        nbt.compound([
          ['b', nbt.int(1)],
          ['a', nbt.short(2)],
        ]),
      ),
    ).toBe('{a: 2s, b: 1}');
  });

  it('parses what it writes, and vanilla-style unquoted SNBT', () => {
    const again = parseSnbtCompound(writeCompactSnbt(tag)).tag;
    expect(writeCompactSnbt(again)).toBe(writeCompactSnbt(tag));
    const loose = parseSnbtCompound("{NoAI:1b, CustomName:'Bob', Motion:[0.1d,0d,0.0], Tags:[a,b], n:3}").tag;
    expect(writeCompactSnbt(loose)).toBe('{"NoAI":1b,"CustomName":"Bob","Motion":[0.1d,0.0d,0.0d],"Tags":["a","b"],"n":3}');
  });

  it('reports where parsing failed', () => {
    expect(() => parseSnbtCompound('{a:1,')).toThrow();
    try {
      parseSnbtCompound('{a 1}');
    } catch (err) {
      expect((err as { cursor: number }).cursor).toBe(3);
    }
  });
});

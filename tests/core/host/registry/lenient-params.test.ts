import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lenientParams } from '../../../../core/host/registry/lenient-params.js';

const schema = z.toJSONSchema(
  z
    .object({
      command: z.string(),
      radius: z.number().optional(),
      ticks: z.number().int().default(0),
      strict: z.boolean().optional(),
      since: z.union([z.number().int(), z.string()]).optional(),
      label: z.string().nullable().optional(),
    })
    .strict(),
  { io: 'input' },
) as Record<string, unknown>;

describe("lenientParams: the predecessor's spellings, driven by the JSON Schema", () => {
  it('drops null for an optional parameter and keeps it for a required or nullable one', () => {
    expect(lenientParams({ command: 'list', radius: null, ticks: null }, schema)).toEqual({ command: 'list' });
    expect(lenientParams({ command: null }, schema)).toBeNull();
    expect(lenientParams({ command: 'x', label: null }, schema)).toBeNull();
  });

  it('reads numbers and booleans written as text, only where the schema wants one', () => {
    expect(lenientParams({ command: '42', radius: ' 16.5 ', ticks: '20', strict: 'yes' }, schema)).toEqual({ command: '42', radius: 16.5, ticks: 20, strict: true });
    expect(lenientParams({ command: 'x', strict: 'off' }, schema)).toEqual({ command: 'x', strict: false });
    // A union that takes a string already accepts the text as it is.
    expect(lenientParams({ command: 'x', since: '7' }, schema)).toBeNull();
  });

  it('leaves what is really wrong alone: words for numbers, unknown keys, non-objects', () => {
    expect(lenientParams({ command: 'x', radius: 'far', strict: 'maybe' }, schema)).toBeNull();
    expect(lenientParams({ command: 'x', extra: null }, schema)).toBeNull();
    expect(lenientParams(['x'], schema)).toBeNull();
    expect(lenientParams('x', schema)).toBeNull();
  });

  it('reads a boolean from its words only, however spaced or cased, and a number only for a number', () => {
    expect(lenientParams({ command: 'x', strict: ' YES ' }, schema)).toEqual({ command: 'x', strict: true });
    expect(lenientParams({ command: 'x', strict: '1' }, schema)).toEqual({ command: 'x', strict: true });
    expect(lenientParams({ command: 'x', strict: '0' }, schema)).toEqual({ command: 'x', strict: false });
    expect(lenientParams({ command: 'x', radius: 'on' }, schema)).toBeNull();
    // Values that are not text are left to the schema.
    expect(lenientParams({ command: 'x', strict: true, radius: 3 }, schema)).toBeNull();
  });

  it('follows anyOf and oneOf branches, and a null allowed by const or enum', () => {
    const custom = {
      properties: {
        either: { anyOf: [{ type: 'number' }, { type: 'boolean' }] },
        one: { oneOf: [{ type: 'integer' }] },
        nothing: { const: null },
        listed: { enum: ['a', null] },
        loose: null,
      },
    };
    expect(lenientParams({ either: '5', one: '6' }, custom)).toEqual({ either: 5, one: 6 });
    expect(lenientParams({ either: 'no' }, custom)).toEqual({ either: false });
    expect(lenientParams({ nothing: null, listed: null }, custom)).toBeNull();
    expect(lenientParams({ loose: '5' }, custom)).toBeNull();
  });

  it('changes nothing without an object to read, or without properties in the schema', () => {
    expect(lenientParams(null, schema)).toBeNull();
    expect(lenientParams('7', { properties: { 0: { type: 'number' } } })).toBeNull();
    expect(lenientParams({ a: null }, { properties: null })).toBeNull();
    expect(lenientParams({ 0: null }, { properties: 'abc' })).toBeNull();
  });
});

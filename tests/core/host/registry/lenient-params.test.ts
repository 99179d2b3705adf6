import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lenientParams } from '../../../../core/host/registry/lenient-params.js';

const schema = z.toJSONSchema(z.object({
  command: z.string(),
  radius: z.number().optional(),
  ticks: z.number().int().default(0),
  strict: z.boolean().optional(),
  since: z.union([z.number().int(), z.string()]).optional(),
  label: z.string().nullable().optional(),
}).strict(), { io: 'input' }) as Record<string, unknown>;

describe('lenientParams: the predecessor\'s spellings, driven by the JSON Schema', () => {
  it('drops null for an optional parameter and keeps it for a required or nullable one', () => {
    expect(lenientParams({ command: 'list', radius: null, ticks: null }, schema)).toEqual({ command: 'list' });
    expect(lenientParams({ command: null }, schema)).toBeNull();
    expect(lenientParams({ command: 'x', label: null }, schema)).toBeNull();
  });

  it('reads numbers and booleans written as text, only where the schema wants one', () => {
    expect(lenientParams({ command: '42', radius: ' 16.5 ', ticks: '20', strict: 'yes' }, schema))
      .toEqual({ command: '42', radius: 16.5, ticks: 20, strict: true });
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
});

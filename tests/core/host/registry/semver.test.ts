import { describe, expect, it } from 'vitest';
import { satisfies, validRange } from '../../../../core/host/registry/semver.js';

describe('plugin version ranges', () => {
  const cases: Array<[string, string, boolean]> = [
    ['0.1.0', '*', true],
    ['0.1.0', '', true],
    ['0.1.0', '>=0.1.0', true],
    ['0.1.0', '>0.1.0', false],
    ['0.1.0', '>0.0', true],
    ['0.1.0', '<0.1.0', false],
    ['0.1.0', '<=0.1', true],
    ['0.1.0', '0.1.0', true],
    ['0.1.5', '0.1', true],
    ['0.2.0', '0.1', false],
    ['0.1.3', '^0.1.0', true],
    ['0.2.0', '^0.1.0', false],
    ['1.9.0', '^1.2.3', true],
    ['2.0.0', '^1.2.3', false],
    ['0.0.3', '^0.0.3', true],
    ['0.0.4', '^0.0.3', false],
    ['1.2.9', '~1.2.3', true],
    ['1.3.0', '~1.2.3', false],
    ['1.5.0', '1.x', true],
    ['1.5.0', '>= 1.2 < 2', true],
    ['2.0.0', '>= 1.2 < 2', false],
    ['1.4.9', '1.0 - 1.4', true],
    ['1.5.0', '1.0 - 1.4', false],
    ['3.0.0', '^1.0.0 || ^3.0.0', true],
    ['0.2.0-beta.1', '>=0.2.0', true],
    // Exact versions, and every operator at its edges.
    ['1.2.3', '=1.2.3', true],
    ['1.2.4', '1.2.3', false],
    ['1.1.0', '1.2', false],
    ['1.2.4', '>1.2.3', true],
    ['1.2.3', '>1.2.3', false],
    ['0.1.0', '>=0.2.0', false],
    ['0.0.9', '<0.1.0', true],
    ['0.1.9', '<=0.1', true],
    ['0.2.0', '<=0.1', false],
    // Wildcards with an operator: everything, or nothing above everything.
    ['1.0.0', '>*', false],
    ['5.0.0', '<=*', true],
    ['1.0.0', '~*', true],
    ['1.0.0', '^*', true],
    // Tilde: a minor's patches; with the major alone, the whole major.
    ['1.2.2', '~1.2.3', false],
    ['1.2.3', '~1.2.3', true],
    ['1.2.5', '~>1.2', true],
    ['1.5.0', '~1', true],
    ['2.0.0', '~1', false],
    // Caret: up to the next change of the first non-zero part.
    ['1.0.0', '^1', true],
    ['2.0.0', '^1', false],
    ['0.9.0', '^0', true],
    ['1.0.0', '^0', false],
    ['0.2.5', '^0.2', true],
    ['0.3.0', '^0.2', false],
    ['0.2.9', '^0.2.3', true],
    ['0.2.2', '^0.2.3', false],
    ['0.0.2', '^0.0.3', false],
    ['0.0.5', '^0.0', true],
    ['0.1.0', '^0.0', false],
    ['0.1.0', '^0.1.0', true],
    // Hyphen ranges include both ends, whatever the spacing; a space after an operator is allowed.
    ['0.9.0', '1.0 - 1.4', false],
    ['1.2.0', '1.0  -  1.4', true],
    ['2.2.0', '1.0 - 1.4 || 2.0 - 2.4', true],
    ['1.2.5', '~ 1.2.3', true],
    ['1.5.0', '>=  1.2', true],
    [' 1.2.3 ', '>=1', true],
  ];
  for (const [version, range, expected] of cases) {
    it(`${version} ${expected ? 'satisfies' : 'does not satisfy'} '${range}'`, () => {
      expect(satisfies(version, range)).toBe(expected);
    });
  }

  it('tells a range it cannot read', () => {
    expect(validRange('>=0.1.0')).toBe(true);
    expect(validRange('latest')).toBe(false);
    expect(() => satisfies('0.1.0', 'banana')).toThrow(/'banana' is not a semver range/);
    // Every alternative must be readable, both ends of a hyphen range too.
    expect(validRange('>=1 || banana')).toBe(false);
    expect(validRange('1.0 - banana')).toBe(false);
  });

  it('tells a version it cannot read', () => {
    expect(() => satisfies('banana', '*')).toThrow("'banana' is not a version");
    expect(() => satisfies('x', '*')).toThrow("'x' is not a version");
  });
});

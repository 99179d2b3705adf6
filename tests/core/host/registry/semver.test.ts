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
  });
});

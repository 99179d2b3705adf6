/**
 * Numbers in generated commands, as the predecessor printed them (Python's `repr` of a float:
 * `64.0`, `10.5`, `-0.0`, `1e-05`, `1e+16`), so its documented command strings stay the same.
 */

/** Python's `repr(float)`: shortest round-trip digits; a fraction or an exponent always shows. */
export function pythonFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const { sign, digits, exp } = decompose(x);
  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const e = Math.abs(exp);
    return `${sign}${mantissa}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  return `${sign}${positional(digits, exp)}`;
}

/**
 * A coordinate for `/summon` and selectors: Python's text wherever it is positional (every
 * coordinate from 1e-4 to 1e16 in size), and the same value written out where Python would use
 * an exponent, because brigadier's number reader stops at `e` (`1e-05` would be refused).
 */
export function coordinateText(x: number): string {
  const text = pythonFloat(x);
  if (!text.includes('e')) return text;
  const { sign, digits, exp } = decompose(x);
  return `${sign}${positional(digits, exp)}`;
}

/** Shortest round-trip digits (no leading zeros) and the decimal exponent of the first one. */
function decompose(x: number): { sign: string; digits: string; exp: number } {
  const [mantissa, e] = Math.abs(x).toExponential().split('e') as [string, string];
  return { sign: x < 0 ? '-' : '', digits: mantissa.replace('.', ''), exp: Number(e) };
}

function positional(digits: string, exp: number): string {
  if (exp < 0) return `0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const fraction = digits.slice(exp + 1);
  return `${whole}.${fraction || '0'}`;
}

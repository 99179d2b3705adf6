/**
 * Seeded PRNG (mulberry32) so every UUID and context id the sim invents is reproducible
 * from the `seed` option.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  nextFloat(): number {
    return this.nextUint32() / 2 ** 32;
  }

  /** A version-4 UUID, dashed and lower-case, like `UUID.randomUUID()`. */
  uuid(): string {
    const hex = [0, 1, 2, 3].map(() => this.nextUint32().toString(16).padStart(8, '0')).join('');
    const chars = hex.split('');
    chars[12] = '4';
    chars[16] = ((parseInt(chars[16], 16) & 0x3) | 0x8).toString(16);
    const h = chars.join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}

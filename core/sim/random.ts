import { createHash } from 'node:crypto';
import { v4Uuid } from './uuid.js';

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
    return v4Uuid([0, 1, 2, 3].map(() => this.nextUint32().toString(16).padStart(8, '0')).join(''));
  }
}

/** The seed of the sim named `name` (a daemon's target): its own stream of UUIDs and context ids, the same on every start. */
export function namedSeed(name: string, seed: number): number {
  return createHash('sha256').update(`${name}\0${seed}`).digest().readUInt32BE(0);
}

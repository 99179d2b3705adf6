import { SeededRandom } from '../../core/sim/random.js';

/**
 * The sim's seeded PRNG (mulberry32) with what generated tests draw: a failure names its
 * seed, and the same seed replays the same inputs.
 */
export class Prng {
  private readonly random: SeededRandom;

  constructor(readonly seed: number) {
    this.random = new SeededRandom(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.random.nextUint32() / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  bytes(length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    for (let i = 0; i < length; i++) out[i] = this.int(0, 255);
    return out;
  }
}

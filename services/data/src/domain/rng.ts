import { DATASET_VERSION } from './dataset';

// Every generated value comes from these few functions so that a row is a pure
// function of (pack, entity, dataset version, index) and nothing else.

/** FNV-1a: a stable 32-bit hash of a string, used to key each entity's stream. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A strong 32-bit integer finaliser (Wellons' lowbias32): nearby inputs give unrelated outputs. */
export function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Combines a stream key with one or two integers (e.g. a row index and a sub-index). */
export function mixKey(key: number, a: number, b = 0): number {
  return mix32(key ^ mix32(a + Math.imul(b, 0x9e3779b1) + 0x6a09e667));
}

/** A uniform float in [0, 1) derived from a 32-bit hash. */
export function unit(hash: number): number {
  return hash / 4294967296;
}

/** The stream key of one entity (or of a named sub-stream of it) in the current dataset version. */
export function streamKey(pack: string, entity: string, stream = ''): number {
  return hashString(`${pack}/${entity}/v${DATASET_VERSION}/${stream}`);
}

/**
 * mulberry32, seeded per row. A row draws its values in a fixed order from its
 * own generator, so adding a draw to one row never shifts any other row.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A float in [min, max). */
  float(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** Roughly normal (Irwin-Hall of four uniforms), mean 0, sd 1; bounded, which suits generated data. */
  normal(): number {
    return (this.next() + this.next() + this.next() + this.next() - 2) * 1.7320508075688772;
  }
}

/** The generator for row `index` of a stream. */
export function rowRng(key: number, index: number, sub = 0): Rng {
  return new Rng(mixKey(key, index, sub));
}

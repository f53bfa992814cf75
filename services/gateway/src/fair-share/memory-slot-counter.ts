import type { Held, SlotClaim, SlotCounter } from './slot-counter';

/** The slow requests in flight through this gateway, by key; a key at zero is forgotten. */
export class MemorySlotCounter implements SlotCounter {
  private readonly counts = new Map<string, number>();

  hold(claims: readonly SlotClaim[]): Held {
    const inUse = claims.map((claim) => (this.counts.get(claim.key) ?? 0) + 1);
    const full = claims.findIndex((claim, i) => inUse[i]! > claim.cap);
    if (full >= 0) return { held: false, full };
    claims.forEach((claim, i) => this.counts.set(claim.key, inUse[i]!));
    return { held: true, inUse };
  }

  release(claims: readonly SlotClaim[]): void {
    for (const { key } of claims) {
      const count = (this.counts.get(key) ?? 0) - 1;
      if (count > 0) this.counts.set(key, count);
      else this.counts.delete(key);
    }
  }
}

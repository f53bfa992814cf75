export interface Range {
  readonly start: number;
  readonly count: number;
}

/**
 * Children stored parent-major: parent p owns the child rows
 * [start(p), start(p) + count(p)). Built once from a small per-parent count
 * table (parents are always small entities), it answers both directions in
 * O(log parents) so neither the child nor the parent side ever scans rows.
 */
export class Partition {
  private readonly starts: Float64Array;

  constructor(parentCount: number, countOf: (parent: number) => number) {
    this.starts = new Float64Array(parentCount + 1);
    for (let p = 0; p < parentCount; p++) this.starts[p + 1] = this.starts[p]! + countOf(p);
  }

  get parents(): number {
    return this.starts.length - 1;
  }

  get total(): number {
    return this.starts[this.starts.length - 1]!;
  }

  rangeOf(parent: number): Range {
    const start = this.starts[parent]!;
    return { start, count: this.starts[parent + 1]! - start };
  }

  startOf(parent: number): number {
    return this.starts[parent]!;
  }

  /** The parent owning child row `index`; parents with no children are skipped naturally. */
  parentOf(index: number): number {
    let low = 0;
    let high = this.starts.length - 2;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.starts[mid]! <= index) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

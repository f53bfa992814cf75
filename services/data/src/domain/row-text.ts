import type { EntityDefinition } from './entity';
import { entityOrdinal } from './packs';
import { nestRow, rowValues, type Shape } from './shapes';

/**
 * The JSON text of single rows, each serialised once and then reused by every
 * page that holds the row, so a page is its envelope and its rows' texts
 * joined (docs/data.md, "How a page is rendered"). A row is a pure function of
 * its index, so its text never goes stale.
 *
 * Kept in blocks of BLOCK_ROWS consecutive rows of one entity in one form,
 * filled on first use and evicted (second chance) beyond BUDGET_BYTES:
 * every entity but stocks/candles fits whole (12.7 MB of text in the three
 * forms), while candles (a million rows, about 400 MB as text) could not, and a
 * client walking it keeps only its recent blocks. At rest the cache is empty;
 * full, it holds about 26 MiB of heap.
 */
export type RowForm = 'flat' | 'values' | 'nested';
const FORMS: readonly RowForm[] = ['flat', 'values', 'nested'];

/**
 * Small, so a page serialises few rows it does not show (a page of 50 at an
 * offset that is a multiple of 10 serialises exactly its own rows), and large
 * enough that the map holds few entries.
 */
export const BLOCK_ROWS = 10;
/** Bytes of row text kept (one-byte strings; a row counts its length plus PER_ROW_OVERHEAD). */
export const BUDGET_BYTES = 24 * 1024 * 1024;
/** V8's string header and the block's array slot, roughly: so many short rows are not undercounted. */
const PER_ROW_OVERHEAD = 24;
/** Above the largest entity's block count (stocks/candles: 100,000), so keys of different entities never meet. */
const BLOCKS_PER_KEY = 1 << 20;

interface Block {
  readonly key: number;
  readonly texts: readonly string[];
  readonly bytes: number;
  /** Read since the clock hand last passed it: spared once (second chance). */
  used: boolean;
}

export class RowTextCache {
  private readonly blocks = new Map<number, Block>();
  /**
   * Blocks in the order the clock hand meets them, from `hand` on. Eviction is
   * second-chance (CLOCK), as in the gateway's page cache: a hit only sets a
   * flag. Moving a hit to the back of the Map instead (delete, set) leaves
   * holes at the Map's front that every later eviction walks over; with the
   * cache full that cost a page of candles more than the serialising saved.
   */
  private ring: Block[] = [];
  private hand = 0;
  private bytes = 0;

  constructor(private readonly budgetBytes: number = BUDGET_BYTES) {}

  /** Pushes the texts of rows [start, end) of `entity` in `form` onto `out`. */
  appendRows(entity: EntityDefinition, form: RowForm, start: number, end: number, out: string[]): void {
    const base = (entityOrdinal(entity) * FORMS.length + FORMS.indexOf(form)) * BLOCKS_PER_KEY;
    let i = start;
    while (i < end) {
      const b = Math.floor(i / BLOCK_ROWS);
      const texts = this.block(base + b, entity, form, b * BLOCK_ROWS);
      const stop = Math.min(end, (b + 1) * BLOCK_ROWS);
      for (; i < stop; i++) out.push(texts[i - b * BLOCK_ROWS]!);
    }
  }

  /** The text of one row. */
  row(entity: EntityDefinition, form: RowForm, index: number): string {
    const out: string[] = [];
    this.appendRows(entity, form, index, index + 1, out);
    return out[0]!;
  }

  /** Bytes of text held now (for tests and the benchmark). */
  get heldBytes(): number {
    return this.bytes;
  }

  private block(key: number, entity: EntityDefinition, form: RowForm, first: number): readonly string[] {
    const hit = this.blocks.get(key);
    if (hit) {
      hit.used = true;
      return hit.texts;
    }
    const last = Math.min(entity.count, first + BLOCK_ROWS);
    const texts: string[] = [];
    let bytes = 0;
    for (let i = first; i < last; i++) {
      const text = serialiseRow(entity, form, i);
      texts.push(text);
      bytes += text.length + PER_ROW_OVERHEAD;
    }
    const block: Block = { key, texts, bytes, used: false };
    this.blocks.set(key, block);
    this.ring.push(block);
    this.bytes += bytes;
    this.evict(block);
    return texts;
  }

  /** Drops blocks from the hand on until the budget holds, never `keep` (the block being read). */
  private evict(keep: Block): void {
    while (this.bytes > this.budgetBytes) {
      if (this.blocks.size === 1) break;
      const oldest = this.ring[this.hand++]!;
      // Every block read since the hand last passed gets pushed behind `keep`; one more pass finds them unread.
      if (oldest === keep || oldest.used) {
        oldest.used = false;
        this.ring.push(oldest);
      } else {
        this.blocks.delete(oldest.key);
        this.bytes -= oldest.bytes;
      }
    }
    // Drop the passed part of the ring now and then, so it stays about as long as the map.
    if (this.hand > 1024 && this.hand * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.hand);
      this.hand = 0;
    }
  }
}

function serialiseRow(entity: EntityDefinition, form: RowForm, index: number): string {
  const row = entity.row(index);
  switch (form) {
    case 'flat':
      return JSON.stringify(row);
    case 'values':
      return JSON.stringify(rowValues(entity, row));
    case 'nested':
      return JSON.stringify(nestRow(entity, row));
  }
}

/** Which serialised form of its rows a page in `shape` is built from (nested-list composes flat rows). */
export function formOf(shape: Shape): RowForm {
  return shape === 'list-of-lists' ? 'values' : shape === 'nested' ? 'nested' : 'flat';
}

/**
 * The text of `{...row, [key]: [members]}` from the row's own text, as
 * JSON.stringify writes it: `key` must not be a field of the row (it would
 * keep the field's place), which shapes.ts checks for every entity.
 */
export function withMembers(rowText: string, key: string, members: readonly string[]): string {
  const open = rowText.length === 2 ? '{' : `${rowText.slice(0, -1)},`;
  return `${open}${JSON.stringify(key)}:[${members.join(',')}]}`;
}

import type { accountRules } from '@sandbox/contracts';
import type { Range } from './partition';

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'datetime';
export type Value = string | number | boolean | null;
/** A flat row: one key per field, in field order. */
export type Row = Record<string, Value>;

export interface FieldDefinition {
  readonly name: string;
  readonly type: FieldType;
  /** One line for people reading the pack description. */
  readonly meaning: string;
  readonly nullable?: boolean;
  /** In the nested shape this field moves into sub-object `in`, under the name `as`. */
  readonly nest?: { readonly in: string; readonly as: string };
  /** A foreign key: the value is the `field` of some row of `entity` (same pack). */
  readonly references?: { readonly entity: string; readonly field: string };
}

/**
 * How the nested-list shape presents a row while still paging by the entity's
 * own rows, so totals and row counts stay exact:
 * - children: each row becomes a parent object carrying all its child rows
 *   (from a related entity of the same pack) in an array under `key`;
 * - grouped: for leaf entities, consecutive rows of the page sharing a parent
 *   are gathered under that parent row, in an array under `key`. A group cut by
 *   a page boundary continues at the top of the next page.
 */
export type NestedList =
  | {
      readonly kind: 'children';
      readonly key: string;
      readonly child: () => EntityDefinition;
      readonly childrenOf: (index: number) => Range;
    }
  | {
      readonly kind: 'grouped';
      readonly key: string;
      readonly parent: () => EntityDefinition;
      readonly parentOf: (index: number) => number;
    };

/** The one mechanism every pack uses to describe and generate an entity. */
export interface EntityDefinition {
  readonly pack: string;
  readonly name: string;
  readonly description: string;
  readonly count: number;
  /** Fields that identify a row; unique across the entity. */
  readonly primaryKey: readonly string[];
  readonly fields: readonly FieldDefinition[];
  /** Row `index` (0-based) as a flat row; a pure function of the index. */
  row(index: number): Row;
  readonly nestedList: NestedList;
}

export interface PackDefinition {
  readonly name: string;
  /** One of the pack scopes apps hold (contracts' account-rules.ts): a pack named by any other would be unreachable. */
  readonly scope: accountRules.PackScope;
  readonly description: string;
  readonly entities: readonly EntityDefinition[];
}

import { dataApi } from '@sandbox/contracts';
import type { EntityDefinition, Row, Value } from './entity';
import { quoteInput } from '@sandbox/runtime';
import { invalidArgument } from './errors';

// The names and their words are the API's contract (packages/contracts/src/data-api.ts).
export const { SHAPES, DEFAULT_SHAPE, SHAPE_DESCRIPTIONS } = dataApi;
export type Shape = dataApi.Shape;

export function parseShape(raw: string | undefined): Shape {
  if (raw === undefined) return DEFAULT_SHAPE;
  if ((SHAPES as readonly string[]).includes(raw)) return raw as Shape;
  throw invalidArgument('invalid_parameter', `Unknown shape ${quoteInput(raw)}. Allowed values of shape: ${SHAPES.join(', ')}.`);
}

export function shapeIndex(shape: Shape): number {
  return SHAPES.indexOf(shape);
}

type Member = readonly [as: string, field: string];
type NestPlanEntry =
  { readonly kind: 'field'; readonly key: string; readonly field: string } | { readonly kind: 'group'; readonly key: string; readonly members: Member[] };

interface EntityPlans {
  readonly header: readonly string[];
  readonly nest: readonly NestPlanEntry[];
}

// Built once per entity from its field definitions, so the per-row work is plain loops.
const plans = new WeakMap<EntityDefinition, EntityPlans>();

function plansOf(entity: EntityDefinition): EntityPlans {
  let plan = plans.get(entity);
  if (plan) return plan;
  const nest: NestPlanEntry[] = [];
  const groups = new Map<string, Member[]>();
  for (const field of entity.fields) {
    if (!field.nest) {
      nest.push({ kind: 'field', key: field.name, field: field.name });
      continue;
    }
    let members = groups.get(field.nest.in);
    if (!members) {
      members = [];
      groups.set(field.nest.in, members);
      // A group sits where its first field would have been.
      nest.push({ kind: 'group', key: field.nest.in, members });
    }
    members.push([field.nest.as, field.name]);
  }
  const keys = nest.map((entry) => entry.key);
  if (new Set(keys).size !== keys.length) throw new Error(`${entity.pack}/${entity.name}: a nested group collides with a field name`);
  // nested-list writes {...row, [key]: members}; a field of that name would keep its own place, which the
  // page renderer's text composition (row-text.ts, withMembers) does not reproduce.
  const relation = entity.nestedList;
  const listed = relation.kind === 'children' ? entity : relation.parent();
  if (listed.fields.some((f) => f.name === relation.key)) throw new Error(`${entity.pack}/${entity.name}: the nested-list key collides with a field name`);
  plan = { header: entity.fields.map((f) => f.name), nest };
  plans.set(entity, plan);
  return plan;
}

/** The field names in order: the first element of every list-of-lists page. */
export function headerOf(entity: EntityDefinition): readonly string[] {
  return plansOf(entity).header;
}

export function nestRow(entity: EntityDefinition, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const entry of plansOf(entity).nest) {
    if (entry.kind === 'field') {
      out[entry.key] = row[entry.field];
    } else {
      const group: Record<string, Value | undefined> = {};
      for (const [as, field] of entry.members) group[as] = row[field];
      out[entry.key] = group;
    }
  }
  return out;
}

/** A row's values in field order: a row of the list-of-lists shape. */
export function rowValues(entity: EntityDefinition, row: Row): Value[] {
  const { header } = plansOf(entity);
  const values = new Array<Value>(header.length);
  for (let f = 0; f < header.length; f++) values[f] = row[header[f]!]!;
  return values;
}

/** The `data` array of a page holding rows [start, start + count) of the entity. */
export function shapeRows(entity: EntityDefinition, shape: Shape, start: number, count: number): unknown[] {
  const end = start + count;
  const data: unknown[] = [];
  switch (shape) {
    case 'flat':
      for (let i = start; i < end; i++) data.push(entity.row(i));
      return data;
    case 'list-of-lists': {
      data.push(headerOf(entity));
      for (let i = start; i < end; i++) data.push(rowValues(entity, entity.row(i)));
      return data;
    }
    case 'nested':
      for (let i = start; i < end; i++) data.push(nestRow(entity, entity.row(i)));
      return data;
    case 'nested-list':
      return nestedList(entity, start, end);
  }
}

function nestedList(entity: EntityDefinition, start: number, end: number): unknown[] {
  const data: unknown[] = [];
  const relation = entity.nestedList;
  if (relation.kind === 'children') {
    const child = relation.child();
    for (let i = start; i < end; i++) {
      const range = relation.childrenOf(i);
      const children: Row[] = [];
      for (let c = range.start; c < range.start + range.count; c++) children.push(child.row(c));
      data.push({ ...entity.row(i), [relation.key]: children });
    }
    return data;
  }
  const parent = relation.parent();
  let current = -1;
  let members: Row[] = [];
  for (let i = start; i < end; i++) {
    const p = relation.parentOf(i);
    if (p !== current) {
      current = p;
      members = [];
      data.push({ ...parent.row(p), [relation.key]: members });
    }
    members.push(entity.row(i));
  }
  return data;
}

/** One line per entity for the pack description: what nested-list does for it. */
export function describeNestedList(entity: EntityDefinition): string {
  const relation = entity.nestedList;
  if (relation.kind === 'children') {
    return `Each ${entity.name} row with all its ${relation.child().name} rows in the array "${relation.key}".`;
  }
  return `The page's ${entity.name} rows grouped under their ${relation.parent().name} row, in the array "${relation.key}"; a group cut by the end of a page continues on the next.`;
}

/** One line per entity for the pack description: which fields the nested shape groups. */
export function describeNested(entity: EntityDefinition): string {
  const groups: string[] = [];
  for (const entry of plansOf(entity).nest) {
    if (entry.kind === 'group') groups.push(`${entry.key}: {${entry.members.map(([as]) => as).join(', ')}}`);
  }
  return groups.length === 0 ? 'Same as flat: this entity has no grouped fields.' : `Groups ${groups.join('; ')}.`;
}

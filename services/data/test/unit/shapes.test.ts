import { ENTITIES, SHAPES } from '../../src/domain';
import type { EntityDefinition, Row } from '../../src/domain/entity';
import { get, dataUrl } from './support/data-endpoint';

const entities = ENTITIES.map((e) => [`${e.pack}/${e.name}`, e] as const);
const PAGE_SIZE = 7;

/** Pages whose rows straddle parent boundaries: the first, one in the middle and the last. */
const pagesOf = (entity: EntityDefinition) => [...new Set([1, Math.ceil(entity.count / PAGE_SIZE / 2), Math.ceil(entity.count / PAGE_SIZE)])];

function expectedRows(entity: EntityDefinition, page: number): Row[] {
  const start = (page - 1) * PAGE_SIZE;
  const rows: Row[] = [];
  for (let i = start; i < Math.min(entity.count, start + PAGE_SIZE); i++) rows.push(entity.row(i));
  return rows;
}

const fetchData = (entity: EntityDefinition, shape: string, page: number) =>
  get(dataUrl(entity.pack, entity.name, `shape=${shape}&page=${page}&page_size=${PAGE_SIZE}`)).body;

describe('every entity renders in every shape', () => {
  it.each(entities.flatMap(([name, entity]) => SHAPES.map((shape) => [name, shape, entity] as const)))(
    'when %s is asked for as %s, then the page renders with the shape named and the rows counted',
    (_, shape, entity) => {
      for (const page of pagesOf(entity)) {
        const body = fetchData(entity, shape, page);
        expect(body.shape).toBe(shape);
        expect(body.pagination.returned).toBe(expectedRows(entity, page).length);
        expect(body.data.length).toBeGreaterThan(0);
      }
    },
  );
});

describe('flat', () => {
  it.each(entities)('when %s is flat, then data is the rows as plain objects', (_, entity) => {
    for (const page of pagesOf(entity)) expect(fetchData(entity, 'flat', page).data).toEqual(expectedRows(entity, page));
  });
});

describe('list-of-lists', () => {
  it.each(entities)('when %s is a list of lists, then every page starts with the header and rows follow in header order', (_, entity) => {
    const header = entity.fields.map((f) => f.name);
    for (const page of pagesOf(entity)) {
      const [first, ...values] = fetchData(entity, 'list-of-lists', page).data as unknown[][];
      expect(first).toEqual(header);
      expect(values).toEqual(expectedRows(entity, page).map((row) => header.map((name) => row[name])));
    }
  });
});

describe('nested', () => {
  it.each(entities)('when %s is nested, then each field sits where its definition says and nothing is lost', (_, entity) => {
    for (const page of pagesOf(entity)) {
      const nested = fetchData(entity, 'nested', page).data as Array<Record<string, unknown>>;
      const rows = expectedRows(entity, page);
      nested.forEach((object, n) => {
        const flattened: Row = {};
        for (const field of entity.fields) {
          const value = field.nest ? (object[field.nest.in] as Record<string, unknown>)[field.nest.as] : object[field.name];
          flattened[field.name] = value as Row[string];
        }
        expect(flattened).toEqual(rows[n]);
        const leaves = Object.values(object).reduce<number>(
          (count, value) => count + (value !== null && typeof value === 'object' ? Object.keys(value).length : 1),
          0,
        );
        expect(leaves).toBe(entity.fields.length);
      });
    }
  });

  it('when employees are nested, then department and compensation are sub-objects', () => {
    const [employee] = get(dataUrl('hr', 'employees', 'shape=nested&page_size=1')).body.data as Array<Record<string, unknown>>;
    expect(employee).toMatchObject({
      id: 'E10001',
      department: { id: 'DEPT-01', name: 'Engineering' },
      compensation: { salary: expect.any(Number), currency: expect.any(String) },
    });
  });
});

describe('nested-list', () => {
  it.each(entities)('when %s is a nested list, then its rows carry or are grouped under related rows, and the page rows stay exact', (_, entity) => {
    const relation = entity.nestedList;
    // The array must not overwrite a field of the object it is added to.
    const host = relation.kind === 'children' ? entity : relation.parent();
    expect(host.fields.map((f) => f.name)).not.toContain(relation.key);
    for (const page of pagesOf(entity)) {
      const data = fetchData(entity, 'nested-list', page).data as Array<Record<string, unknown>>;
      const rows = expectedRows(entity, page);
      if (relation.kind === 'children') {
        const child = relation.child();
        expect(data).toHaveLength(rows.length);
        data.forEach((object, n) => {
          const { [relation.key]: children, ...parent } = object;
          expect(parent).toEqual(rows[n]);
          const range = relation.childrenOf((page - 1) * PAGE_SIZE + n);
          expect(children).toEqual(Array.from({ length: range.count }, (_, c) => child.row(range.start + c)));
          // Children point back at their parent through a declared foreign key.
          const back = child.fields.find((f) => f.references?.entity === entity.name && f.references.field === entity.primaryKey[0]);
          if (back) for (const row of children as Row[]) expect(row[back.name]).toBe(rows[n]![entity.primaryKey[0]!]);
        });
      } else {
        const parent = relation.parent();
        expect(data.flatMap((group) => group[relation.key] as Row[])).toEqual(rows);
        const expectedParents = [...new Set(rows.map((_, n) => relation.parentOf((page - 1) * PAGE_SIZE + n)))];
        expect(data.map(({ [relation.key]: _members, ...rest }) => rest)).toEqual(expectedParents.map((p) => parent.row(p)));
      }
    }
  });

  it('when candles are a nested list, then a page of one ticker is one group with the ticker and its candles', () => {
    const body = get(dataUrl('stocks', 'candles', 'shape=nested-list&page_size=10')).body;
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ symbol: 'BVM', candles: expect.arrayContaining([expect.objectContaining({ ticker: 'BVM' })]) });
    expect((body.data[0] as { candles: unknown[] }).candles).toHaveLength(10);
    expect(body.pagination.returned).toBe(10);
  });
});

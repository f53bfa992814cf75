import { GrpcStatus } from '@sandbox/runtime';
import { catalog, describePack, ENTITIES, PACKS, SHAPES } from '../../src/domain';
import { thrown } from './support/data-endpoint';

const ROOT = 'https://sandbox.test/x/playground/data';

/** Every string value in a JSON document that looks like a URL. */
function urlsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^https?:/.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
  return [];
}

describe('catalog', () => {
  const document = catalog(ROOT);

  it('when the catalog is built, then it lists every pack with its scope, description and entity row counts', () => {
    expect(document.packs.map((p) => p.name)).toEqual(['fpa', 'stocks', 'marketing', 'hr', 'cricket']);
    for (const pack of document.packs) {
      const definition = PACKS.find((p) => p.name === pack.name)!;
      expect(pack.scope).toBe(`${pack.name}:read`);
      expect(pack.description.length).toBeGreaterThan(10);
      expect(pack.url).toBe(`${ROOT}/${pack.name}`);
      expect(pack.entities).toEqual(
        definition.entities.map((e) => ({ name: e.name, description: e.description, rows: e.count, url: `${ROOT}/${pack.name}/${e.name}` })),
      );
    }
  });

  it('when the shapes are listed, then each has a description and an example in that shape', () => {
    expect(document.shapes.map((s) => s.name)).toEqual([...SHAPES]);
    const byName = Object.fromEntries(document.shapes.map((s) => [s.name, s]));
    const [header, values] = byName['list-of-lists']!.example.data as unknown[][];
    expect(header).toContain('home_team_id');
    expect(values).toHaveLength(header!.length);
    expect(byName['nested']!.example.data[0]).toHaveProperty('outcome.result');
    expect(byName['nested-list']!.example.data[0]).toHaveProperty('innings');
    expect(byName['flat']!.example.data[0]).toHaveProperty('home_team_id');
    for (const shape of document.shapes) expect(shape.description.length).toBeGreaterThan(20);
  });

  it('when the pagination styles are listed, then all five have a one-line how-to and an example URL', () => {
    expect(document.pagination.styles.map((s) => s.name)).toEqual(['page', 'offset', 'cursor', 'token', 'link']);
    for (const style of document.pagination.styles) {
      expect(style.how).not.toContain('\n');
      expect(style.example.startsWith(`${ROOT}/`)).toBe(true);
    }
    expect(document.pagination).toMatchObject({ default_page_size: 50, max_page_size: 1000 });
    expect(Object.keys(document.pagination.body.pagination)).toEqual(
      expect.arrayContaining(['style', 'total', 'page_size', 'page_size_clamped', 'page', 'offset', 'limit', 'returned', 'has_more', 'next', 'next_url']),
    );
  });

  it('when the catalog is serialised, then it is plain JSON data', () => {
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
  });
});

describe('pack description', () => {
  it.each(PACKS.map((p) => [p.name]))('when %s is described, then each entity has its fields, a sample row and its count', (name) => {
    const description = describePack(name, ROOT);
    expect(description).toMatchObject({ name, scope: `${name}:read` });
    for (const entity of description.entities) {
      const definition = ENTITIES.find((e) => e.pack === name && e.name === entity.name)!;
      expect(entity.rows).toBe(definition.count);
      expect(entity.sample).toEqual(definition.row(0));
      expect(entity.fields.map((f) => [f.name, f.type, f.meaning])).toEqual(definition.fields.map((f) => [f.name, f.type, f.meaning]));
      expect(Object.keys(entity.sample)).toEqual(entity.fields.map((f) => f.name));
      expect(entity.shapes['nested-list'].length).toBeGreaterThan(20);
    }
  });

  it('when employees are described, then the foreign key and nested place of a field are given', () => {
    const employees = describePack('hr', ROOT).entities.find((e) => e.name === 'employees')!;
    expect(employees.fields.find((f) => f.name === 'department_id')).toMatchObject({
      references: 'departments.id',
      nested_as: 'department.id',
      nullable: false,
    });
    expect(employees.fields.find((f) => f.name === 'manager_id')).toMatchObject({ nullable: true });
    expect(employees.shapes.nested).toContain('compensation: {salary, currency}');
  });

  it('when an unknown pack is described, then NOT_FOUND unknown_pack', () => {
    expect(thrown(() => describePack('weather', ROOT))).toMatchObject({ status: GrpcStatus.NOT_FOUND, code: 'unknown_pack' });
  });
});

describe('URLs follow the root the gateway sends', () => {
  const PREFIXED = 'https://class.example.org/sandbox/api/datasets';

  it('when the root has a proxy prefix and another mount point, then every catalog URL is below it', () => {
    const document = catalog(PREFIXED);
    expect(document.packs.find((p) => p.name === 'hr')!.url).toBe(`${PREFIXED}/hr`);
    expect(document.pagination.styles[0]!.example).toBe(`${PREFIXED}/hr/employees?page=2&page_size=50`);
    const urls = urlsIn(document);
    expect(urls.length).toBeGreaterThan(PACKS.length);
    for (const url of urls) expect(url.startsWith(`${PREFIXED}/`)).toBe(true);
  });

  it("when a pack is described under a prefixed root, then its URL and its entities' URLs are below it", () => {
    const description = describePack('cricket', PREFIXED);
    expect(description.url).toBe(`${PREFIXED}/cricket`);
    expect(description.entities.map((e) => e.url)).toEqual(['teams', 'players', 'matches', 'innings'].map((e) => `${PREFIXED}/cricket/${e}`));
  });

  it('when the root ends with a slash, then URLs join it with one slash', () => {
    expect(describePack('hr', `${PREFIXED}/`).url).toBe(`${PREFIXED}/hr`);
    expect(catalog(`${PREFIXED}//`).packs[0]!.entities[0]!.url).toBe(`${PREFIXED}/fpa/departments`);
  });
});

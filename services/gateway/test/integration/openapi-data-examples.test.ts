import { createApp, rawRequest, registerUser, startSystem, type CreatedApp, type RunningSystem } from '@sandbox/testing';
import { DATA_EXAMPLE_COMPONENTS, dataExamples } from '../../src/openapi/data-examples';
import { offlineOpenApiDocument } from '../../src/openapi/offline-document';

jest.setTimeout(180_000);

type Schemas = Record<string, { example?: unknown }>;

/**
 * The data endpoints' examples in the OpenAPI document (and so in the docs
 * page and the Postman collection) are the running data service's answers:
 * each documented request, sent to the real system as addressed at the
 * examples' base URL, answers exactly the example.
 */
describe('the data examples of the OpenAPI document', () => {
  let system: RunningSystem;
  let app: CreatedApp;
  const examples = dataExamples();

  beforeAll(async () => {
    system = await startSystem();
    app = await createApp(system.baseUrl, await registerUser(system.baseUrl));
  });
  afterAll(() => system?.stop());

  /** A request to the running system, addressed as a client of the examples' base URL addresses it (its Host), so every link in the answer starts the same. */
  const asExamplesSeeIt = (path: string, headers: Record<string, string> = {}) =>
    rawRequest(`${system.baseUrl}${path}`, { headers: { Host: new URL(examples!.baseUrl).host, ...headers } });

  it('when the build has run, then the served document, the offline one and the build agree on every data example', async () => {
    expect(examples).toBeDefined();
    const served = (await asExamplesSeeIt('/openapi.json')).json().components.schemas as Schemas;
    const offline = offlineOpenApiDocument(system.baseUrl).components!.schemas as Schemas;
    for (const [id, key] of Object.entries(DATA_EXAMPLE_COMPONENTS)) {
      expect(served[id]!.example).toEqual(examples![key].body);
      expect(offline[id]!.example).toEqual(examples![key].body);
    }
  });

  it.each(Object.entries(DATA_EXAMPLE_COMPONENTS))(
    'when the request of the %s example is sent, then the data service answers exactly the example',
    async (id, key) => {
      const { request } = examples![key];
      const schemas = (await asExamplesSeeIt('/openapi.json')).json().components.schemas as Schemas;
      const res = await asExamplesSeeIt(`/playground/data${request.path}${request.query ? `?${request.query}` : ''}`, { 'x-api-key': app.apiKey });
      expect(res.status).toBe(200);
      expect(schemas[id]!.example).toEqual(res.json());
    },
  );

  it('when a learner reads the examples, then they carry the data as it is: the reference date, the row counts, ids as strings', async () => {
    const catalog = (await rawRequest(`${system.baseUrl}/playground/data`)).json();
    const schemas = (await asExamplesSeeIt('/openapi.json')).json().components.schemas as Schemas;
    const documented = schemas.DataCatalog!.example as typeof catalog;
    expect(documented.reference_date).toBe(catalog.reference_date);
    const rows = (c: typeof catalog) =>
      Object.fromEntries(
        c.packs.flatMap((p: { name: string; entities: { name: string; rows: number }[] }) => p.entities.map((e) => [`${p.name}/${e.name}`, e.rows])),
      );
    expect(rows(documented)).toEqual(rows(catalog));
    const page = schemas.Page!.example as { data: { id: unknown }[] };
    expect(page.data.length).toBeGreaterThan(0);
    for (const row of page.data) expect(typeof row.id).toBe('string');
  });
});

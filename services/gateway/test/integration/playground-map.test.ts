import { createApp, rawRequest, registerUser, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(180_000);

interface MapEntry {
  methods: string[];
  path: string;
  url: string;
  example?: string;
}

/** GET /playground through the real gateway, with the data service's real catalog behind it. */
describe('the /playground map', () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(() => system?.stop());

  const endpoints = async (): Promise<MapEntry[]> => {
    const res = await rawRequest(`${system.baseUrl}/playground`);
    expect(res.status).toBe(200);
    return res.json().endpoints;
  };

  it('when a path has parameters, then a working example URL stands beside its template, and every example the map lists answers (never 404)', async () => {
    const listed = await endpoints();
    const templated = listed.filter((e) => e.path.includes(':'));
    expect(templated.map((e) => e.path).sort()).toEqual(['/playground/data/:pack', '/playground/data/:pack/:entity']);
    for (const entry of templated) {
      expect(entry.url).toBe(`${system.baseUrl}${entry.path}`);
      expect(entry.example).toMatch(new RegExp(`^${system.baseUrl}/playground/data/[a-z_]+(/[a-z_]+)?$`));
    }
    // A path without parameters needs no example: its url works as it is.
    expect(listed.filter((e) => !e.path.includes(':')).every((e) => e.example === undefined)).toBe(true);

    const examples = listed.filter((e) => e.example);
    for (const entry of examples) {
      const res = await rawRequest(entry.example!, { method: entry.methods[0] });
      // Named in the failure, so a broken example says which it is.
      expect({ example: entry.example, found: res.status !== 404 && res.status < 500 }).toEqual({ example: entry.example, found: true });
    }
  });

  it("when the examples are followed, then they are the data service's own: the catalog's first pack and its first entity, and a page with a credential", async () => {
    const catalog = (await rawRequest(`${system.baseUrl}/playground/data`)).json() as {
      packs: { name: string; url: string; entities: { name: string; url: string }[] }[];
    };
    const first = catalog.packs[0]!;
    const byPath = new Map((await endpoints()).map((e) => [e.path, e.example]));
    expect(byPath.get('/playground/data/:pack')).toBe(first.url);
    expect(byPath.get('/playground/data/:pack/:entity')).toBe(first.entities[0]!.url);

    const pack = await rawRequest(byPath.get('/playground/data/:pack')!);
    expect({ status: pack.status, name: pack.json().name }).toEqual({ status: 200, name: first.name });
    // The page needs the pack's scope: without a credential 401, with one the page itself.
    expect((await rawRequest(byPath.get('/playground/data/:pack/:entity')!)).status).toBe(401);
    const app = await createApp(system.baseUrl, await registerUser(system.baseUrl));
    const page = await rawRequest(byPath.get('/playground/data/:pack/:entity')!, { headers: { 'x-api-key': app.apiKey } });
    expect({ status: page.status, pack: page.json().pack, entity: page.json().entity }).toEqual({
      status: 200,
      pack: first.name,
      entity: first.entities[0]!.name,
    });
  });

  it('when the data service is down, then the map still answers, with the templates and without examples', async () => {
    await system.stopService('data');
    try {
      const listed = await endpoints();
      const templated = listed.filter((e) => e.path.includes(':'));
      expect(templated).toHaveLength(2);
      expect(templated.every((e) => e.example === undefined)).toBe(true);
    } finally {
      await system.startService('data');
    }
  });
});

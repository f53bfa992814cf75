import {
  createApp,
  isolatedMongoUrl,
  registerUser,
  requireStoreUrls,
  runPythonScript,
  startSystem,
  type CreatedApp,
  type RunningSystem,
} from '@sandbox/testing';

jest.setTimeout(120_000);

/**
 * Interoperability: a Python learner's client, written with requests (a
 * third-party library with its own URL encoding and its own RFC 8288 Link
 * parser), pages through an entity in every style and with the API key in a
 * header or in the query (test/interop/page_through.py).
 */
interface Walk {
  total: number;
  rows: Record<string, unknown>[];
  requests: number;
}

const STYLES = ['page', 'offset', 'cursor', 'token', 'link', 'nextLink'] as const;
const ENTITY = '/playground/data/hr/employees';

let system: RunningSystem;
let app: CreatedApp;
const walk = (style: string, auth: 'header' | 'query', path = ENTITY, maxRequests = 10_000) =>
  runPythonScript<Walk>('page_through.py', [`${system.baseUrl}${path}`, app.apiKey, style, auth, String(maxRequests)]);

beforeAll(async () => {
  system = await startSystem({ MONGO_URL: isolatedMongoUrl('python'), REDIS_URL: requireStoreUrls().redisUrl });
  app = await createApp(system.baseUrl, await registerUser(system.baseUrl));
});
afterAll(async () => system?.stop());

describe('a Python client using requests', () => {
  let reference: string[] | undefined;

  it.each(STYLES.flatMap((style) => [[style, 'header'] as const, [style, 'query'] as const]))(
    'paging by %s with the API key in the %s collects exactly total rows, no duplicates, the same rows every time',
    async (style, auth) => {
      const result = await walk(style, auth);
      const ids = result.rows.map((row) => String(row.id));
      expect(result.total).toBeGreaterThan(1000); // several pages at the script's page size of 250
      expect(ids).toHaveLength(result.total);
      expect(new Set(ids).size).toBe(result.total);
      expect(result.requests).toBe(Math.ceil(result.total / 250));
      reference ??= ids;
      expect(ids).toEqual(reference);
    },
  );

  it.each(['link', 'token', 'nextLink'])('pages by %s through the start of the 1,000,000-row entity', async (style) => {
    const result = await walk(style, 'header', '/playground/data/stocks/candles', 4);
    expect(result.total).toBe(1_000_000);
    expect(result.rows).toHaveLength(4 * 250);
    // Candles are keyed by ticker and date.
    expect(new Set(result.rows.map((row) => JSON.stringify(row))).size).toBe(4 * 250);
  });
});

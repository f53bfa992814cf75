import { createApp, isolatedMongoUrl, rawRequest, registerUser, requireStoreUrls, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(120_000);

/*
 * Two gateway replicas (REPLICAS=2) sharing Redis keep one budget per app:
 * a burst split across them is served up to the burst plus the documented
 * lease overshoot (each gateway may hold one chunk, max(1, burst/10), that it
 * leased before), never the two bursts two separate budgets would give.
 * The rate is one request every 100 s, so refills during the test do not
 * count: answers are counted, not timed.
 */
describe('fair share across two gateway replicas sharing Redis', () => {
  const BURST = 20;
  const CHUNK = BURST / 10;
  let system: RunningSystem;
  let gateways: string[];

  beforeAll(async () => {
    const { redisUrl } = requireStoreUrls();
    system = await startSystem({
      REPLICAS: '2',
      MONGO_URL: isolatedMongoUrl('fair-share'),
      REDIS_URL: redisUrl,
      RATE_LIMIT_APP_PER_SECOND: '0.01',
      RATE_LIMIT_APP_BURST: String(BURST),
    });
    gateways = /Training Sandbox is ready at ([^(]+)\(/.exec(system.output())![1]!.trim().split(' ');
  });
  afterAll(async () => system?.stop());

  it('when an app sends three bursts alternating between the gateways, then together they serve one burst (plus at most a chunk each) and refuse the rest', async () => {
    expect(gateways).toHaveLength(2);
    const app = await createApp(gateways[0]!, await registerUser(gateways[0]!));
    const statuses: number[] = [];
    const remaining: number[] = [];
    for (let i = 0; i < 3 * BURST; i++) {
      const answer = await rawRequest(`${gateways[i % 2]}/playground/data/hr/employees?page_size=1`, { headers: { 'x-api-key': app.apiKey } });
      statuses.push(answer.status);
      if (answer.status === 200) remaining.push(Number(/"app";r=(\d+)/.exec(String(answer.headers.ratelimit))![1]));
    }
    const served = statuses.filter((s) => s === 200).length;
    expect(served).toBeGreaterThanOrEqual(BURST);
    expect(served).toBeLessThanOrEqual(BURST + 2 * CHUNK);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3 * BURST - served);
    // Once refused, refused for good (no refill within the test): the 429s are all at the end.
    expect(statuses.slice(served).every((s) => s === 429)).toBe(true);
    // Each gateway reports the one budget: the remaining count falls on both, to zero.
    expect(remaining[0]).toBe(BURST - 1);
    expect(Math.min(...remaining)).toBe(0);
  });
});

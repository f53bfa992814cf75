import { APP, everyService, httpAnswer, UNKNOWN_API_KEY, type Arrangement } from './fake-clients';
import { startGateway, type Answer, type Harness } from './harness';

const PAGE = '/playground/data/hr/employees?page_size=1';
const LIMITS = { RATE_LIMIT_APP_PER_SECOND: '1', RATE_LIMIT_APP_BURST: '3', RATE_LIMIT_ADDRESS_PER_SECOND: '10', RATE_LIMIT_ADDRESS_BURST: '12' };
const statuses = (answers: Answer[]) => answers.map((a) => a.status);

/**
 * The fair-share limits: token buckets per app and per client address, read
 * by a clock the test moves, so rates are checked by counting answers, never
 * by timing them. Each request names its client address.
 */
describe('fair share: rate limits per app and per address', () => {
  let h: Harness;
  let now: number;
  const start = async (env: Record<string, string> = {}) => {
    now = 1_000_000;
    h = await startGateway(everyService(), { ...LIMITS, ...env }, { clock: () => now });
  };
  const get = (url: string, from: string, headers: Record<string, string> = {}) => h.inject({ method: 'GET', url, headers, remoteAddress: from });
  const inTurn = async (n: number, send: () => Promise<Answer>) => {
    const answers: Answer[] = [];
    for (let i = 0; i < n; i++) answers.push(await send());
    return answers;
  };
  afterEach(async () => h.stop());

  it('when an app reads a page, then the answer carries its address and app budgets (draft RateLimit fields)', async () => {
    await start();
    const read = await get(PAGE, '10.0.0.2', { 'x-api-key': APP.apiKey });
    expect(read.status).toBe(200);
    expect(read.headers['ratelimit-policy']).toBe('"address";q=12;w=2, "app";q=3;w=3');
    expect(read.headers.ratelimit).toBe('"address";r=11;t=1, "app";r=2;t=1');
  });

  it('when a credential is refused, then the address budget was spent all the same, and the refusal says so', async () => {
    await start();
    await get(PAGE, '10.0.0.2', { 'x-api-key': APP.apiKey });
    const refused = await get(PAGE, '10.0.0.2', { 'x-api-key': UNKNOWN_API_KEY });
    expect({ status: refused.status, fields: refused.headers.ratelimit }).toEqual({ status: 401, fields: '"address";r=10;t=1' });
  });

  it.each(['/health', '/health/ready', '/openapi.json', '/', '/.well-known/oauth-authorization-server'])(
    'when %s is read, then it is counted against no budget',
    async (path) => {
      await start();
      const answer = await get(path, '10.0.0.2');
      expect([answer.headers.ratelimit, answer.headers['ratelimit-policy']]).toEqual([undefined, undefined]);
    },
  );

  it('when a browser sends a preflight, then it is not counted', async () => {
    await start();
    const preflight = await h.inject({
      method: 'OPTIONS',
      url: '/playground/echo',
      headers: { Origin: 'https://learner.example', 'Access-Control-Request-Method': 'PUT' },
      remoteAddress: '10.0.0.2',
    });
    expect(preflight.headers.ratelimit).toBeUndefined();
  });

  it('when an app spends its burst, then 429 rate_limited with Retry-After and a message that teaches backoff; once the clock moves a second, it is served again', async () => {
    await start();
    const answers = await inTurn(4, () => get(PAGE, '10.0.0.3', { 'x-api-key': APP.apiKey }));
    expect(statuses(answers)).toEqual([200, 200, 200, 429]);
    const refused = answers[3]!;
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers.ratelimit).toMatch(/"app";r=0;t=1$/);
    expect(refused.json.error).toEqual({
      code: 'rate_limited',
      message: expect.stringMatching(
        /^This app may make 1 request a second \(bursts of 3\), and that budget is spent\. Wait 1 s \(Retry-After\) and retry, backing off exponentially with jitter if refused again\./,
      ),
      requestId: refused.headers['x-request-id'],
    });
    now += 999;
    expect((await get(PAGE, '10.0.0.3', { 'x-api-key': APP.apiKey })).status).toBe(429);
    now += 1;
    expect((await get(PAGE, '10.0.0.3', { 'x-api-key': APP.apiKey })).status).toBe(200);
  });

  it('when an app’s budget is spent, then the app is refused from every address, not only the one that spent it', async () => {
    await start();
    await inTurn(3, () => get(PAGE, '10.0.0.3', { 'x-api-key': APP.apiKey }));
    expect((await get(PAGE, '10.0.0.30', { 'x-api-key': APP.apiKey })).status).toBe(429);
  });

  it('when one address spends its budget, then its requests are refused whatever they are, naming the address budget, while another address is served', async () => {
    await start();
    const answers = await inTurn(13, () => get('/playground/echo?x=1', '10.0.0.4'));
    expect(statuses(answers)).toEqual([...Array(12).fill(200), 429]);
    expect(answers.map((a) => /r=(\d+)/.exec(String(a.headers.ratelimit))![1]).slice(0, 3)).toEqual(['11', '10', '9']);
    expect(answers[12]!.json.error.message).toMatch(
      /^Requests from your address \(whichever app, or none, makes them\) may make 10 requests a second \(bursts of 12\)/,
    );
    expect((await get('/playground/echo?x=1', '10.0.0.5')).status).toBe(200);
    now += 100;
    expect((await get('/playground/echo?x=1', '10.0.0.4')).status).toBe(200);
  });

  it('when an address is refused on an OAuth endpoint, then the refusal comes in RFC 6749’s shape, temporarily_unavailable, before the oauth service is asked', async () => {
    await start();
    await inTurn(12, () => get('/playground/echo?x=1', '10.0.0.4'));
    const token = await h.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
      remoteAddress: '10.0.0.4',
    });
    expect({ status: token.status, retry: token.headers['retry-after'], body: token.json }).toEqual({
      status: 429,
      retry: '1',
      body: { error: 'temporarily_unavailable', error_description: expect.stringMatching(/^Requests from your address/) },
    });
    expect(h.callsOf('oauth', 'token')).toEqual([]);
  });

  it('when an app is exempt, then it is never refused, its answers carry no RateLimit fields, and it spends none of its address budget', async () => {
    await start({ RATE_LIMIT_EXEMPT_APPS: APP.appId });
    const answers = await inTurn(20, () => get(PAGE, '10.0.0.6', { 'x-api-key': APP.apiKey }));
    expect(statuses(answers)).toEqual(Array(20).fill(200));
    expect(answers.every((a) => a.headers.ratelimit === undefined && a.headers['ratelimit-policy'] === undefined)).toBe(true);
    expect((await get('/playground/echo?x=1', '10.0.0.6')).headers.ratelimit).toBe('"address";r=11;t=1');
  });

  it('when an app has an override, then its own limit applies, and its policy and refusal say so', async () => {
    await start({ RATE_LIMIT_APP_OVERRIDES: `${APP.appId}=5:6` });
    const answers = await inTurn(7, () => get(PAGE, '10.0.0.7', { 'x-api-key': APP.apiKey }));
    expect(statuses(answers)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(answers[0]!.headers['ratelimit-policy']).toBe('"address";q=12;w=2, "app";q=6;w=2');
    expect(answers[6]!.json.error.message).toMatch(/^This app may make 5 requests a second \(bursts of 6\)/);
  });

  it('when an operator set a limit through the admin API (polled from identity), then it applies over the configuration', async () => {
    now = 1_000_000;
    const services = everyService();
    h = await startGateway(
      {
        ...services,
        identity: {
          ...services.identity,
          listAppLimits: async () => ({
            limits: [{ appId: APP.appId, exempt: false, perSecond: 2, burst: 2, setAt: '2026-01-01T00:00:00.000Z', setBy: undefined }],
          }),
        },
      },
      LIMITS,
      { clock: () => now },
    );
    // The first poll is made at once; its answer arrives after a turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    const answers = await inTurn(3, () => get(PAGE, '10.0.0.8', { 'x-api-key': APP.apiKey }));
    expect(statuses(answers)).toEqual([200, 200, 429]);
    expect(answers[0]!.headers['ratelimit-policy']).toBe('"address";q=12;w=2, "app";q=2;w=1');
  });

  it("when a batch carries an app's requests, then each item spends the app's budget and its batch's address budget, like a request of its own", async () => {
    await start();
    const item = { method: 'GET', path: PAGE, headers: { 'x-api-key': APP.apiKey } };
    const batch = await h.inject({
      method: 'POST',
      url: '/playground/batch',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ requests: [item, item, item, item] }),
      remoteAddress: '10.0.0.10',
    });
    expect(batch.status).toBe(200);
    const results = batch.json as { status: number; headers: Record<string, string>; body: { error?: { code: string } } }[];
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(results[3]!.body.error?.code).toBe('rate_limited');
    // The batch and its four items spent five tokens of the address's twelve.
    expect(results[3]!.headers.RateLimit).toBe('"address";r=7;t=1, "app";r=0;t=1');
  });

  it('when no limit is configured, then nothing is counted and no answer carries the fields', async () => {
    now = 0;
    h = await startGateway(everyService());
    const answers = await inTurn(30, () => get(PAGE, '10.0.0.9', { 'x-api-key': APP.apiKey }));
    expect(answers.every((a) => a.status === 200 && a.headers.ratelimit === undefined)).toBe(true);
  });
});

describe('fair share: slow requests at once', () => {
  let h: Harness;
  /** Waits the playground holds open until the test lets them go (delay=60000), or answers at once. */
  let waiting: (() => void)[];
  const slowPlayground = (): Arrangement => ({
    ...everyService(),
    playground: {
      timeout: async ({ http }) => {
        if (http?.rawQuery === 'delay=60000') await new Promise<void>((resolve) => waiting.push(resolve));
        return httpAnswer(200, { waited: http?.rawQuery }, [{ name: 'X-Delay-Applied-Ms', value: '10' }]);
      },
      respond: async () => httpAnswer(204, ''),
    },
  });
  const get = (url: string, from = '10.0.1.8') => h.inject({ method: 'GET', url, remoteAddress: from });

  beforeEach(async () => {
    waiting = [];
    h = await startGateway(slowPlayground(), { SLOW_REQUESTS_PER_ADDRESS: '2' });
  });
  afterEach(async () => {
    for (const release of waiting) release();
    await h.stop();
  });

  it('when an address holds its cap of waits, then the next slow request is refused at once, saying so, without Retry-After', async () => {
    const held = [get('/playground/timeout?delay=60000'), get('/playground/timeout?delay=60000')];
    const refused = await get('/playground/timeout?delay=10');
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({
      code: 'too_many_slow_requests',
      message: expect.stringMatching(/^Your address already has 2 slow requests in flight/),
    });
    expect(refused.headers['ratelimit-policy']).toBe('"address-slow";q=2;qu="concurrent-requests"');
    expect(refused.headers.ratelimit).toBe('"address-slow";r=0');
    expect(refused.headers['retry-after']).toBeUndefined();
    for (const release of waiting) release();
    expect(statuses(await Promise.all(held))).toEqual([200, 200]);
  });

  it('when the cap is held, then a batch and a delayed response are slow too; a response without a delay, and another address, are not held back', async () => {
    const held = [get('/playground/timeout?delay=60000'), get('/playground/timeout?delay=60000')];
    const batch = await h.inject({
      method: 'POST',
      url: '/playground/batch',
      headers: { 'Content-Type': 'application/json' },
      body: '{"requests":[]}',
      remoteAddress: '10.0.1.8',
    });
    expect(batch.status).toBe(429);
    expect((await get('/playground/response?delay=5')).status).toBe(429);
    expect((await get('/playground/response?status=204')).status).toBe(204);
    expect((await get('/playground/timeout?delay=10', '10.0.1.9')).status).toBe(200);
    for (const release of waiting) release();
    await Promise.all(held);
  });

  it('when a wait ends, then its slot comes free and a new slow request is served', async () => {
    const first = get('/playground/timeout?delay=60000');
    const second = get('/playground/timeout?delay=60000');
    expect((await get('/playground/timeout?delay=10')).status).toBe(429);
    waiting.shift()!();
    expect((await first).status).toBe(200);
    const accepted = await get('/playground/timeout?delay=10');
    expect({ status: accepted.status, fields: accepted.headers.ratelimit }).toEqual({ status: 200, fields: '"address-slow";r=0' });
    waiting.shift()!();
    await second;
  });
});

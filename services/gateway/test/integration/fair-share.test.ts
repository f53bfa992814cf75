import http from 'node:http';
import { createApp, eventually, rawRequest, registerUser, startSystem, type CreatedApp, type RawResponse, type RunningSystem } from '@sandbox/testing';
import { start, type RunningGateway } from '../../src/composition';
import { loadGatewayConfig } from '../../src/config';

jest.setTimeout(60_000);

/**
 * The fair-share limits through the gateway: real services behind an
 * in-process gateway whose limiter reads a clock the test moves, so rates are
 * checked by counting answers, never by timing them. Each test uses a client
 * address of its own (127.0.0.x), so each starts with a full address budget.
 */
describe('fair share: rate limits per app and per address', () => {
  let system: RunningSystem;
  let gateway: RunningGateway;
  let now = 1_000_000;
  let limited: CreatedApp;
  let exempt: CreatedApp;
  let raised: CreatedApp;
  const page = '/playground/data/hr/employees?page_size=1';

  beforeAll(async () => {
    system = await startSystem();
    const session = await registerUser(system.baseUrl);
    [limited, exempt, raised] = [await createApp(system.baseUrl, session), await createApp(system.baseUrl, session), await createApp(system.baseUrl, session)];
    gateway = await start(
      loadGatewayConfig({
        ...system.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_APP_PER_SECOND: '1',
        RATE_LIMIT_APP_BURST: '3',
        RATE_LIMIT_ADDRESS_PER_SECOND: '10',
        RATE_LIMIT_ADDRESS_BURST: '12',
        RATE_LIMIT_EXEMPT_APPS: exempt.appId,
        RATE_LIMIT_APP_OVERRIDES: `${raised.appId}=5:6`,
      }),
      { clock: () => now },
    );
  });
  afterAll(async () => {
    await gateway?.stop();
    await system?.stop();
  });

  const get = (path: string, from: string, headers: Record<string, string> = {}) => rawRequest(`${gateway.url}${path}`, { headers, localAddress: from });
  const statuses = (answers: RawResponse[]) => answers.map((a) => a.status);
  const inTurn = async (n: number, send: () => Promise<RawResponse>) => {
    const answers: RawResponse[] = [];
    for (let i = 0; i < n; i++) answers.push(await send());
    return answers;
  };

  it('when an app reads a page, then the answer carries its address and app budgets (draft RateLimit fields); health and documents carry none', async () => {
    const read = await get(page, '127.0.0.2', { 'x-api-key': limited.apiKey });
    expect(read.status).toBe(200);
    expect(read.headers['ratelimit-policy']).toBe('"address";q=12;w=2, "app";q=3;w=3');
    expect(read.headers.ratelimit).toMatch(/^"address";r=11;t=1, "app";r=2;t=1$/);
    // A refusal of the credential is counted, and says so, at the address.
    const refused = await get(page, '127.0.0.2', { 'x-api-key': 'ak_wrong' });
    expect(refused.status).toBe(401);
    expect(refused.headers.ratelimit).toBe('"address";r=10;t=1');
    for (const path of ['/health', '/health/ready', '/openapi.json', '/', '/.well-known/oauth-authorization-server']) {
      const answer = await get(path, '127.0.0.2');
      expect({ path, fields: [answer.headers.ratelimit, answer.headers['ratelimit-policy']] }).toEqual({ path, fields: [undefined, undefined] });
    }
    // Browsers' preflights are not counted either.
    const preflight = await rawRequest(`${gateway.url}/playground/echo`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://learner.example', 'Access-Control-Request-Method': 'PUT' },
      localAddress: '127.0.0.2',
    });
    expect(preflight.headers.ratelimit).toBeUndefined();
  });

  it('when an app spends its burst, then 429 rate_limited with Retry-After and a message that teaches backoff; once the clock moves a second, it is served again', async () => {
    now += 60_000;
    const answers = await inTurn(4, () => get(page, '127.0.0.3', { 'x-api-key': limited.apiKey }));
    expect(statuses(answers)).toEqual([200, 200, 200, 429]);
    const refused = answers[3]!;
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers.ratelimit).toMatch(/"app";r=0;t=1$/);
    expect(refused.json().error).toEqual({
      code: 'rate_limited',
      message: expect.stringMatching(
        /^This app may make 1 request a second \(bursts of 3\), and that budget is spent\. Wait 1 s \(Retry-After\) and retry, backing off exponentially with jitter if refused again\./,
      ),
      requestId: refused.headers['x-request-id'],
    });
    now += 999;
    expect((await get(page, '127.0.0.3', { 'x-api-key': limited.apiKey })).status).toBe(429);
    now += 1;
    expect((await get(page, '127.0.0.3', { 'x-api-key': limited.apiKey })).status).toBe(200);
  });

  it('when one address spends its budget, then its requests are refused whatever they are, naming the address budget, while another address is served', async () => {
    now += 60_000;
    const answers = await inTurn(13, () => get('/playground/echo?x=1', '127.0.0.4'));
    expect(statuses(answers)).toEqual([...Array(12).fill(200), 429]);
    expect(answers.map((a) => /r=(\d+)/.exec(String(a.headers.ratelimit))![1]).slice(0, 3)).toEqual(['11', '10', '9']);
    expect(answers[12]!.json().error.message).toMatch(
      /^Requests from your address \(whichever app, or none, makes them\) may make 10 requests a second \(bursts of 12\)/,
    );
    expect((await get('/playground/echo?x=1', '127.0.0.5')).status).toBe(200);
    // On an OAuth endpoint the refusal comes in RFC 6749's shape.
    const token = await rawRequest(`${gateway.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
      localAddress: '127.0.0.4',
    });
    expect(token.status).toBe(429);
    expect(token.headers['retry-after']).toBe('1');
    expect(token.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/^Requests from your address/) });
    now += 100;
    expect((await get('/playground/echo?x=1', '127.0.0.4')).status).toBe(200);
  });

  it('when an app is exempt, then it is never refused, its answers carry no RateLimit fields, and it spends none of its address budget', async () => {
    now += 60_000;
    const answers = await inTurn(20, () => get(page, '127.0.0.6', { 'x-api-key': exempt.apiKey }));
    expect(statuses(answers)).toEqual(Array(20).fill(200));
    expect(answers.every((a) => a.headers.ratelimit === undefined && a.headers['ratelimit-policy'] === undefined)).toBe(true);
    expect((await get('/playground/echo?x=1', '127.0.0.6')).headers.ratelimit).toBe('"address";r=11;t=1');
  });

  it("when a batch carries an app's requests, then each item spends the app's budget and its batch's address budget, like a request of its own", async () => {
    now += 60_000;
    const item = { method: 'GET', path: page, headers: { 'x-api-key': limited.apiKey } };
    const batch = await rawRequest(`${gateway.url}/playground/batch`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ requests: [item, item, item, item] }),
      localAddress: '127.0.0.10',
    });
    expect(batch.status).toBe(200);
    const results = batch.json() as { status: number; headers: Record<string, string>; body: { error?: { code: string } } }[];
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(results[3]!.body.error?.code).toBe('rate_limited');
    // The batch and its four items spent five tokens of 127.0.0.10's twelve.
    expect(results[3]!.headers.RateLimit).toBe('"address";r=7;t=1, "app";r=0;t=1');
  });

  it('when an app has an override, then its own limit applies, and its policy and refusal say so', async () => {
    now += 60_000;
    const answers = await inTurn(7, () => get(page, '127.0.0.7', { 'x-api-key': raised.apiKey }));
    expect(statuses(answers)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(answers[0]!.headers['ratelimit-policy']).toBe('"address";q=12;w=2, "app";q=6;w=2');
    expect(answers[6]!.json().error.message).toMatch(/^This app may make 5 requests a second \(bursts of 6\)/);
  });
});

describe('fair share: slow requests at once', () => {
  let system: RunningSystem;
  let gateway: RunningGateway;
  const holders: { end(): void }[] = [];

  beforeAll(async () => {
    system = await startSystem();
    gateway = await start(loadGatewayConfig({ ...system.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', SLOW_REQUESTS_PER_ADDRESS: '2' }));
  });
  afterAll(async () => {
    for (const holder of holders) holder.end();
    await gateway?.stop();
    await system?.stop();
  });

  /**
   * A 60 s wait, kept open until the test ends it; sent again if it was
   * refused because a quick probe held the slot at that moment.
   */
  const hold = () => {
    let stopped = false;
    let current: http.ClientRequest | undefined;
    const send = () => {
      current = http.get(`${gateway.url}/playground/timeout?delay=60000`, { localAddress: '127.0.0.8' }, (res) => {
        res.resume();
        if (res.statusCode === 429 && !stopped) setTimeout(send, 20);
      });
      current.on('error', () => undefined);
    };
    send();
    const holder = {
      end: () => {
        stopped = true;
        current?.destroy();
      },
    };
    holders.push(holder);
    return holder;
  };
  const quickSlow = () => rawRequest(`${gateway.url}/playground/timeout?delay=10`, { localAddress: '127.0.0.8' });

  it('when an address holds its cap of waits, then the next slow request is refused at once; when one ends, a new one is accepted', async () => {
    const first = hold();
    hold();
    // Once both hold their slots, a third slow request is refused (polled: a quick one accepted meanwhile frees its slot at once).
    const { value: refused } = await eventually(quickSlow, (res) => res.status === 429, 20_000);
    expect(refused.json().error).toMatchObject({
      code: 'too_many_slow_requests',
      message: expect.stringMatching(/^Your address already has 2 slow requests in flight/),
    });
    expect(refused.headers['ratelimit-policy']).toBe('"address-slow";q=2;qu="concurrent-requests"');
    expect(refused.headers.ratelimit).toBe('"address-slow";r=0');
    expect(refused.headers['retry-after']).toBeUndefined();
    // The batch and a delayed response are slow too; a response without a delay, and another address, are not held back.
    const batch = await rawRequest(`${gateway.url}/playground/batch`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"requests":[]}',
      localAddress: '127.0.0.8',
    });
    expect(batch.status).toBe(429);
    expect((await rawRequest(`${gateway.url}/playground/response?delay=5`, { localAddress: '127.0.0.8' })).status).toBe(429);
    expect((await rawRequest(`${gateway.url}/playground/response?status=204`, { localAddress: '127.0.0.8' })).status).toBe(204);
    expect((await rawRequest(`${gateway.url}/playground/timeout?delay=10`, { localAddress: '127.0.0.9' })).status).toBe(200);

    // The client of one wait gives up: its slot comes free, and a new slow request is served.
    first.end();
    const { value: accepted } = await eventually(quickSlow, (res) => res.status === 200, 20_000);
    expect(accepted.headers.ratelimit).toBe('"address-slow";r=0');
  });
});

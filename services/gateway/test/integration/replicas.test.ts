import { createHmac, randomBytes } from 'node:crypto';
import { apiRequest, eventually, isolatedMongoUrl, rawRequest, requireStoreUrls, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(120_000);

/*
 * `REPLICAS=2 npm start`: two processes of every service and of the gateway,
 * each on its own port, callers spreading over a service's replicas through
 * an address list (the local form of a headless Service). What one replica
 * signs (a page token) another accepts, and a replica that is gone leaves the
 * other serving.
 */
describe('REPLICAS=2 runs two processes of everything', () => {
  let system: RunningSystem;
  let gateways: string[];

  beforeAll(async () => {
    const { redisUrl } = requireStoreUrls();
    // No page-token or signing key: the launcher makes one for the replicas to share, as it says.
    system = await startSystem({ REPLICAS: '2', MONGO_URL: isolatedMongoUrl('replicas'), REDIS_URL: redisUrl, PAGE_TOKEN_KEY: '', JWT_SIGNING_KEY: '' });
    gateways = /Training Sandbox is ready at ([^(]+)\(/.exec(system.output())![1].trim().split(' ');
  });
  afterAll(async () => system?.stop());

  it('starts two of each process, every one its own, and both gateways serve', async () => {
    expect(Object.keys(system.pids).sort()).toEqual(
      ['data', 'data#2', 'gateway', 'gateway#2', 'identity', 'identity#2', 'oauth', 'oauth#2', 'playground', 'playground#2'].sort(),
    );
    expect(new Set(Object.values(system.pids)).size).toBe(10);
    expect(gateways).toHaveLength(2);
    for (const gateway of gateways) expect((await apiRequest(gateway, 'GET', '/health/ready')).status).toBe(200);
    expect(system.output()).toContain('PAGE_TOKEN_KEY is not set: the 2 data replicas share one made up for this run');
    expect(system.output()).toContain('JWT_SIGNING_KEY is not set: the 2 oauth replicas share one made up for this run');
  });

  it('an app made through one gateway reads pages through the other, and page tokens and access tokens hold across replicas', async () => {
    const [a, b] = gateways;
    const { token } = (
      await apiRequest(a, 'POST', '/api/auth/register', {
        body: { email: `rep-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery' },
      })
    ).json();
    const app = (await apiRequest(b, 'POST', '/api/apps', { token, body: { name: 'replicas' } })).json();
    const headers = { 'x-api-key': app.apiKey };
    const first = await apiRequest(a, 'GET', '/playground/data/hr/employees?paginate=token&page_size=5', { headers });
    expect(first.status).toBe(200);
    const pageToken = encodeURIComponent(first.json().nextPageToken);
    // Several times, through both gateways: the calls reach both data replicas (round robin), and each accepts the token and gives the same second page.
    const seconds = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const next = await apiRequest(gateways[i % 2], 'GET', `/playground/data/hr/employees?paginate=token&page_size=5&pageToken=${pageToken}`, { headers });
      expect({ i, status: next.status }).toEqual({ i, status: 200 });
      seconds.add(JSON.stringify(next.json().data));
    }
    expect(seconds.size).toBe(1);
    expect([...seconds][0]).not.toBe(JSON.stringify(first.json().data));
    // An access token issued by one oauth replica is accepted whichever replica checks it.
    const basic = `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`;
    const issued = await apiRequest(a, 'POST', '/oauth/token', {
      body: 'grant_type=client_credentials&scope=hr%3Aread',
      headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(issued.status).toBe(200);
    for (let i = 0; i < 6; i++) {
      const read = await apiRequest(gateways[i % 2], 'GET', '/playground/data/hr/employees?page_size=5', {
        headers: { Authorization: `Bearer ${issued.json().access_token}` },
      });
      expect({ i, status: read.status }).toEqual({ i, status: 200 });
    }
  });

  it('one flow across replicas: an HMAC signature used once is refused as a replay on the other gateway, and a token revoked through one is refused through the other', async () => {
    const [a, b] = gateways;
    const { token } = (
      await apiRequest(a, 'POST', '/api/auth/register', {
        body: { email: `rep-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery' },
      })
    ).json();
    const app = (await apiRequest(a, 'POST', '/api/apps', { token, body: { name: 'one flow' } })).json();

    // The replay memory lives in Redis: whichever oauth replica checks the second use remembers the first.
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signed = {
      'x-app-id': app.appId,
      'x-timestamp': timestamp,
      'x-signature': createHmac('sha256', app.apiKey).update(`${timestamp}.GET./playground/auth/hmac`).digest('hex'),
    };
    expect((await rawRequest(`${a}/playground/auth/hmac`, { headers: signed })).status).toBe(200);
    for (const gateway of [b, a, b]) {
      const replay = await rawRequest(`${gateway}/playground/auth/hmac`, { headers: signed });
      expect(replay.status).toBe(401);
      expect(replay.json().error.message).toMatch(/Replayed/);
    }

    // A revocation recorded through one gateway reaches the other (its credential cache keeps a verdict at most 500 ms).
    const basic = {
      Authorization: `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    };
    const access = (await rawRequest(`${a}/oauth/token`, { method: 'POST', headers: basic, body: 'grant_type=client_credentials&scope=hr%3Aread' })).json()
      .access_token;
    const useOn = (gateway: string) => rawRequest(`${gateway}/playground/auth/oauth2`, { headers: { Authorization: `Bearer ${access}` } });
    expect((await useOn(b)).status).toBe(200);
    expect((await rawRequest(`${a}/oauth/revoke`, { method: 'POST', headers: basic, body: `token=${encodeURIComponent(access)}` })).status).toBe(200);
    const refused = await eventually(
      () => useOn(b),
      (res) => res.status === 401,
      10_000,
    );
    // Generous for a busy machine; the rule is a second.
    expect(refused.elapsedMs).toBeLessThan(5_000);
    expect((await useOn(a)).status).toBe(401);
  });

  it('with one data replica killed, the other answers every page', async () => {
    process.kill(system.pids['data#2'], 'SIGKILL');
    const [a] = gateways;
    const { token } = (
      await apiRequest(a, 'POST', '/api/auth/register', {
        body: { email: `rep-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery' },
      })
    ).json();
    const app = (await apiRequest(a, 'POST', '/api/apps', { token, body: { name: 'survivor' } })).json();
    // The gateway learns of the death when its stream to that replica breaks; from then on every call goes to the survivor.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let i = 0; i < 10; i++) {
      const page = await apiRequest(a, 'GET', `/playground/data/hr/employees?page=${i + 1}&page_size=5`, { headers: { 'x-api-key': app.apiKey } });
      expect({ i, status: page.status }).toEqual({ i, status: 200 });
    }
    // The launcher says how to start that replica again (its own port, the address lists), never printing the keys it made.
    const said = await eventually(
      async () => system.output(),
      (out) => out.includes('launcher: data#2 exited'),
      10_000,
    );
    const hint = /launcher: data#2 exited .*/.exec(said.value)![0];
    expect(hint).toMatch(
      /Start it again with: .*DATA_GRPC_PORT=\d+ GRPC_TLS_DIR=\S+\/data npm run start:data \(after setting (PAGE_TOKEN_KEY|JWT_SIGNING_KEY) and (PAGE_TOKEN_KEY|JWT_SIGNING_KEY), which this run made up, for every replica\)/,
    );
    expect(hint).not.toMatch(/PAGE_TOKEN_KEY=|JWT_SIGNING_KEY=/);
  });
});

describe('REPLICAS=2 without the stores replicas must share', () => {
  it('refuses to start, naming the variable to set', async () => {
    await expect(startSystem({ REPLICAS: '2' })).rejects.toThrow(/MONGO_URL is required with 2 identity replicas \(REPLICAS=2\)/);
  });
});

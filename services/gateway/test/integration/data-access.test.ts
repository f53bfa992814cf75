import { request } from 'node:http';
import { createApp, rawRequest, registerUser, startSystem, type CreatedApp, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(180_000);

/** The status and every WWW-Authenticate line as sent (node joins repeated headers; rawHeaders keeps them apart). */
function challenges(url: string, headers: Record<string, string> = {}): Promise<{ status: number; lines: string[]; code: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => {
        const lines = res.rawHeaders.filter((_, i) => i % 2 === 1 && res.rawHeaders[i - 1]!.toLowerCase() === 'www-authenticate');
        resolve({ status: res.statusCode ?? 0, lines, code: body ? (JSON.parse(body).error?.code ?? '') : '' });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** docs/data.md, "Access", as the running system answers it. */
describe('the data endpoint: who may read a page (docs/data.md, Access)', () => {
  let system: RunningSystem;
  let app: CreatedApp;
  let page: string;
  beforeAll(async () => {
    system = await startSystem();
    app = await createApp(system.baseUrl, await registerUser(system.baseUrl));
    page = `${system.baseUrl}/playground/data/hr/employees?page_size=1`;
  });
  afterAll(() => system?.stop());

  it('when no credential is sent, then 401 missing_credentials with one challenge per accepted style, the Bearer styles sharing one', async () => {
    expect(await challenges(page)).toEqual({
      status: 401,
      code: 'missing_credentials',
      lines: [
        'Bearer realm="training-sandbox"',
        'ApiKey realm="training-sandbox", in="header", name="x-api-key"',
        'ApiKey realm="training-sandbox", in="query", name="api_key"',
      ],
    });
  });

  it('when a wrong credential is sent, then 401 invalid_credentials with the same challenges, each with its error', async () => {
    for (const headers of [{ Authorization: 'Bearer bt_wrong' }, { 'x-api-key': 'ak_wrong' }] as Record<string, string>[]) {
      expect(await challenges(page, headers)).toEqual({
        status: 401,
        code: 'invalid_credentials',
        lines: [
          'Bearer realm="training-sandbox", error="invalid_token"',
          'ApiKey realm="training-sandbox", in="header", name="x-api-key", error="invalid_key"',
          'ApiKey realm="training-sandbox", in="query", name="api_key", error="invalid_key"',
        ],
      });
    }
  });

  it('when a playground JWT (HS256 or RS256) is sent as a Bearer token, then the page is read with the app’s scopes', async () => {
    const issued = await rawRequest(`${system.baseUrl}/playground/auth/jwt/issue`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}` },
    });
    expect(issued.status).toBe(200);
    for (const token of [issued.json().hs256, issued.json().rs256]) {
      const res = await rawRequest(page, { headers: { Authorization: `Bearer ${token}` } });
      expect({ status: res.status, entity: res.json().entity }).toEqual({ status: 200, entity: 'employees' });
    }
  });

  it('when a Bearer value of no known kind comes beside a valid API key, then the key decides; alone, it is refused as a mistyped app bearer token', async () => {
    expect((await rawRequest(page, { headers: { Authorization: 'Bearer not-a-token', 'x-api-key': app.apiKey } })).status).toBe(200);
    const alone = await rawRequest(page, { headers: { Authorization: 'Bearer not-a-token' } });
    expect({ status: alone.status, message: alone.json().error.message }).toEqual({ status: 401, message: expect.stringMatching(/bt_/) });
    // A recognisable credential is never passed over: a wrong app bearer token beside a valid key is refused.
    expect((await rawRequest(page, { headers: { Authorization: 'Bearer bt_wrong', 'x-api-key': app.apiKey } })).status).toBe(401);
  });
});

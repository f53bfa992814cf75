import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import {
  apiRequest,
  createApp,
  eventually,
  rawRequest,
  registerUser,
  startSystem,
  type CreatedApp,
  type RawResponse,
  type RunningSystem,
} from '@sandbox/testing';

jest.setTimeout(120_000);

// Synthetic live-secret shapes, built at run time so no literal one sits in the repository.
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const upper = (n: number) => Array.from(randomBytes(n), (b) => UPPER[b % UPPER.length]).join('');
const awsKey = () => ['AK', 'IA'].join('') + upper(16);
const stripeKey = () => 'sk' + '_live_' + randomBytes(18).toString('base64url').replace(/[-_]/g, 'x');
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const slackToken = () => ['xo', 'xb-'].join('') + '1234567890-' + randomBytes(18).toString('hex');
const idpJwt = () =>
  `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iss: `https://login.microsoftonline.com/${randomUUID()}/v2.0`, sub: 'x' })}.${randomBytes(64).toString('base64url')}`;

/**
 * A body sent in chunks with a pause between them (Transfer-Encoding:
 * chunked, no Content-Length), so the gateway reads it in at least as many
 * reads as there are chunks.
 */
function chunkedRequest(url: string, method: string, headers: Record<string, string>, chunks: string[]): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const body = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
      });
    });
    req.on('error', reject);
    req.flushHeaders();
    const next = (i: number) => {
      if (i === chunks.length) return void req.end();
      req.write(chunks[i]);
      setTimeout(() => next(i + 1), 50);
    };
    next(0);
  });
}

/** The guard at the edge, through the real gateway: every way a request can carry a secret is refused, and nothing of it stays. */
describe('the production-credential guard', () => {
  let system: RunningSystem;
  let app: CreatedApp;
  const expectRefused = (res: RawResponse, kind: RegExp) => {
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('production_credential_refused');
    expect(res.json().error.message).toMatch(kind);
    expect(res.json().error.message).toMatch(/rotate/);
  };

  beforeAll(async () => {
    system = await startSystem();
    app = await createApp(system.baseUrl, await registerUser(system.baseUrl));
  });
  afterAll(async () => system?.stop());

  it('in a header, the query, a JSON body, a form body and the path: 400 naming the kind, the value nowhere', async () => {
    const secrets = [awsKey(), stripeKey(), idpJwt(), awsKey(), awsKey()];
    expectRefused(
      await rawRequest(`${system.baseUrl}/playground/auth/api-key`, { headers: { 'x-api-key': app.apiKey, 'X-Debug': secrets[0] } }),
      /AWS access key/,
    );
    expectRefused(await rawRequest(`${system.baseUrl}/playground/data/hr/employees?api_key=${app.apiKey}&note=${secrets[1]}`), /Stripe/);
    expectRefused(
      await apiRequest(system.baseUrl, 'POST', '/playground/auth/jwt/decode', { body: { token: secrets[2] } }),
      /JWT issued by login\.microsoftonline\.com/,
    );
    // The token endpoint speaks RFC 6749: the refusal is invalid_request, explained in error_description.
    const form = await rawRequest(`${system.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${secrets[3]}`,
    });
    expect({ status: form.status, error: form.json().error }).toEqual({ status: 400, error: 'invalid_request' });
    expect(form.json().error_description).toMatch(/AWS access key.*rotate/);
    expectRefused(await rawRequest(`${system.baseUrl}/playground/data/${secrets[4]}/x`, { headers: { 'X-Request-Id': 'guard-path-1' } }), /AWS access key/);
    await eventually(
      async () => system.output(),
      (out) => out.includes('"requestId":"guard-path-1"'),
      10_000,
    );
    for (const secret of secrets) expect(system.output()).not.toContain(secret);
  });

  it('a refused body is never forwarded: the account it would have made does not exist', async () => {
    const email = `guard-${randomBytes(4).toString('hex')}@example.org`;
    expectRefused(await apiRequest(system.baseUrl, 'POST', '/api/auth/register', { body: { email, password: `pw ${awsKey()}` } }), /AWS access key/);
    expect((await apiRequest(system.baseUrl, 'POST', '/api/auth/register', { body: { email, password: 'correct horse battery' } })).status).toBe(201);
  });

  describe('on the routes that forward a body as sent (echo, response, redirect)', () => {
    const RAW_ROUTES = ['/playground/echo', '/playground/response', '/playground/redirect?n=1&status=307'];
    const post = (path: string, type: string, body: string, id?: string) =>
      rawRequest(`${system.baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': type, ...(id ? { 'X-Request-Id': id } : {}) }, body });

    it.each(RAW_ROUTES)('%s: a JSON body, a form body and a text body holding a live secret are refused, naming the kind, the value nowhere', async (path) => {
      const secrets = [awsKey(), stripeKey(), slackToken()];
      const id = `guard-raw-${randomBytes(4).toString('hex')}`;
      expectRefused(await post(path, 'application/json', JSON.stringify({ note: 'mine', key: secrets[0] }), `${id}-json`), /AWS access key/);
      expectRefused(await post(path, 'application/x-www-form-urlencoded', `note=mine&key=${encodeURIComponent(secrets[1])}`, `${id}-form`), /Stripe/);
      expectRefused(await post(path, 'text/plain', `my token is ${secrets[2]} ok`, `${id}-text`), /Slack token/);
      await eventually(
        async () => system.output(),
        (out) => out.includes(`"requestId":"${id}-text"`),
        10_000,
      );
      for (const secret of secrets) expect(system.output()).not.toContain(secret);
    });

    it.each(RAW_ROUTES)('%s: a secret hidden by JSON escapes or percent-encoding is found in what the body decodes to', async (path) => {
      const key = awsKey();
      const escaped = JSON.stringify({ key }).replace(key, `\\u00${key.charCodeAt(0).toString(16)}${key.slice(1)}`);
      expectRefused(await post(path, 'application/json', escaped), /AWS access key/);
      const encoded = `key=${[...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`;
      expectRefused(await post(path, 'application/x-www-form-urlencoded', encoded), /AWS access key/);
      // A secret access key is known by its field's name, in a JSON body and a form alike.
      const secretKey = randomBytes(30).toString('base64');
      expectRefused(await post(path, 'application/json', JSON.stringify({ AWS_SECRET_ACCESS_KEY: secretKey })), /AWS secret access key/);
      expectRefused(await post(path, 'application/x-www-form-urlencoded', `aws_secret_access_key=${encodeURIComponent(secretKey)}`), /AWS secret access key/);
    });

    it.each(RAW_ROUTES)('%s: a secret split across the chunks of a streamed body is still found', async (path) => {
      const key = stripeKey();
      const cut = 10;
      const chunks = ['{"note": "streamed", "key": "', key.slice(0, cut), key.slice(cut), '"}'];
      expectRefused(await chunkedRequest(`${system.baseUrl}${path}`, 'POST', { 'Content-Type': 'application/json' }, chunks), /Stripe/);
      // The same in a text body, and in a body of a type nobody parses.
      expectRefused(
        await chunkedRequest(`${system.baseUrl}${path}`, 'PUT', { 'Content-Type': 'text/plain' }, ['my key: ', key.slice(0, cut), key.slice(cut), '\n']),
        /Stripe/,
      );
      expectRefused(
        await chunkedRequest(`${system.baseUrl}${path}`, 'PUT', { 'Content-Type': 'application/octet-stream' }, [key.slice(0, 5), key.slice(5)]),
        /Stripe/,
      );
    });

    it("a body without a secret, the sandbox's own API key included, is forwarded as before", async () => {
      const body = JSON.stringify({ note: 'mine', apiKey: app.apiKey, appId: app.appId });
      const echoed = await post('/playground/echo', 'application/json', body);
      expect(echoed.status).toBe(200);
      expect(echoed.json().body).toEqual({ note: 'mine', apiKey: app.apiKey, appId: app.appId });
      const streamed = await chunkedRequest(`${system.baseUrl}/playground/echo`, 'POST', { 'Content-Type': 'text/plain' }, ['hello ', app.apiKey]);
      expect({ status: streamed.status, body: streamed.json().body }).toEqual({ status: 200, body: `hello ${app.apiKey}` });
      expect((await post('/playground/response?status=201', 'application/x-www-form-urlencoded', `key=${app.apiKey}`)).status).toBe(201);
    });

    it('the file contents of an upload are not scanned, its plain fields are', async () => {
      const boundary = `b${randomBytes(8).toString('hex')}`;
      const part = (disposition: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n\r\n${value}\r\n`;
      const upload = (parts: string) =>
        rawRequest(`${system.baseUrl}/playground/upload`, {
          method: 'POST',
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
          body: `${parts}--${boundary}--\r\n`,
        });
      const inFile = await upload(part('name="doc"; filename="notes.txt"', `key ${awsKey()}`));
      expect(inFile.status).toBe(200);
      expectRefused(await upload(part('name="note"', `key ${awsKey()}`)), /AWS access key/);
    });
  });

  it("the sandbox's own credentials and tokens, and a learner's made-up JWT, pass", async () => {
    const tokens = (
      await rawRequest(`${system.baseUrl}/playground/auth/jwt/issue`, {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}` },
      })
    ).json();
    for (const token of [tokens.hs256, tokens.rs256])
      expect((await rawRequest(`${system.baseUrl}/playground/auth/jwt`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    const madeUp = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: 'my-test-issuer', sub: 'me' })}.${randomBytes(32).toString('base64url')}`;
    const decoded = await apiRequest(system.baseUrl, 'POST', '/playground/auth/jwt/decode', { body: { token: madeUp } });
    expect(decoded.status).toBe(200);
    expect(decoded.json().payload.iss).toBe('my-test-issuer');
    expect((await rawRequest(`${system.baseUrl}/playground/auth/api-key-query?api_key=${app.apiKey}`)).status).toBe(200);
  });
});

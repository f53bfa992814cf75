import { randomBytes, randomUUID } from 'node:crypto';
import { apiRequest, createApp, eventually, rawRequest, registerUser, startSystem, type CreatedApp, type RawResponse, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(120_000);

// Synthetic live-secret shapes, built at run time so no literal one sits in the repository.
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const upper = (n: number) => Array.from(randomBytes(n), (b) => UPPER[b % UPPER.length]).join('');
const awsKey = () => ['AK', 'IA'].join('') + upper(16);
const stripeKey = () => 'sk' + '_live_' + randomBytes(18).toString('base64url').replace(/[-_]/g, 'x');
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const idpJwt = () => `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iss: `https://login.microsoftonline.com/${randomUUID()}/v2.0`, sub: 'x' })}.${randomBytes(64).toString('base64url')}`;

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
    expectRefused(await rawRequest(`${system.baseUrl}/playground/auth/api-key`, { headers: { 'x-api-key': app.apiKey, 'X-Debug': secrets[0] } }), /AWS access key/);
    expectRefused(await rawRequest(`${system.baseUrl}/playground/data/hr/employees?api_key=${app.apiKey}&note=${secrets[1]}`), /Stripe/);
    expectRefused(await apiRequest(system.baseUrl, 'POST', '/playground/auth/jwt/decode', { body: { token: secrets[2] } }), /JWT issued by login\.microsoftonline\.com/);
    // The token endpoint speaks RFC 6749: the refusal is invalid_request, explained in error_description.
    const form = await rawRequest(`${system.baseUrl}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=${secrets[3]}` });
    expect({ status: form.status, error: form.json().error }).toEqual({ status: 400, error: 'invalid_request' });
    expect(form.json().error_description).toMatch(/AWS access key.*rotate/);
    expectRefused(await rawRequest(`${system.baseUrl}/playground/data/${secrets[4]}/x`, { headers: { 'X-Request-Id': 'guard-path-1' } }), /AWS access key/);
    await eventually(async () => system.output(), (out) => out.includes('"requestId":"guard-path-1"'), 10_000);
    for (const secret of secrets) expect(system.output()).not.toContain(secret);
  });

  it('a refused body is never forwarded: the account it would have made does not exist', async () => {
    const email = `guard-${randomBytes(4).toString('hex')}@example.org`;
    expectRefused(await apiRequest(system.baseUrl, 'POST', '/api/auth/register', { body: { email, password: `pw ${awsKey()}` } }), /AWS access key/);
    expect((await apiRequest(system.baseUrl, 'POST', '/api/auth/register', { body: { email, password: 'correct horse battery' } })).status).toBe(201);
  });

  it("the sandbox's own credentials and tokens, and a learner's made-up JWT, pass", async () => {
    const tokens = (await rawRequest(`${system.baseUrl}/playground/auth/jwt/issue`, { method: 'POST', headers: { Authorization: `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}` } })).json();
    for (const token of [tokens.hs256, tokens.rs256]) expect((await rawRequest(`${system.baseUrl}/playground/auth/jwt`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    const madeUp = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: 'my-test-issuer', sub: 'me' })}.${randomBytes(32).toString('base64url')}`;
    const decoded = await apiRequest(system.baseUrl, 'POST', '/playground/auth/jwt/decode', { body: { token: madeUp } });
    expect(decoded.status).toBe(200);
    expect(decoded.json().payload.iss).toBe('my-test-issuer');
    expect((await rawRequest(`${system.baseUrl}/playground/auth/api-key-query?api_key=${app.apiKey}`)).status).toBe(200);
  });
});

import { createApp, rawRequest, registerUser, startSystem, type CreatedApp, type RunningSystem } from '@sandbox/testing';
import { start, type RunningGateway } from '../../src/composition';
import { loadGatewayConfig } from '../../src/config';
import type { Reply } from '../../src/http/reply';

jest.setTimeout(60_000);

/**
 * The route table served without a socket: an in-process gateway's inject()
 * runs the same dispatcher the HTTP server runs (the batch endpoint will too),
 * against the real services of a running system.
 */
describe('dispatch, called directly', () => {
  let system: RunningSystem;
  let gateway: RunningGateway;
  let app: CreatedApp;
  const text = (reply: Reply) => Buffer.from(reply.body ?? '').toString('utf8');
  const parsed = (reply: Reply) => JSON.parse(text(reply));

  beforeAll(async () => {
    system = await startSystem();
    gateway = await start(loadGatewayConfig({ ...system.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }));
    app = await createApp(system.baseUrl, await registerUser(system.baseUrl), { scopes: ['hr:read'] });
  });
  afterAll(async () => {
    await gateway?.stop();
    await system?.stop();
  });

  it('when GET /health is dispatched, then it answers like the server, with a request id and the CORS headers', async () => {
    const reply = await gateway.inject({ method: 'GET', url: '/health', headers: { 'X-Request-Id': 'inject-1' } });
    expect(reply.status).toBe(200);
    expect(parsed(reply)).toEqual({ status: 'ok' });
    expect(reply.headers).toMatchObject({ 'X-Request-Id': 'inject-1', 'Access-Control-Allow-Origin': '*' });
  });

  it('when a data page is dispatched with an API key, then its bytes and ETag are those the socket serves', async () => {
    const url = '/playground/data/hr/employees?page_size=3&paginate=cursor';
    const reply = await gateway.inject({ method: 'GET', url, headers: { 'x-api-key': app.apiKey, Host: new URL(system.baseUrl).host } });
    const overHttp = await rawRequest(`${system.baseUrl}${url}`, { headers: { 'x-api-key': app.apiKey } });
    expect(reply.status).toBe(200);
    expect(text(reply)).toBe(overHttp.body);
    expect(reply.headers.ETag).toBe(overHttp.headers.etag);
    expect(parsed(reply).data).toHaveLength(3);
  });

  it('when HEAD is dispatched, then the headers of GET come back without a body', async () => {
    const reply = await gateway.inject({ method: 'HEAD', url: '/playground/data/hr/employees?page_size=2', headers: { 'x-api-key': app.apiKey } });
    expect(reply.status).toBe(200);
    expect(reply.body).toBeUndefined();
    expect(Number(reply.headers['Content-Length'])).toBeGreaterThan(0);
  });

  it('when the route needs a credential and none is sent, then 401 with the challenge the accepted schemes make', async () => {
    const reply = await gateway.inject({ method: 'GET', url: '/playground/data/hr/employees' });
    expect(reply.status).toBe(401);
    // One line per accepted scheme: the app's bearer token (and OAuth 2.0 token, the same challenge), then where an API key goes.
    expect(reply.headers['WWW-Authenticate']).toEqual([
      'Bearer realm="training-sandbox"',
      'ApiKey realm="training-sandbox", in="header", name="x-api-key"',
      'ApiKey realm="training-sandbox", in="query", name="api_key"',
    ]);
    expect(parsed(reply).error.code).toBe('missing_credentials');
    expect(parsed(reply).error.message).toContain('an x-api-key header');
  });

  it('when a JSON route gets a body that is not JSON, then the body mode refuses it in the error shape, naming the type it reads', async () => {
    const wrongType = await gateway.inject({ method: 'POST', url: '/api/auth/register', headers: { 'Content-Type': 'text/plain' }, body: 'hello' });
    expect(wrongType.status).toBe(400);
    expect(parsed(wrongType).error).toMatchObject({ code: 'invalid_body', message: expect.stringContaining('application/json') });
    const badUtf8 = await gateway.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'Content-Type': 'application/json' },
      body: Buffer.from('{"email":"a\xff"}', 'latin1'),
    });
    expect(badUtf8.status).toBe(400);
    expect(parsed(badUtf8).error.code).toBe('invalid_utf8');
  });

  it('when a path is served but not with the method, then 405 with Allow; OPTIONS answers the same list', async () => {
    const refused = await gateway.inject({ method: 'DELETE', url: '/health' });
    expect(refused.status).toBe(405);
    expect(refused.headers.Allow).toBe('GET, HEAD, OPTIONS');
    const options = await gateway.inject({ method: 'OPTIONS', url: '/health' });
    expect(options.status).toBe(204);
    expect(options.headers.Allow).toBe('GET, HEAD, OPTIONS');
  });

  it('when no row serves the path, then 404 in the error shape', async () => {
    const reply = await gateway.inject({ method: 'GET', url: '/no/such/path', headers: { 'X-Request-Id': 'inject-404' } });
    expect(reply.status).toBe(404);
    expect(parsed(reply)).toEqual({ error: { code: 'not_found', message: expect.stringContaining('/no/such/path'), requestId: 'inject-404' } });
  });
});

import { AppError, GrpcStatus } from '@sandbox/runtime';
import { APP, basicOf, everyService, httpAnswer, refusedBy } from './fake-clients';
import { expectApiError, startGateway, type Answer, type Harness } from './harness';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What every request meets before and around its handler: the row's contract, its body mode, the edge's refusals (docs/errors.md). */
describe('the HTTP edge', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startGateway(everyService());
  });
  afterEach(async () => h.stop());

  describe('what every answer carries', () => {
    it('when GET /health is served, then ok, with a request id, the security headers and the open CORS policy', async () => {
      const answer = await h.get('/health');
      expect({ status: answer.status, body: answer.json }).toEqual({ status: 200, body: { status: 'ok' } });
      expect(answer.headers).toMatchObject({
        'x-request-id': expect.stringMatching(UUID),
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'content-security-policy': "default-src 'none';frame-ancestors 'none'",
        'access-control-allow-origin': '*',
      });
      expect(h.calls).toEqual([]);
    });

    it('when the caller sends an acceptable request id, then it is echoed; a hostile one is replaced by ours', async () => {
      expect((await h.get('/health', { 'X-Request-Id': 'trace-42' })).headers['x-request-id']).toBe('trace-42');
      expect((await h.get('/health', { 'X-Request-Id': 'bad id\twith spaces' })).headers['x-request-id']).toMatch(UUID);
    });

    it('when a refusal is answered, then it carries the security headers too', async () => {
      const answer = await h.get('/playground/data/hr/employees');
      expect(answer.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' });
    });

    it('when GET / is read, then the name, version 1.0.0 and absolute links', async () => {
      const answer = await h.get('/');
      expect(answer.json).toMatchObject({
        name: 'Training Sandbox API',
        version: '1.0.0',
        links: { self: 'http://localhost/', health: 'http://localhost/health' },
      });
    });

    it('when GET /playground is read, then the playground endpoints from the route table, each with its absolute URL', async () => {
      const answer = await h.get('/playground');
      expect(answer.status).toBe(200);
      const endpoints = answer.json.endpoints as { path: string; url: string }[];
      expect(endpoints.map((e) => e.path)).toEqual(expect.arrayContaining(['/playground', '/playground/echo', '/playground/batch']));
      for (const endpoint of endpoints) expect(endpoint.url).toBe(`http://localhost${endpoint.path}`);
    });

    it('when behind a trusted proxy, then absolute links follow X-Forwarded-Proto, Host and Prefix', async () => {
      await h.stop();
      h = await startGateway(everyService(), { TRUST_PROXY: 'true' });
      const answer = await h.get('/', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'edu.example.org', 'X-Forwarded-Prefix': '/sandbox' });
      expect(answer.json.links.self).toBe('https://edu.example.org/sandbox/');
    });

    it('when the proxy headers come without TRUST_PROXY, then they are ignored', async () => {
      const answer = await h.get('/', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example' });
      expect(answer.json.links.self).toBe('http://localhost/');
    });
  });

  describe('paths and methods', () => {
    it('when no row serves the path, then 404 not_found in the error shape naming it, never HTML', async () => {
      const answer = await h.get('/no/such/thing', { 'X-Request-Id': 'r-404' });
      expect({ status: answer.status, type: answer.headers['content-type'], body: answer.json }).toEqual({
        status: 404,
        type: 'application/json; charset=utf-8',
        body: { error: { code: 'not_found', message: 'No endpoint at GET /no/such/thing. GET / lists the API.', requestId: 'r-404' } },
      });
    });

    it('when a path is served but not with the method, then 405 method_not_allowed with Allow', async () => {
      const answer = await h.inject({ method: 'DELETE', url: '/health' });
      expectApiError(answer, 405, 'method_not_allowed');
      expect(answer.headers.allow).toBe('GET, HEAD, OPTIONS');
    });

    it('when OPTIONS is sent without a preflight, then 204 with the same Allow list', async () => {
      const answer = await h.inject({ method: 'OPTIONS', url: '/health' });
      expect({ status: answer.status, allow: answer.headers.allow }).toEqual({ status: 204, allow: 'GET, HEAD, OPTIONS' });
    });

    it('when a path serves several methods, then Allow lists each of them', async () => {
      const answer = await h.inject({ method: 'PUT', url: '/playground/auth/hmac' });
      expect(String(answer.headers.allow).split(', ').sort()).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
    });

    it('when HEAD is sent, then the headers of GET come back without a body', async () => {
      const answer = await h.inject({ method: 'HEAD', url: '/playground/data/hr/employees?page_size=2', headers: { 'x-api-key': APP.apiKey } });
      expect({ status: answer.status, body: answer.reply.body }).toEqual({ status: 200, body: undefined });
      expect(Number(answer.headers['content-length'])).toBeGreaterThan(0);
    });

    it('when the path ends with a slash, then it names the same resource', async () => {
      expect((await h.get('/health/')).status).toBe(200);
    });

    it('when the request target is absolute-form, then 400 invalid_request_target', async () => {
      expectApiError(await h.get('http://evil.example/health?api_key=x'), 400, 'invalid_request_target');
    });
  });

  describe('the request line against the row’s contract, checked before any service call', () => {
    it.each(['600', '99', 'abc', '2.5'])('when /playground/response is asked for status=%s, then 400 invalid_parameter', async (status) => {
      expectApiError(await h.get(`/playground/response?status=${status}`), 400, 'invalid_parameter');
      expect(h.calls).toEqual([]);
    });

    it.each(['-1', '1.5', 'soon'])('when /playground/timeout is asked for delay=%s, then 400 invalid_parameter', async (delay) => {
      expectApiError(await h.get(`/playground/timeout?delay=${delay}`), 400, 'invalid_parameter');
      expect(h.calls).toEqual([]);
    });

    it.each(['n=0', 'n=11', 'status=303', 'status=200'])('when /playground/redirect is asked for %s, then 400 invalid_parameter', async (query) => {
      expectApiError(await h.get(`/playground/redirect?${query}`), 400, 'invalid_parameter');
    });

    it('when a parameter is given twice, then 400 naming it, never silently picking one', async () => {
      const answer = await h.get('/playground/timeout?delay=1&delay=2');
      expectApiError(answer, 400, 'invalid_parameter');
      expect(answer.json.error.message).toBe('delay was sent 2 times; send it once.');
    });

    it('when a route’s parameters are right, then the service gets the request as sent', async () => {
      await h.stop();
      h = await startGateway({ playground: { respond: async () => httpAnswer(418, 'short and stout', [{ name: 'X-Teapot', value: 'yes' }]) } });
      const answer = await h.get('/playground/response?status=418&body=short%20and%20stout');
      expect({ status: answer.status, text: answer.text, teapot: answer.headers['x-teapot'] }).toEqual({ status: 418, text: 'short and stout', teapot: 'yes' });
      expect(h.callsOf('playground', 'respond')[0]!.request).toMatchObject({
        http: { method: 'GET', path: '/playground/response', rawQuery: 'status=418&body=short%20and%20stout' },
      });
    });
  });

  describe('bodies, read as the row’s body mode says', () => {
    const register = (body: string | Buffer, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
      h.inject({ method: 'POST', url: '/api/auth/register', headers, body });

    it('when JSON is malformed, then 400 malformed_body naming the problem, no stack trace, and nothing is forwarded', async () => {
      const answer = await register('{"a":');
      expectApiError(answer, 400, 'malformed_body');
      expect(answer.text).not.toMatch(/at .+\.[jt]s:\d+/);
      expect(h.calls).toEqual([]);
    });

    it('when the JSON is an array, then 400 invalid_body: a JSON object is read', async () => {
      const answer = await register('[1,2]');
      expectApiError(answer, 400, 'invalid_body');
      expect(answer.json.error.message).toBe('The request body must be a JSON object.');
    });

    it('when the body is not JSON, then 400 invalid_body naming the type it reads', async () => {
      const answer = await register('hello', { 'Content-Type': 'text/plain' });
      expectApiError(answer, 400, 'invalid_body');
      expect(answer.json.error.message).toContain('application/json');
    });

    it('when a JSON route gets no body, then 400 invalid_body asking for one', async () => {
      const answer = await h.inject({ method: 'POST', url: '/api/auth/register' });
      expectApiError(answer, 400, 'invalid_body');
      expect(answer.json.error.message).toBe('Send a JSON object body with Content-Type: application/json.');
    });

    it('when the bytes are not UTF-8, then 400 invalid_utf8', async () => {
      expectApiError(await register(Buffer.from('{"email":"a\xff"}', 'latin1')), 400, 'invalid_utf8');
    });

    it('when the charset is not UTF-8, then 415 unsupported_charset', async () => {
      expectApiError(await register('{}', { 'Content-Type': 'application/json; charset=iso-8859-1' }), 415, 'unsupported_charset');
    });

    it('when the body is compressed, then 415 unsupported_encoding asking for identity', async () => {
      const answer = await register(Buffer.from([0x1f, 0x8b, 8, 0]), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      expectApiError(answer, 415, 'unsupported_encoding');
      expect(answer.headers['accept-encoding']).toBe('identity');
    });

    it('when the body is over BODY_LIMIT, then 413 body_too_large and the connection is closed', async () => {
      await h.stop();
      h = await startGateway(everyService(), { BODY_LIMIT: '1kb' });
      const answer = await h.post('/api/auth/register', { email: 'a@example.org', password: 'x'.repeat(2000) });
      expectApiError(answer, 413, 'body_too_large');
      expect(answer.json.error.message).toBe('The request body is larger than this endpoint accepts (1024 bytes).');
      expect(answer.headers.connection).toBe('close');
    });

    it('when the declared length is over the limit, then 413 before a byte is read', async () => {
      await h.stop();
      h = await startGateway(everyService(), { BODY_LIMIT: '1kb' });
      const answer = await h.inject({
        method: 'POST',
        url: '/playground/echo',
        headers: { 'Content-Type': 'text/plain', 'Content-Length': '5000' },
        body: 'short',
      });
      expectApiError(answer, 413, 'body_too_large');
    });

    it('when the body is shorter than its Content-Length, then 400 malformed_body', async () => {
      const answer = await h.inject({
        method: 'POST',
        url: '/api/auth/register',
        headers: { 'Content-Type': 'application/json', 'Content-Length': '50' },
        body: '{}',
      });
      expectApiError(answer, 400, 'malformed_body');
    });

    it('when the upload is not multipart, then 400 not_multipart, without opening a stream to the playground', async () => {
      expectApiError(await h.post('/playground/upload', { a: 1 }), 400, 'not_multipart');
      expect(h.calls).toEqual([]);
    });

    it('when a JSON body is valid, then the service gets it and its answer comes back', async () => {
      await h.stop();
      h = await startGateway({
        identity: { register: async () => ({ user: undefined, session: { token: 'session-token', expiresAt: '2026-12-01T00:00:00.000Z' } }) },
      });
      const answer = await h.post('/api/auth/register', { email: 'a@example.org', password: 'correct horse battery' });
      expect({ status: answer.status, body: answer.json, cache: answer.headers['cache-control'] }).toEqual({
        status: 201,
        body: { token: 'session-token', expiresAt: '2026-12-01T00:00:00.000Z' },
        cache: 'no-store',
      });
      expect(h.callsOf('identity', 'register')[0]!.request).toEqual({ email: 'a@example.org', password: 'correct horse battery' });
    });

    it('when identity refuses a registration (an email taken), then its 409 in the error shape', async () => {
      await h.stop();
      h = await startGateway({
        identity: {
          register: async () =>
            Promise.reject(refusedBy('identity', new AppError(GrpcStatus.ALREADY_EXISTS, 'email_taken', 'An account with this email exists.'))),
        },
      });
      expectApiError(await h.post('/api/auth/register', { email: 'a@example.org', password: 'correct horse battery' }), 409, 'email_taken');
    });
  });
});

/** The OAuth 2.0 endpoints answer in RFC 6749's shape (5.2), never the project's. */
describe('the OAuth 2.0 token endpoint', () => {
  let h: Harness;
  const BASIC = { Authorization: basicOf(APP.appId, APP.appSecret) };
  const token = (body: string, headers: Record<string, string> = BASIC, type = 'application/x-www-form-urlencoded') =>
    h.inject({ method: 'POST', url: '/oauth/token', headers: { 'Content-Type': type, ...headers }, body });
  const expectOAuthError = (answer: Answer, status: number, error: string) => {
    expect({ status: answer.status, body: answer.json }).toEqual({ status, body: { error, error_description: expect.any(String) } });
    expect(answer.headers['cache-control']).toBe('no-store');
  };

  beforeEach(async () => {
    h = await startGateway({
      oauth: {
        // As the oauth service answers client credentials (oauth2/token.ts, errors.ts invalidClient).
        token: async ({ grantType, client }) => {
          if (client?.clientId !== APP.appId || client.clientSecret !== APP.appSecret) {
            const refusal = new AppError(GrpcStatus.UNAUTHENTICATED, 'invalid_client', 'The client secret is not valid.');
            throw refusedBy('oauth', client?.method === 'body' ? refusal : refusal.withChallenge('Basic realm="training-sandbox", charset="UTF-8"'));
          }
          if (grantType !== 'client_credentials' && grantType !== '') throw new Error('not arranged');
          return { accessToken: 'at', tokenType: 'Bearer', expiresIn: 3600, refreshToken: '', scope: 'hr:read' };
        },
      },
    });
  });
  afterEach(async () => h.stop());

  it('when client credentials are right, then an RFC 6749 5.1 answer, never cached, without a refresh token', async () => {
    const answer = await token('grant_type=client_credentials');
    expect({ status: answer.status, body: answer.json, cache: answer.headers['cache-control'] }).toEqual({
      status: 200,
      body: { access_token: 'at', token_type: 'Bearer', expires_in: 3600, scope: 'hr:read' },
      cache: 'no-store',
    });
    expect(h.callsOf('oauth', 'token')[0]!.request).toMatchObject({ grantType: 'client_credentials', client: { clientId: APP.appId, method: 'basic' } });
  });

  it('when the secret is wrong with Basic, then 401 invalid_client challenging Basic; in the body, without a challenge', async () => {
    const viaBasic = await token('grant_type=client_credentials', { Authorization: basicOf(APP.appId, 'as_wrong') });
    expectOAuthError(viaBasic, 401, 'invalid_client');
    expect(viaBasic.headers['www-authenticate']).toBe('Basic realm="training-sandbox", charset="UTF-8"');
    const viaBody = await token(`grant_type=client_credentials&client_id=${APP.appId}&client_secret=as_wrong`, {});
    expectOAuthError(viaBody, 401, 'invalid_client');
    expect(viaBody.headers['www-authenticate']).toBeUndefined();
  });

  it('when the Basic value is not base64, then 401 invalid_client without asking the oauth service', async () => {
    const answer = await token('grant_type=client_credentials', { Authorization: 'Basic %%%' });
    expectOAuthError(answer, 401, 'invalid_client');
    expect(h.calls).toEqual([]);
  });

  it('when the client authenticates twice, then 400 invalid_request', async () => {
    expectOAuthError(await token(`grant_type=client_credentials&client_id=${APP.appId}&client_secret=${APP.appSecret}`), 400, 'invalid_request');
  });

  it('when grant_type is one it does not support, then 400 unsupported_grant_type, before any call', async () => {
    expectOAuthError(await token('grant_type=password'), 400, 'unsupported_grant_type');
    expect(h.calls).toEqual([]);
  });

  it('when a parameter is repeated, then 400 invalid_request naming it', async () => {
    const answer = await token('grant_type=client_credentials&scope=hr:read&scope=stocks:read');
    expectOAuthError(answer, 400, 'invalid_request');
    expect(answer.json.error_description).toMatch(/'scope' was sent more than once/);
  });

  it('when the body is JSON, then 400 invalid_request: the endpoint reads a form', async () => {
    expectOAuthError(await token('{"grant_type":"client_credentials"}', BASIC, 'application/json'), 400, 'invalid_request');
  });

  it('when the body is over the limit, then 413 in the OAuth shape (invalid_request)', async () => {
    await h.stop();
    h = await startGateway({}, { BODY_LIMIT: '1kb' });
    const answer = await token(`grant_type=client_credentials&scope=${'x'.repeat(2000)}`);
    expect({ status: answer.status, error: answer.json.error }).toEqual({ status: 413, error: 'invalid_request' });
  });

  it('when the metadata is read, then RFC 8414 with absolute URLs from the base URL and no service call', async () => {
    const answer = await h.get('/.well-known/oauth-authorization-server');
    expect(answer.json).toMatchObject({
      issuer: 'http://localhost',
      token_endpoint: 'http://localhost/oauth/token',
      jwks_uri: 'http://localhost/.well-known/jwks.json',
    });
    expect(h.calls).toEqual([]);
  });
});

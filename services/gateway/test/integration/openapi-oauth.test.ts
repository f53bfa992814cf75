import { createHash, createHmac, randomBytes } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import OAuth from 'oauth-1.0a';
import {
  apiRequest,
  createApp,
  eventually,
  OpenApiChecker,
  rawRequest,
  registerUser,
  requireStoreUrls,
  startSystem,
  type CreatedApp,
  type RawResponse,
  type RunningSystem,
} from '@sandbox/testing';

jest.setTimeout(120_000);

/*
 * The OAuth 2.0, OAuth 1.0a and auth playground endpoints, called as a
 * client would against the running system, each answer checked against the
 * OpenAPI document the gateway serves, with the shared checker
 * (test/support/openapi-check.ts): its status is documented for the
 * operation, its media type is one the response lists, its body validates
 * against that media type's schema, and the headers the response says are
 * always there are there, with documented values. The shared checker leaves
 * form-encoded bodies unparsed, so the OAuth 1.0a legs' form answers are
 * validated here too (formProblems). A success and a refusal of every route,
 * where a client can cause one (the metadata, JWKS and public-key documents
 * refuse nothing).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is checked by the validator, not by types
type Json = Record<string, any>;

const REDIRECT = 'http://127.0.0.1:9/callback';
const FORM_TYPE = 'application/x-www-form-urlencoded';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A form-encoded answer's body, as single values, against the schema its response documents for that media type. */
function formProblems(document: Json, res: RawResponse, method: string, path: string): string[] {
  if ((res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() !== FORM_TYPE) return [];
  const schema = document.paths[path]?.[method.toLowerCase()]?.responses[String(res.status)]?.content?.[FORM_TYPE]?.schema;
  if (!schema) return []; // the shared checker has said the media type is not documented
  const validate = new Ajv2020({ strict: false }).compile(schema);
  return validate(Object.fromEntries(new URLSearchParams(res.body)))
    ? []
    : [`the ${FORM_TYPE} body does not match its schema: ${JSON.stringify(validate.errors?.[0])}`];
}

describe('the OAuth and auth playground answers, checked against the served OpenAPI document', () => {
  let system: RunningSystem;
  let session: string;
  let app: CreatedApp;
  let served: Json;
  let checker: OpenApiChecker;
  let dereferenced: Json;
  const problemsOf = (res: RawResponse, method: string, path: string) => [
    ...checker.problems(method, path, res),
    ...formProblems(dereferenced, res, method, path),
  ];

  /** The answer, after asserting that it conforms to the document; `status` is what the test expects of it. */
  const conforming = (status: number, method: string, path: string) => (res: RawResponse) => {
    expect({ status: res.status, problems: problemsOf(res, method, path) }).toEqual({ status, problems: [] });
    return res;
  };
  const url = (path: string) => `${system.baseUrl}${path}`;
  const post = (path: string, fields: Record<string, string> | string, headers: Record<string, string> = {}) =>
    rawRequest(url(path), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: typeof fields === 'string' ? fields : form(fields),
    });
  const asApp = () => ({ Authorization: basic(app.appId, app.appSecret) });
  const accessToken = async () => (await post('/oauth/token', { grant_type: 'client_credentials', scope: 'hr:read' }, asApp())).json().access_token as string;

  beforeAll(async () => {
    system = await startSystem({ REDIS_URL: requireStoreUrls().redisUrl });
    session = await registerUser(system.baseUrl);
    app = await createApp(system.baseUrl, session, { scopes: ['hr:read', 'stocks:read'] });
    expect((await apiRequest(system.baseUrl, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token: session, body: { redirectUris: [REDIRECT] } })).status).toBe(
      200,
    );
    const res = await rawRequest(url('/openapi.json'));
    expect(res.status).toBe(200);
    served = res.json();
    checker = new OpenApiChecker(served);
    dereferenced = (await SwaggerParser.dereference(structuredClone(served) as never)) as Json;
  });
  afterAll(() => system?.stop());

  it('when an answer departs from the document, then the checks say where', async () => {
    const token = await post('/oauth/token', { grant_type: 'client_credentials' }, asApp());
    expect(problemsOf(token, 'POST', '/oauth/introspect')).toEqual([expect.stringMatching(/body does not match its schema/)]);
    const redirect = await rawRequest(url(`/oauth/authorize?response_type=code&client_id=${app.appId}`));
    expect(problemsOf(redirect, 'GET', '/.well-known/jwks.json')).toEqual([expect.stringMatching(/^status 302 is not documented/)]);
    const jwks = await rawRequest(url('/.well-known/jwks.json'));
    expect(problemsOf({ ...jwks, headers: { 'content-type': 'application/json' } }, 'GET', '/.well-known/jwks.json')).toEqual([
      expect.stringMatching(/^header Cache-Control is required/),
    ]);
    const notCredentials = {
      status: 200,
      headers: { 'content-type': FORM_TYPE, 'cache-control': 'no-store' },
      body: 'oauth_token=t',
      json: () => ({}) as never,
    };
    expect(problemsOf(notCredentials, 'POST', '/oauth1/access_token')).toEqual([
      expect.stringMatching(/^the application\/x-www-form-urlencoded body does not match/),
    ]);
  });

  describe('OAuth 2.0', () => {
    it("the oauth2 security scheme's flows point at the real authorization and token endpoints, and the token endpoint documents client authentication", async () => {
      const metadata = conforming(
        200,
        'GET',
        '/.well-known/oauth-authorization-server',
      )(await rawRequest(url('/.well-known/oauth-authorization-server'))).json();
      const { flows } = served.components.securitySchemes.oauth2;
      // OpenAPI 3.1 4.8.1: a relative URL here is resolved against the Server Object's URL.
      const resolve = (relative: string) => new URL(relative, served.servers[0].url).href;
      expect(resolve(flows.clientCredentials.tokenUrl)).toBe(metadata.token_endpoint);
      expect(resolve(flows.authorizationCode.tokenUrl)).toBe(metadata.token_endpoint);
      expect(resolve(flows.authorizationCode.authorizationUrl)).toBe(metadata.authorization_endpoint);
      expect(metadata.token_endpoint).toBe(url('/oauth/token'));
      expect(served.paths['/oauth/token'].post.security).toEqual([{ basic: [] }, {}]);
    });

    it('the JWKS is an RFC 7517 key set, cacheable for five minutes', async () => {
      const res = conforming(200, 'GET', '/.well-known/jwks.json')(await rawRequest(url('/.well-known/jwks.json')));
      // The ES256 key of access tokens (the default), then the RSA key (RS256 playground JWTs, and access tokens of RS256 replicas).
      expect(res.json().keys.map((key: { kty: string; alg: string }) => [key.kty, key.alg])).toEqual([
        ['EC', 'ES256'],
        ['RSA', 'RS256'],
      ]);
    });

    it('authorize: a 302 with a code, a 302 with a redirected error, and a 400 that never redirects', async () => {
      const query = (params: Record<string, string>) =>
        `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.appId, redirect_uri: REDIRECT, ...params })}`;
      const approved = conforming(
        302,
        'GET',
        '/oauth/authorize',
      )(await rawRequest(url(query({ state: 's1', code_challenge: s256('v'.repeat(43)), code_challenge_method: 'S256' }))));
      expect(new URL(approved.headers.location as string).searchParams.get('code')).toBeTruthy();
      const redirectedError = conforming(302, 'GET', '/oauth/authorize')(await rawRequest(url(query({ scope: 'cricket:read' }))));
      expect(new URL(redirectedError.headers.location as string).searchParams.get('error')).toBe('invalid_scope');
      // A repeated scope is the oauth service's to refuse: by redirecting, once the client and redirect URI are known.
      const repeated = conforming(302, 'GET', '/oauth/authorize')(await rawRequest(url(`${query({})}&scope=hr:read&scope=stocks:read`)));
      expect(new URL(repeated.headers.location as string).searchParams.get('error')).toBe('invalid_request');
      const unknown = conforming(400, 'GET', '/oauth/authorize')(await rawRequest(url(query({ client_id: 'app_nobody' }))));
      expect(unknown.json().error).toBe('invalid_request');
      expect(unknown.headers.location).toBeUndefined();
    });

    it('token: the three grants answer RFC 6749 5.1, never cached', async () => {
      conforming(
        200,
        'POST',
        '/oauth/token',
      )(await post('/oauth/token', { grant_type: 'client_credentials', client_id: app.appId, client_secret: app.appSecret }));
      const verifier = randomBytes(32).toString('base64url');
      const location = (
        await rawRequest(
          url(
            `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.appId, redirect_uri: REDIRECT, code_challenge: s256(verifier), code_challenge_method: 'S256' })}`,
          ),
        )
      ).headers.location as string;
      const code = new URL(location).searchParams.get('code')!;
      const tokens = conforming(
        200,
        'POST',
        '/oauth/token',
      )(await post('/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, asApp())).json();
      expect(tokens.refresh_token).toEqual(expect.any(String));
      conforming(200, 'POST', '/oauth/token')(await post('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, asApp()));
    });

    it('token: refusals in the RFC 6749 5.2 shape, the edge and the oauth service alike', async () => {
      const unsupported = conforming(
        400,
        'POST',
        '/oauth/token',
      )(await post('/oauth/token', { grant_type: 'password', username: 'u', password: 'p' }, asApp()));
      expect(unsupported.json()).toEqual({
        error: 'unsupported_grant_type',
        error_description: expect.stringMatching(/^grant_type 'password' is not supported/),
      });
      const noCode = conforming(400, 'POST', '/oauth/token')(await post('/oauth/token', { grant_type: 'authorization_code', redirect_uri: REDIRECT }, asApp()));
      expect(noCode.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/^code is required/) });
      const wrongSecret = conforming(
        401,
        'POST',
        '/oauth/token',
      )(await post('/oauth/token', { grant_type: 'client_credentials' }, { Authorization: basic(app.appId, 'as_wrong') }));
      expect(wrongSecret.json().error).toBe('invalid_client');
      expect(wrongSecret.headers['www-authenticate']).toMatch(/^Basic /);
    });

    it('token form: a repeated parameter is refused by name; one sent without a value counts as absent (RFC 6749 3.2)', async () => {
      const twice = conforming(
        400,
        'POST',
        '/oauth/token',
      )(await post('/oauth/token', 'grant_type=client_credentials&scope=hr:read&scope=stocks:read', asApp()));
      expect(twice.json()).toEqual({ error: 'invalid_request', error_description: "'scope' was sent more than once; send each parameter once." });
      // grant_type= and scope= are as if left out: client credentials, every scope the app holds.
      const empty = conforming(200, 'POST', '/oauth/token')(await post('/oauth/token', 'grant_type=&scope=&client_id=', asApp()));
      expect(empty.json().scope.split(' ').sort()).toEqual(['hr:read', 'stocks:read']);
      const quoted = conforming(400, 'POST', '/oauth/token')(await post('/oauth/token', 'x%22%5C=1&x%22%5C=2', asApp()));
      expect(quoted.json().error_description).toBe("'x??' was sent more than once; send each parameter once.");
    });

    it('a form the contract refuses still lands in the request log of the app it names, with the rule that failed', async () => {
      const named = await createApp(system.baseUrl, session, { scopes: ['hr:read'] });
      expect(
        (await post('/oauth/token', 'grant_type=client_credentials&scope=hr:read&scope=hr:read', { Authorization: basic(named.appId, named.appSecret) }))
          .status,
      ).toBe(400);
      expect((await post('/oauth/token', { grant_type: 'password', client_id: named.appId })).status).toBe(400);
      const logged = await eventually(
        async () =>
          (await apiRequest(system.baseUrl, 'GET', `/api/apps/${named.id}/logs`, { token: session })).json().entries as {
            path: string;
            status: number;
            failure?: string;
          }[],
        (entries) => entries.filter((e) => e.path === '/oauth/token').length >= 2,
        10_000,
      );
      expect(logged.value.map((e) => e.failure).sort()).toEqual([
        expect.stringMatching(/^invalid_body: 'scope' was sent more than once/),
        expect.stringMatching(/^unsupported_grant_type: /),
      ]);
    });

    it('introspect: active, inactive, and a missing token', async () => {
      const access = await accessToken();
      const live = conforming(200, 'POST', '/oauth/introspect')(await post('/oauth/introspect', { token: access }));
      expect(live.json()).toMatchObject({ active: true, token_type: 'Bearer' });
      expect(
        conforming(200, 'POST', '/oauth/introspect')(await post('/oauth/introspect', { token: 'not-a-token', token_type_hint: 'access_token' })).json(),
      ).toEqual({ active: false });
      const missing = conforming(400, 'POST', '/oauth/introspect')(await post('/oauth/introspect', { token_type_hint: 'access_token' }));
      expect(missing.json()).toEqual({
        error: 'invalid_request',
        error_description: 'token is required: send the token to introspect as the form field token.',
      });
    });

    it('revoke: 200 without a body, and 401 without client authentication', async () => {
      const access = await accessToken();
      conforming(200, 'POST', '/oauth/revoke')(await post('/oauth/revoke', { token: access }, asApp()));
      const anonymous = conforming(401, 'POST', '/oauth/revoke')(await post('/oauth/revoke', { token: access }));
      expect(anonymous.json().error).toBe('invalid_client');
    });
  });

  describe('OAuth 1.0a', () => {
    const signer = () =>
      new OAuth({
        consumer: { key: app.appId, secret: app.apiKey },
        signature_method: 'HMAC-SHA1',
        hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
      });
    /** A leg signed by a third-party signer; its oauth_ parameters go in the header, the rest in the form. */
    const signedPost = (path: string, data: Record<string, string>, token?: OAuth.Token, headers: Record<string, string> = {}) => {
      const authorization = signer().toHeader(signer().authorize({ url: url(path), method: 'POST', data }, token)).Authorization;
      const fields = Object.fromEntries(Object.entries(data).filter(([name]) => !name.startsWith('oauth_')));
      return post(path, fields, { Authorization: authorization, ...headers });
    };
    const FORM = { Accept: 'application/x-www-form-urlencoded' };

    it('the three legs answer JSON, or the RFC form encoding when asked, and a protected call succeeds', async () => {
      conforming(200, 'POST', '/oauth1/request_token')(await signedPost('/oauth1/request_token', { oauth_callback: 'https://client.example/cb' }));
      const temporary = Object.fromEntries(
        new URLSearchParams(
          conforming(200, 'POST', '/oauth1/request_token')(await signedPost('/oauth1/request_token', { oauth_callback: 'oob' }, undefined, FORM)).body,
        ),
      );
      const approved = conforming(200, 'GET', '/oauth1/authorize')(await rawRequest(url(`/oauth1/authorize?oauth_token=${temporary.oauth_token}`))).json();
      const access = conforming(
        200,
        'POST',
        '/oauth1/access_token',
      )(
        await signedPost(
          '/oauth1/access_token',
          { oauth_verifier: approved.oauth_verifier },
          { key: temporary.oauth_token!, secret: temporary.oauth_token_secret! },
          FORM,
        ),
      );
      const credentials = Object.fromEntries(new URLSearchParams(access.body));
      const protectedUrl = url('/playground/auth/oauth1');
      const token = { key: credentials.oauth_token!, secret: credentials.oauth_token_secret! };
      const call = await rawRequest(protectedUrl, {
        headers: { Authorization: signer().toHeader(signer().authorize({ url: protectedUrl, method: 'GET' }, token)).Authorization },
      });
      expect(conforming(200, 'GET', '/playground/auth/oauth1')(call).json()).toMatchObject({ style: 'oauth1' });
      const early = await rawRequest(protectedUrl, {
        headers: {
          Authorization: signer().toHeader(
            signer().authorize({ url: protectedUrl, method: 'GET' }, { key: temporary.oauth_token!, secret: temporary.oauth_token_secret! }),
          ).Authorization,
        },
      });
      expect(conforming(401, 'GET', '/playground/auth/oauth1')(early).json().error.code).toBe('token_rejected');
    });

    it('each leg refuses in the error shape, with the oauth_problem as its code', async () => {
      const unsigned = conforming(
        400,
        'POST',
        '/oauth1/request_token',
      )(await post('/oauth1/request_token', '', { Authorization: `OAuth oauth_consumer_key="${app.appId}"` }));
      expect(unsigned.json().error.code).toBe('parameter_absent');
      const unknown = conforming(401, 'GET', '/oauth1/authorize')(await rawRequest(url('/oauth1/authorize?oauth_token=o1rt_nobody')));
      expect(unknown.json().error.code).toBe('token_rejected');
      const twice = conforming(400, 'GET', '/oauth1/authorize')(await rawRequest(url('/oauth1/authorize?oauth_token=a&oauth_token=b')));
      expect(twice.json().error).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('oauth_token') });
      expect(conforming(400, 'GET', '/oauth1/authorize')(await rawRequest(url('/oauth1/authorize'))).json().error.code).toBe('parameter_absent');
      const temporary = (await signedPost('/oauth1/request_token', { oauth_callback: 'oob' })).json();
      const wrongVerifier = await signedPost(
        '/oauth1/access_token',
        { oauth_verifier: 'not-the-verifier' },
        { key: temporary.oauth_token, secret: temporary.oauth_token_secret },
      );
      expect(conforming(401, 'POST', '/oauth1/access_token')(wrongVerifier).json().error.code).toBe('verifier_invalid');
    });

    it('a form parameter sent twice is signed and verified as sent, not refused as a repeat (RFC 5849 3.4.1.3.2)', async () => {
      const path = '/oauth1/request_token';
      const authorization = signer().toHeader(
        signer().authorize({ url: url(path), method: 'POST', data: { oauth_callback: 'oob', scope: ['a', 'b'] } }),
      ).Authorization;
      const res = await post(path, 'scope=a&scope=b', { Authorization: authorization });
      expect(conforming(200, 'POST', path)(res).json().oauth_callback_confirmed).toBe(true);
    });
  });

  describe('the auth playground', () => {
    const get = (path: string, headers: Record<string, string> = {}) => rawRequest(url(path), { headers });
    const hmacHeaders = (method: string, path: string, key = app.apiKey, timestamp = Math.floor(Date.now() / 1000)) => ({
      'x-app-id': app.appId,
      'x-timestamp': String(timestamp),
      'x-signature': createHmac('sha256', key).update(`${timestamp}.${method}.${path}`).digest('hex'),
    });

    it('basic, bearer, api-key and api-key-query: the app, or the refusal with its challenge', async () => {
      const cases: [string, Record<string, string>, Record<string, string>, string?][] = [
        ['/playground/auth/basic', { Authorization: basic(app.appId, app.appSecret) }, { Authorization: basic(app.appId, 'as_wrong') }],
        ['/playground/auth/bearer', { Authorization: `Bearer ${app.bearerToken}` }, { Authorization: 'Bearer bt_wrong' }],
        ['/playground/auth/api-key', { 'x-api-key': app.apiKey }, {}],
      ];
      for (const [path, right, wrong] of cases) {
        conforming(200, 'GET', path)(await get(path, right));
        expect(conforming(401, 'GET', path)(await get(path, wrong)).headers['www-authenticate']).toBeDefined();
      }
      expect(conforming(200, 'GET', '/playground/auth/api-key-query')(await get(`/playground/auth/api-key-query?api_key=${app.apiKey}`)).json().note).toMatch(
        /weaker/,
      );
      conforming(401, 'GET', '/playground/auth/api-key-query')(await get('/playground/auth/api-key-query?api_key=ak_wrong'));
    });

    it('oauth2 and jwt: a token accepted, a made-up one refused', async () => {
      conforming(200, 'GET', '/playground/auth/oauth2')(await get('/playground/auth/oauth2', { Authorization: `Bearer ${await accessToken()}` }));
      conforming(401, 'GET', '/playground/auth/oauth2')(await get('/playground/auth/oauth2', { Authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' }));
      const issued = conforming(
        200,
        'POST',
        '/playground/auth/jwt/issue',
      )(await rawRequest(url('/playground/auth/jwt/issue'), { method: 'POST', headers: asApp() })).json();
      conforming(401, 'POST', '/playground/auth/jwt/issue')(await rawRequest(url('/playground/auth/jwt/issue'), { method: 'POST' }));
      conforming(200, 'GET', '/playground/auth/jwt')(await get('/playground/auth/jwt', { Authorization: `Bearer ${issued.hs256}` }));
      conforming(401, 'GET', '/playground/auth/jwt')(await get('/playground/auth/jwt', { Authorization: 'Bearer not.a.jwt' }));
    });

    it('jwt/decode: decoded (not verified), or 400 for what is not a JWT or not a string; jwt/public-key', async () => {
      const issued = (await rawRequest(url('/playground/auth/jwt/issue'), { method: 'POST', headers: asApp() })).json();
      const decode = (body: unknown) => apiRequest(system.baseUrl, 'POST', '/playground/auth/jwt/decode', { body });
      expect(conforming(200, 'POST', '/playground/auth/jwt/decode')(await decode({ token: issued.rs256 })).json()).toMatchObject({
        verified: false,
        header: { alg: 'RS256' },
      });
      expect(conforming(400, 'POST', '/playground/auth/jwt/decode')(await decode({ token: 'not.a.jwt' })).json().error.code).toBe('not_a_jwt');
      expect(conforming(400, 'POST', '/playground/auth/jwt/decode')(await decode({ token: 42 })).json().error).toMatchObject({
        code: 'invalid_body',
        message: 'token must be a string.',
      });
      expect(conforming(400, 'POST', '/playground/auth/jwt/decode')(await decode({})).json().error.message).toMatch(/^token is required/);
      conforming(200, 'GET', '/playground/auth/jwt/public-key')(await get('/playground/auth/jwt/public-key'));
    });

    it('hmac, by POST and by GET: a fresh signature accepted, one with the wrong key refused', async () => {
      const path = '/playground/auth/hmac';
      conforming(200, 'POST', path)(await rawRequest(url(path), { method: 'POST', headers: hmacHeaders('POST', path) }));
      conforming(200, 'GET', path)(await get(path, hmacHeaders('GET', path)));
      conforming(401, 'GET', path)(await get(path, hmacHeaders('GET', path, 'ak_not_the_key')));
    });

    it('digest: the challenge of a first request, then an answer to it (SHA-256, chosen by the documented algorithm parameter)', async () => {
      const uri = '/playground/auth/digest?algorithm=SHA-256';
      const first = conforming(401, 'GET', '/playground/auth/digest')(await get(uri));
      const challenge = String(first.headers['www-authenticate']);
      expect(challenge).not.toMatch(/MD5/);
      const field = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(challenge)![1]!;
      const [realm, nonce, opaque, cnonce, nc] = [field('realm'), field('nonce'), field('opaque'), randomBytes(8).toString('hex'), '00000001'];
      const response = sha256(`${sha256(`${app.appId}:${realm}:${app.apiKey}`)}:${nonce}:${nc}:${cnonce}:auth:${sha256(`GET:${uri}`)}`);
      const authorization = `Digest username="${app.appId}", realm="${realm}", nonce="${nonce}", uri="${uri}", algorithm=SHA-256, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}", opaque="${opaque}"`;
      expect(conforming(200, 'GET', '/playground/auth/digest')(await get(uri, { Authorization: authorization })).json()).toMatchObject({ style: 'digest' });
    });
  });
});

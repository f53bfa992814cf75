import { challenges } from '@sandbox/contracts';
import { GrpcStatus } from '@sandbox/runtime';
import {
  ACCESS_TOKEN,
  APP,
  basicOf,
  digestAuthorization,
  digestChallenges,
  DIGEST_STALE_RESPONSE,
  everyService,
  hmacOf,
  LEARNER,
  LEARNER_SESSION,
  oauth1Authorization,
  PLAYGROUND_JWT,
  transportFailure,
  UNKNOWN_API_KEY,
  UNKNOWN_BEARER,
} from './fake-clients';
import { expectApiError, startGateway, type Answer, type Harness } from './harness';

const { CHALLENGE } = challenges;
/** What a style's endpoint answers once the credential was right. */
const authenticated = (style: string) => ({ authenticated: true, style, app: { id: APP.id, appId: APP.appId }, scopes: ['hr:read'] });
const expectRefused = (answer: Answer, challenge: string | string[], code = 'invalid_credentials') => {
  expectApiError(answer, 401, code);
  expect(answer.headers['www-authenticate']).toEqual(challenge);
  // Refusals of these rows are never stored either.
  expect(answer.headers['cache-control']).toBe('no-store');
};

/** /playground/auth/<style>: one endpoint per style, each accepting that style only (docs/auth-playground.md). */
describe('the authentication playground', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startGateway(everyService());
  });
  afterEach(async () => h.stop());

  describe('static credentials', () => {
    it.each([
      ['basic', '/playground/auth/basic', { Authorization: basicOf(APP.appId, APP.appSecret) }],
      ['bearer', '/playground/auth/bearer', { Authorization: `Bearer ${APP.bearerToken}` }],
      ['api_key_header', '/playground/auth/api-key', { 'x-api-key': APP.apiKey }],
    ])('when %s is right, then the app, the style and the scopes, never stored', async (style, url, headers) => {
      const answer = await h.get(url, headers);
      expect({ status: answer.status, body: answer.json, cache: answer.headers['cache-control'] }).toEqual({
        status: 200,
        body: authenticated(style),
        cache: 'no-store',
      });
    });

    it('when the API key comes in the query, then it is accepted with a note that it is the weaker form', async () => {
      const answer = await h.get(`/playground/auth/api-key-query?api_key=${APP.apiKey}`);
      expect(answer.json).toEqual({ ...authenticated('api_key_query'), note: expect.stringMatching(/weaker/) });
    });

    it.each([
      ['basic', '/playground/auth/basic', CHALLENGE.basic],
      ['bearer', '/playground/auth/bearer', CHALLENGE.bearer],
      ['api_key_header', '/playground/auth/api-key', 'ApiKey realm="training-sandbox", in="header", name="x-api-key"'],
      ['api_key_query', '/playground/auth/api-key-query', 'ApiKey realm="training-sandbox", in="query", name="api_key"'],
      ['hmac', '/playground/auth/hmac', CHALLENGE.hmac],
      ['oauth1', '/playground/auth/oauth1', CHALLENGE.oauth1],
      ['jwt', '/playground/auth/jwt', CHALLENGE.bearer],
      ['oauth2', '/playground/auth/oauth2', CHALLENGE.bearer],
    ])('when %s is missing, then 401 missing_credentials with that style’s challenge alone, and no service is asked', async (_style, url, challenge) => {
      expectRefused(await h.get(url), challenge, 'missing_credentials');
      expect(h.calls).toEqual([]);
    });

    it.each([
      ['a wrong App Secret', '/playground/auth/basic', { Authorization: basicOf(APP.appId, `as_${'w'.repeat(43)}`) }, CHALLENGE.basic],
      ['an unknown app bearer token', '/playground/auth/bearer', { Authorization: `Bearer ${UNKNOWN_BEARER}` }, `${CHALLENGE.bearer}, error="invalid_token"`],
      [
        'an unknown API key',
        '/playground/auth/api-key',
        { 'x-api-key': UNKNOWN_API_KEY },
        'ApiKey realm="training-sandbox", in="header", name="x-api-key", error="invalid_key"',
      ],
    ])('when %s is sent, then 401 invalid_credentials with the style’s challenge', async (_what, url, headers, challenge) => {
      expectRefused(await h.get(url, headers), challenge);
    });

    it('when the API key in the query is wrong, then the query challenge says invalid_key', async () => {
      const answer = await h.get(`/playground/auth/api-key-query?api_key=${UNKNOWN_API_KEY}`);
      expectRefused(answer, 'ApiKey realm="training-sandbox", in="query", name="api_key", error="invalid_key"');
    });

    it('when the Basic value is not base64 of "App ID:App Secret", then it is refused saying so, without asking identity', async () => {
      const answer = await h.get('/playground/auth/basic', { Authorization: 'Basic not base64!' });
      expectRefused(answer, CHALLENGE.basic);
      expect(answer.json.error.message).toBe('The Basic credential is not base64 of "App ID:App Secret".');
      expect(h.calls).toEqual([]);
    });

    it('when another style is presented at a style’s endpoint, then it counts as no credential there', async () => {
      expectRefused(await h.get('/playground/auth/basic', { 'x-api-key': APP.apiKey }), CHALLENGE.basic, 'missing_credentials');
    });
  });

  describe('hmac', () => {
    const now = () => String(Math.floor(Date.now() / 1000));
    const signed = (method: string, path: string, key = APP.apiKey) => {
      const timestamp = now();
      return { 'x-app-id': APP.appId, 'x-timestamp': timestamp, 'x-signature': hmacOf(key, timestamp, method, path) };
    };

    it.each(['GET', 'POST'])('when a %s is signed over "timestamp.METHOD.path" with the API key, then it is accepted', async (method) => {
      const answer = await h.inject({ method, url: '/playground/auth/hmac', headers: signed(method, '/playground/auth/hmac') });
      expect(answer.json).toEqual(authenticated('hmac'));
      expect(h.callsOf('oauth', 'verifyHmac')[0]!.request).toMatchObject({ appId: APP.appId, method, path: '/playground/auth/hmac', rawQuery: '' });
    });

    it('when a header is missing, then it is refused naming it, without asking the oauth service', async () => {
      const { 'x-signature': _left, ...partial } = signed('GET', '/playground/auth/hmac');
      const answer = await h.get('/playground/auth/hmac', partial);
      expectRefused(answer, CHALLENGE.hmac);
      expect(answer.json.error.message).toBe('All three headers are required: x-signature is missing or empty.');
      expect(h.calls).toEqual([]);
    });

    it('when the signature was made with another key, then the oauth service’s reason is the message', async () => {
      const answer = await h.get('/playground/auth/hmac', signed('GET', '/playground/auth/hmac', 'ak_not_the_key'));
      expectRefused(answer, CHALLENGE.hmac);
      expect(answer.json.error.message).toMatch(/^The signature does not match\./);
    });

    it('when each signature must be fresh, then a verdict is never remembered: the same headers are checked again', async () => {
      const headers = signed('GET', '/playground/auth/hmac');
      await h.get('/playground/auth/hmac', headers);
      await h.get('/playground/auth/hmac', headers);
      expect(h.callsOf('oauth', 'verifyHmac')).toHaveLength(2);
    });
  });

  it('when the gateway is mounted under a prefix (PUBLIC_BASE_URL), then an HMAC signature over the path as the client sent it is accepted', async () => {
    await h.stop();
    h = await startGateway(everyService(), { PUBLIC_BASE_URL: 'https://edu.example.org/sandbox' });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers = { 'x-app-id': APP.appId, 'x-timestamp': timestamp, 'x-signature': hmacOf(APP.apiKey, timestamp, 'GET', '/sandbox/playground/auth/hmac') };
    expect((await h.get('/playground/auth/hmac', headers)).status).toBe(200);
  });

  describe('digest', () => {
    it('when a first request comes without credentials, then 401 with two fresh challenges, SHA-256 then MD5, one header line each', async () => {
      const answer = await h.get('/playground/auth/digest');
      expectRefused(answer, digestChallenges(), 'missing_credentials');
      expect(h.callsOf('oauth', 'digestChallenge')[0]!.request).toEqual({ realm: 'training-sandbox' });
    });

    it('when ?algorithm=MD5 is asked for, then only the MD5 challenge is offered', async () => {
      const answer = await h.get('/playground/auth/digest?algorithm=MD5');
      expect(answer.headers['www-authenticate']).toEqual([digestChallenges()[1]]);
    });

    it('when the answer to the challenge is right, then it is accepted; the uri checked is the request target as sent', async () => {
      const answer = await h.get('/playground/auth/digest', { Authorization: digestAuthorization('/playground/auth/digest') });
      expect(answer.json).toEqual(authenticated('digest'));
      expect(h.callsOf('oauth', 'digestVerify')[0]!.request).toMatchObject({ method: 'GET', uri: '/playground/auth/digest' });
    });

    it('when the answer is wrong, then 401 with fresh challenges to answer again', async () => {
      const answer = await h.get('/playground/auth/digest', { Authorization: digestAuthorization('/playground/auth/digest', 'c'.repeat(64)) });
      expectRefused(answer, digestChallenges());
      expect(answer.json.error.message).toMatch(/does not match/);
    });

    it('when the nonce is stale, then the service’s own challenges, saying stale=true, are sent', async () => {
      const answer = await h.get('/playground/auth/digest', { Authorization: digestAuthorization('/playground/auth/digest', DIGEST_STALE_RESPONSE) });
      expectRefused(answer, digestChallenges(true));
      expect(answer.json.error.message).toMatch(/^nonce: stale/);
    });
  });

  describe('oauth1', () => {
    it('when the request is signed with the three legs’ access token, then it is accepted', async () => {
      const answer = await h.get('/playground/auth/oauth1', { Authorization: oauth1Authorization('good') });
      expect(answer.json).toEqual(authenticated('oauth1'));
      expect(h.callsOf('oauth', 'oAuth1Verify')[0]!.request).toMatchObject({
        request: { method: 'GET', baseUrl: 'http://localhost/playground/auth/oauth1', params: [], authorization: oauth1Authorization('good') },
      });
    });

    it('when the service names an oauth_problem, then it is the refusal’s code and the challenge says it', async () => {
      const answer = await h.get('/playground/auth/oauth1', { Authorization: oauth1Authorization('replayed') });
      expectRefused(answer, `${CHALLENGE.oauth1}, oauth_problem="nonce_used"`, 'nonce_used');
      expect(answer.json.error.message).toMatch(/^This nonce was already used/);
    });
  });

  describe('jwt and oauth2', () => {
    it('when a playground JWT is right, then it is accepted as style jwt', async () => {
      expect((await h.get('/playground/auth/jwt', { Authorization: `Bearer ${PLAYGROUND_JWT}` })).json).toEqual(authenticated('jwt'));
    });

    it('when a JWT is refused, then 401 with the Bearer challenge saying invalid_token and the service’s reason', async () => {
      const other = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.e30.`;
      const answer = await h.get('/playground/auth/jwt', { Authorization: `Bearer ${other}` });
      expectRefused(answer, `${CHALLENGE.bearer}, error="invalid_token"`);
    });

    it('when an OAuth 2.0 access token is right, then it is accepted as style oauth2', async () => {
      expect((await h.get('/playground/auth/oauth2', { Authorization: `Bearer ${ACCESS_TOKEN}` })).json).toEqual(authenticated('oauth2'));
    });

    it('when a token that is not ours is sent to oauth2, then 401 with error="invalid_token"', async () => {
      expectRefused(await h.get('/playground/auth/oauth2', { Authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' }), `${CHALLENGE.bearer}, error="invalid_token"`);
    });

    it('when the oauth service does not issue tokens yet (UNIMPLEMENTED), then an OAuth 2.0 token is refused as not valid, not a 501', async () => {
      await h.stop();
      h = await startGateway({ oauth: { verifyAccessToken: async () => Promise.reject(transportFailure('oauth', GrpcStatus.UNIMPLEMENTED)) } });
      const answer = await h.get('/playground/auth/oauth2', { Authorization: `Bearer ${ACCESS_TOKEN}` });
      expectRefused(answer, `${CHALLENGE.bearer}, error="invalid_token"`);
      expect(answer.json.error.message).toBe('The bearer token is not valid.');
    });

    it('when issue is called without Basic, then 401 with the Basic challenge; with it, two tokens and absolute key URLs', async () => {
      expectRefused(await h.inject({ method: 'POST', url: '/playground/auth/jwt/issue' }), CHALLENGE.basic, 'missing_credentials');
      const issued = await h.inject({ method: 'POST', url: '/playground/auth/jwt/issue', headers: { Authorization: basicOf(APP.appId, APP.appSecret) } });
      expect(issued.json).toMatchObject({
        token_type: 'Bearer',
        hs256: PLAYGROUND_JWT,
        expires_in: 3600,
        issuer: 'http://localhost',
        public_key: 'http://localhost/playground/auth/jwt/public-key',
        jwks_uri: 'http://localhost/.well-known/jwks.json',
      });
      expect(h.callsOf('oauth', 'issueJwt')[0]!.request).toEqual({ appId: APP.appId, issuer: 'http://localhost' });
    });

    it('when the public key is read, then it is cacheable for 5 minutes and names the JWKS', async () => {
      const answer = await h.get('/playground/auth/jwt/public-key');
      expect(answer.json).toMatchObject({ alg: 'RS256', kid: 'k1', jwks_uri: 'http://localhost/.well-known/jwks.json' });
      expect(answer.headers['cache-control']).toBe('public, max-age=300');
    });
  });

  describe('jwt/decode', () => {
    it('when a JWT is sent, then its header and payload, decoded and not verified', async () => {
      const answer = await h.post('/playground/auth/jwt/decode', { token: PLAYGROUND_JWT });
      expect(answer.json).toMatchObject({ header: { alg: 'HS256', typ: 'JWT' }, payload: { sub: APP.appId }, verified: false });
      expect(h.calls).toEqual([]);
    });

    it('when the token is not a JWT, then 400 not_a_jwt', async () => {
      expectApiError(await h.post('/playground/auth/jwt/decode', { token: 'not.a.jwt' }), 400, 'not_a_jwt');
    });

    it('when token is missing, then 400 invalid_body saying what to send', async () => {
      const answer = await h.post('/playground/auth/jwt/decode', {});
      expectApiError(answer, 400, 'invalid_body');
      expect(answer.json.error.message).toMatch(/token is required/);
    });

    it('when a field it does not read is sent, then 400 names it, as every JSON body does', async () => {
      const answer = await h.post('/playground/auth/jwt/decode', { token: PLAYGROUND_JWT, verify: true });
      expectApiError(answer, 400, 'invalid_body');
      expect(answer.json.error.message).toBe('Unknown field "verify"; this endpoint accepts token.');
    });
  });
});

describe('the portal session', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startGateway(everyService());
  });
  afterEach(async () => h.stop());

  it('when there is no session, then 401 session_required with the portal’s own challenge', async () => {
    const answer = await h.get('/api/me');
    expectRefused(answer, CHALLENGE.portal, 'session_required');
  });

  it('when identity refuses the session, then its code passes through with the portal challenge saying invalid_token', async () => {
    const answer = await h.get('/api/me', { Authorization: 'Bearer made-up-session' });
    expectRefused(answer, `${CHALLENGE.portal}, error="invalid_token"`, 'invalid_session');
  });

  it('when the session is good, then the signed-in user, checked by identity on every request', async () => {
    const headers = { Authorization: `Bearer ${LEARNER_SESSION}` };
    const answer = await h.get('/api/me', headers);
    expect(answer.json).toEqual({ id: LEARNER.id, email: LEARNER.email, provider: 'password', createdAt: LEARNER.createdAt, operator: false });
    await h.get('/api/me', headers);
    expect(h.callsOf('identity', 'verifySession')).toHaveLength(2);
  });
});

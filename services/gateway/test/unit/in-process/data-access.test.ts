import { invalidArgument } from '@sandbox/runtime';
import {
  ACCESS_TOKEN,
  APP,
  dataAnswers,
  everyService,
  identityAnswers,
  LEARNER_SESSION,
  oauthAnswers,
  PLAYGROUND_JWT,
  refusedBy,
  UNKNOWN_API_KEY,
  UNKNOWN_BEARER,
} from './fake-clients';
import { expectApiError, startGateway, type Harness } from './harness';

/** The data endpoint's schemes, in the route's order: app bearer, OAuth 2.0 token, playground JWT, API key header, API key query (docs/data.md, Access). */
describe('the data page: who may read it', () => {
  const PAGE = '/playground/data/hr/employees?page_size=1';
  const MISSING = [
    'Bearer realm="training-sandbox"',
    'ApiKey realm="training-sandbox", in="header", name="x-api-key"',
    'ApiKey realm="training-sandbox", in="query", name="api_key"',
  ];
  const REFUSED = [
    'Bearer realm="training-sandbox", error="invalid_token"',
    'ApiKey realm="training-sandbox", in="header", name="x-api-key", error="invalid_key"',
    'ApiKey realm="training-sandbox", in="query", name="api_key", error="invalid_key"',
  ];
  let h: Harness;
  beforeEach(async () => {
    h = await startGateway(everyService());
  });
  afterEach(async () => h.stop());

  it('when no credential is sent, then 401 missing_credentials with one challenge per accepted style, the Bearer styles sharing one, and no service is asked', async () => {
    const answer = await h.get(PAGE);
    expectApiError(answer, 401, 'missing_credentials');
    expect(answer.headers['www-authenticate']).toEqual(MISSING);
    expect(answer.json.error.message).toContain('an x-api-key header');
    expect(h.calls).toEqual([]);
  });

  it.each([
    ['an unknown app bearer token', { Authorization: `Bearer ${UNKNOWN_BEARER}` }, 'The bearer token is not valid.'],
    ['an unknown API key', { 'x-api-key': UNKNOWN_API_KEY }, 'The API key is not valid.'],
    ['an API key not in the key format', { 'x-api-key': 'ak_wrong' }, 'The API key is not in the expected format (ak_ followed by 43 characters).'],
  ])('when %s is sent, then 401 invalid_credentials naming the rule, with every challenge saying it was refused', async (_what, headers, reason) => {
    const answer = await h.get(PAGE, headers);
    expectApiError(answer, 401, 'invalid_credentials');
    expect(answer.json.error.message).toBe(reason);
    expect(answer.headers['www-authenticate']).toEqual(REFUSED);
    expect(h.callsOf('data', 'getPage')).toEqual([]);
  });

  it.each([
    ['the x-api-key header', { 'x-api-key': APP.apiKey }, PAGE],
    ['the api_key query parameter', {}, `${PAGE}&api_key=${APP.apiKey}`],
    ['the app bearer token', { Authorization: `Bearer ${APP.bearerToken}` }, PAGE],
    ['a playground JWT', { Authorization: `Bearer ${PLAYGROUND_JWT}` }, PAGE],
    ['an OAuth 2.0 access token', { Authorization: `Bearer ${ACCESS_TOKEN}` }, PAGE],
  ])('when %s is right, then the page is read with the scopes the credential holds', async (_what, headers, url) => {
    const answer = await h.get(url, headers);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ pack: 'hr', entity: 'employees' });
    const [call] = h.callsOf('data', 'getPage');
    expect(call!.request).toMatchObject({ pack: 'hr', entity: 'employees', grantedScopes: ['hr:read'], rootUrl: 'http://localhost/playground/data' });
  });

  it('when the page is read, then it carries its ETag, private no-cache and Vary on the credentials; the same ETag in If-None-Match is a 304 without a body', async () => {
    const first = await h.get(PAGE, { 'x-api-key': APP.apiKey });
    expect(first.headers).toMatchObject({ etag: expect.any(String), 'cache-control': 'private, no-cache', vary: 'Authorization, X-Api-Key' });
    const again = await h.get(PAGE, { 'x-api-key': APP.apiKey, 'If-None-Match': String(first.headers.etag) });
    expect({ status: again.status, body: again.reply.body, etag: again.headers.etag }).toEqual({ status: 304, body: undefined, etag: first.headers.etag });
  });

  it('when the credential lacks the pack’s scope, then 403 missing_scope with the RFC 6750 insufficient_scope challenge naming the scope', async () => {
    const answer = await h.get('/playground/data/stocks/tickers', { 'x-api-key': APP.apiKey });
    expectApiError(answer, 403, 'missing_scope');
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="training-sandbox", error="insufficient_scope", scope="stocks:read"');
  });

  it('when the pack does not exist, then the data service’s 404 comes through in the error shape', async () => {
    const answer = await h.get('/playground/data/cricket/players', { 'x-api-key': APP.apiKey });
    expectApiError(answer, 404, 'unknown_pack');
  });

  it('when a Bearer value of no known kind comes beside a valid API key, then the key decides', async () => {
    expect((await h.get(PAGE, { Authorization: 'Bearer not-a-token', 'x-api-key': APP.apiKey })).status).toBe(200);
  });

  it('when a Bearer value of no known kind comes alone, then it is refused as a mistyped app bearer token without asking identity', async () => {
    const answer = await h.get(PAGE, { Authorization: 'Bearer not-a-token' });
    expectApiError(answer, 401, 'invalid_credentials');
    expect(answer.json.error.message).toMatch(/bt_/);
    expect(h.calls).toEqual([]);
  });

  it('when a wrong app bearer token comes beside a valid API key, then the recognisable credential is refused, never passed over', async () => {
    expect((await h.get(PAGE, { Authorization: `Bearer ${UNKNOWN_BEARER}`, 'x-api-key': APP.apiKey })).status).toBe(401);
    expect(h.callsOf('identity', 'verifyApiKey')).toEqual([]);
  });

  it('when api_key is given twice, then it is refused as an empty credential without asking identity', async () => {
    const answer = await h.get(`${PAGE}&api_key=${APP.apiKey}&api_key=${APP.apiKey}`);
    expectApiError(answer, 401, 'invalid_credentials');
    expect(answer.json.error.message).toBe('The credential is empty.');
    expect(h.calls).toEqual([]);
  });

  it('when an app bearer token is sent with no value, then it is refused as empty', async () => {
    const answer = await h.get(PAGE, { Authorization: 'Bearer' });
    expectApiError(answer, 401, 'invalid_credentials');
  });

  it('when a page parameter is wrong, then the gateway passes the query as sent and the data service’s 400 comes through (it owns the rules)', async () => {
    const data = dataAnswers();
    await h.stop();
    h = await startGateway({
      identity: identityAnswers(),
      data: {
        ...data,
        getPage: async (request, options) => {
          if (request.rawQuery === 'page_size=abc') {
            throw refusedBy('data', invalidArgument('invalid_parameter', "page_size must be a whole number from 1; got 'abc'."));
          }
          return data.getPage!(request, options);
        },
      },
    });
    const answer = await h.get('/playground/data/hr/employees?page_size=abc', { 'x-api-key': APP.apiKey });
    expectApiError(answer, 400, 'invalid_parameter');
    expect(answer.json.error.message).toBe("page_size must be a whole number from 1; got 'abc'.");
  });

  it('when the catalog is read, then it needs no credential and its links start at the data root', async () => {
    const answer = await h.get('/playground/data');
    expect(answer.status).toBe(200);
    expect(answer.json.packs[0].url).toBe('http://localhost/playground/data/hr');
  });
});

describe('what the gateway remembers of credentials and pages', () => {
  const PAGE = '/playground/data/hr/employees?page_size=1';
  let h: Harness;
  afterEach(async () => h.stop());

  it('when the same API key is sent twice, then identity is asked once (an acceptance is remembered, CREDENTIAL_CACHE_MS)', async () => {
    h = await startGateway(everyService());
    await h.get(PAGE, { 'x-api-key': APP.apiKey });
    await h.get('/playground/auth/api-key', { 'x-api-key': APP.apiKey });
    expect(h.callsOf('identity', 'verifyApiKey')).toHaveLength(1);
  });

  it('when CREDENTIAL_CACHE_MS is 0, then every request asks identity', async () => {
    h = await startGateway(everyService(), { CREDENTIAL_CACHE_MS: '0' });
    await h.get(PAGE, { 'x-api-key': APP.apiKey });
    await h.get(PAGE, { 'x-api-key': APP.apiKey });
    expect(h.callsOf('identity', 'verifyApiKey')).toHaveLength(2);
  });

  it('when a credential is refused, then the refusal is not remembered: the next request asks again', async () => {
    h = await startGateway(everyService());
    await h.get(PAGE, { 'x-api-key': UNKNOWN_API_KEY });
    await h.get(PAGE, { 'x-api-key': UNKNOWN_API_KEY });
    expect(h.callsOf('identity', 'verifyApiKey')).toHaveLength(2);
  });

  it('when an app is deleted through the gateway, then what was remembered of credentials is forgotten at once', async () => {
    h = await startGateway({
      ...everyService(),
      identity: { ...identityAnswers(), deleteApp: async ({ id }) => ({ id, outcome: 'deleted', app: undefined }) },
    });
    await h.get(PAGE, { 'x-api-key': APP.apiKey });
    expect((await h.inject({ method: 'DELETE', url: `/api/apps/${APP.id}`, headers: { Authorization: `Bearer ${LEARNER_SESSION}` } })).status).toBe(200);
    await h.get(PAGE, { 'x-api-key': APP.apiKey });
    expect(h.callsOf('identity', 'verifyApiKey')).toHaveLength(2);
  });

  it('when the same page is read twice, then the data service is asked once; a caller without its scope is sent to the service, which refuses', async () => {
    h = await startGateway({ identity: identityAnswers(), oauth: oauthAnswers([]), data: dataAnswers() });
    expect((await h.get(PAGE, { 'x-api-key': APP.apiKey })).status).toBe(200);
    expect((await h.get(PAGE, { Authorization: `Bearer ${APP.bearerToken}` })).status).toBe(200);
    expect(h.callsOf('data', 'getPage')).toHaveLength(1);
    // The JWT's scope claim grants nothing here: the page is not served from memory.
    expect((await h.get(PAGE, { Authorization: `Bearer ${PLAYGROUND_JWT}` })).status).toBe(403);
    expect(h.callsOf('data', 'getPage')).toHaveLength(2);
  });

  it('when DATA_PAGE_CACHE_MB is 0, then every read asks the data service', async () => {
    h = await startGateway(everyService(), { DATA_PAGE_CACHE_MB: '0' });
    await h.get(PAGE, { 'x-api-key': APP.apiKey });
    await h.get(PAGE, { 'x-api-key': APP.apiKey });
    expect(h.callsOf('data', 'getPage')).toHaveLength(2);
  });
});

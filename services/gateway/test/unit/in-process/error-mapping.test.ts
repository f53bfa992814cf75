import { AppError, GrpcStatus, resourceExhausted, storeUnavailable } from '@sandbox/runtime';
import { APP, basicOf, everyService, identityAnswers, refusedBy, transportFailure } from './fake-clients';
import { expectApiError, startGateway, type Harness } from './harness';

/**
 * A service call that fails, as the client adapter delivers the failure,
 * becomes the HTTP status of the one table (http-status.ts), in the route's
 * error format, and never shows a stack trace or an internal detail.
 */
describe('service failures at the edge', () => {
  let h: Harness;
  const catalogFailingWith = async (error: unknown) => {
    h = await startGateway({ data: { getCatalog: async () => Promise.reject(error) } });
    return h.get('/playground/data');
  };
  afterEach(async () => h.stop());

  it('when the data service is unreachable (UNAVAILABLE), then 503 service_unavailable naming it, with Retry-After 2', async () => {
    const answer = await catalogFailingWith(transportFailure('data', GrpcStatus.UNAVAILABLE));
    expectApiError(answer, 503, 'service_unavailable');
    expect(answer.json.error.message).toContain('The data service is unavailable');
    expect(answer.headers['retry-after']).toBe('2');
  });

  it.each([
    [GrpcStatus.DEADLINE_EXCEEDED, 504, 'upstream_timeout', 'The data service did not answer in time.'],
    [GrpcStatus.UNIMPLEMENTED, 501, 'not_implemented', 'The data service does not offer this yet.'],
    [GrpcStatus.CANCELLED, 499, 'cancelled', 'The request was cancelled.'],
    [GrpcStatus.INTERNAL, 500, 'internal', 'An internal error occurred.'],
    [GrpcStatus.UNKNOWN, 500, 'internal', 'An internal error occurred.'],
    [GrpcStatus.DATA_LOSS, 500, 'internal', 'An internal error occurred.'],
  ])('when the call fails with gRPC status %s, then %s %s', async (status, http, code, message) => {
    const answer = await catalogFailingWith(transportFailure('data', status, 'secret internal detail at db.js:12'));
    expectApiError(answer, http, code);
    expect(answer.json.error.message).toBe(message);
    expect(answer.text).not.toContain('db.js');
  });

  it('when NOT_FOUND comes without the service’s code, then 404 not_found with its details', async () => {
    expectApiError(await catalogFailingWith(transportFailure('data', GrpcStatus.NOT_FOUND, 'no such thing')), 404, 'not_found');
  });

  it.each([
    [new AppError(GrpcStatus.FAILED_PRECONDITION, 'app_revoked', 'The app is revoked.'), 400],
    [new AppError(GrpcStatus.ALREADY_EXISTS, 'exists', 'It exists.'), 409],
    [new AppError(GrpcStatus.ABORTED, 'conflict', 'Try again.'), 409],
    [new AppError(GrpcStatus.OUT_OF_RANGE, 'out_of_range', 'Too far.'), 400],
    [new AppError(GrpcStatus.PERMISSION_DENIED, 'forbidden', 'Not yours.'), 403],
  ])('when a service refuses with its own code (%s), then the code and message pass through with the mapped status', async (error, http) => {
    const answer = await catalogFailingWith(refusedBy('data', error));
    expectApiError(answer, http, error.code);
    expect(answer.json.error.message).toBe(error.message);
  });

  it('when a service throttles (RESOURCE_EXHAUSTED with a wait), then 429 with its Retry-After', async () => {
    const answer = await catalogFailingWith(refusedBy('data', resourceExhausted('throttled', 'Slow down.').retryAfter(7)));
    expectApiError(answer, 429, 'throttled');
    expect(answer.headers['retry-after']).toBe('7');
  });

  it('when a store behind a service is down, then 503 with the service’s words and Retry-After', async () => {
    const answer = await catalogFailingWith(refusedBy('data', storeUnavailable('store_unavailable', 'MongoDB')));
    expectApiError(answer, 503, 'store_unavailable');
    expect(answer.json.error.message).toMatch(/^MongoDB is unavailable/);
    expect(answer.headers['retry-after']).toBe('2');
  });

  it('when a handler meets something that is no AppError (a bug), then 500 internal with nothing of it in the answer', async () => {
    const answer = await catalogFailingWith(new TypeError('Cannot read properties of undefined (reading "packs") at catalog.ts:42'));
    expectApiError(answer, 500, 'internal');
    expect(answer.text).not.toMatch(/packs|catalog\.ts|TypeError/);
  });

  it('when identity is unreachable while checking a credential, then 503, not a 401 that would blame the credential', async () => {
    h = await startGateway({
      identity: { ...identityAnswers(), verifyApiKey: async () => Promise.reject(transportFailure('identity', GrpcStatus.UNAVAILABLE)) },
    });
    const answer = await h.get('/playground/auth/api-key', { 'x-api-key': APP.apiKey });
    expectApiError(answer, 503, 'service_unavailable');
    expect(answer.json.error.message).toContain('The identity service is unavailable');
  });

  it('when the oauth service is unreachable at the token endpoint, then 503 in RFC 6749’s shape, temporarily_unavailable', async () => {
    h = await startGateway({ oauth: { token: async () => Promise.reject(transportFailure('oauth', GrpcStatus.UNAVAILABLE)) } });
    const answer = await h.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basicOf(APP.appId, APP.appSecret) },
      body: 'grant_type=client_credentials',
    });
    expect({ status: answer.status, body: answer.json, retry: answer.headers['retry-after'] }).toEqual({
      status: 503,
      body: { error: 'temporarily_unavailable', error_description: expect.stringContaining('The oauth service is unavailable') },
      retry: '2',
    });
  });

  it('when the token endpoint meets an internal failure, then 500 server_error in RFC 6749’s shape', async () => {
    h = await startGateway({ oauth: { token: async () => Promise.reject(transportFailure('oauth', GrpcStatus.INTERNAL)) } });
    const answer = await h.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basicOf(APP.appId, APP.appSecret) },
      body: 'grant_type=client_credentials',
    });
    expect({ status: answer.status, body: answer.json }).toEqual({
      status: 500,
      body: { error: 'server_error', error_description: 'An internal error occurred.' },
    });
  });

  it('when the data service stops, then only its routes fail: the gateway still serves the others', async () => {
    h = await startGateway({ ...everyService(), data: { getCatalog: async () => Promise.reject(transportFailure('data', GrpcStatus.UNAVAILABLE)) } });
    expect((await h.get('/playground/data')).status).toBe(503);
    expect((await h.get('/health')).status).toBe(200);
    expect((await h.get('/playground/echo?x=1')).status).toBe(200);
  });
});

import { GrpcStatus } from '@sandbox/runtime';
import { APP, basicOf, everyService, identityAnswers, LEARNER_SESSION, OPERATOR_SESSION, transportFailure } from './fake-clients';
import { startGateway, type Answer, type Harness } from './harness';

/** An answer with what differs between any two requests (the request id) and the path it names taken out. */
const comparable = (answer: Answer, path: string) => {
  const { 'x-request-id': _id, ...headers } = answer.headers;
  return { status: answer.status, headers, text: answer.text.replace(/"requestId":"[^"]*"/, '').replaceAll(path, '(path)') };
};

/** docs/operators.md: to anyone but an operator, the operator-only rows do not exist. */
describe('the operator-only rows', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startGateway(everyService());
  });
  afterEach(async () => h.stop());

  const callers: [string, Record<string, string>][] = [
    ['no credential', {}],
    ["a learner's session", { Authorization: `Bearer ${LEARNER_SESSION}` }],
    ['a made-up token', { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl' }],
    ['an app API key', { 'x-api-key': APP.apiKey }],
    ['Basic credentials', { Authorization: basicOf(APP.appId, APP.appSecret) }],
  ];
  const rows: [string, string][] = [
    ['GET', '/api/admin/users'],
    ['GET', `/api/admin/users/${'a'.repeat(24)}`],
    ['POST', `/api/admin/users/${'a'.repeat(24)}/disable`],
    ['GET', '/api/admin/app-limits'],
    ['PUT', `/api/admin/apps/${APP.appId}/limit`],
    ['PATCH', '/api/admin/users'],
    ['HEAD', '/api/admin/app-limits'],
    ['OPTIONS', '/api/admin/users'],
  ];

  it.each(callers)('when %s asks for any method of an operator row, then exactly an unknown path’s 404, and nothing is done', async (_who, headers) => {
    const differences: string[] = [];
    for (const [method, path] of rows) {
      const twin = path.replace('/api/admin/', '/api/admix/');
      const extra: Record<string, string> = method === 'OPTIONS' ? { Origin: 'https://learner.example', 'Access-Control-Request-Method': 'DELETE' } : {};
      const body = method === 'PUT' ? '{"exempt":true}' : undefined;
      const bodyHeaders: Record<string, string> = body ? { 'Content-Type': 'application/json' } : {};
      const answer = await h.inject({ method, url: path, headers: { ...headers, ...extra, ...bodyHeaders }, body });
      const unknown = await h.inject({ method, url: twin, headers: { ...headers, ...extra, ...bodyHeaders }, body });
      if (answer.status !== 404 || JSON.stringify(comparable(answer, path)) !== JSON.stringify(comparable(unknown, twin)))
        differences.push(`${method} ${path}: ${JSON.stringify(comparable(answer, path))} vs ${JSON.stringify(comparable(unknown, twin))}`);
    }
    expect(differences).toEqual([]);
    // Only the session, if any, was checked: no operator call was made.
    expect(h.calls.filter((call) => call.method !== 'verifySession')).toEqual([]);
  });

  it('when an operator asks, then the row serves them', async () => {
    const answer = await h.get('/api/admin/app-limits', { Authorization: `Bearer ${OPERATOR_SESSION}` });
    expect({ status: answer.status, body: answer.json, cache: answer.headers['cache-control'] }).toEqual({
      status: 200,
      body: { limits: [] },
      cache: 'no-store',
    });
  });

  it('when an operator uses a method the row does not serve, then 405 with Allow, as for any row', async () => {
    const answer = await h.inject({ method: 'PATCH', url: '/api/admin/app-limits', headers: { Authorization: `Bearer ${OPERATOR_SESSION}` } });
    expect({ status: answer.status, allow: answer.headers.allow }).toEqual({ status: 405, allow: 'GET, HEAD, OPTIONS' });
  });

  it('when an operator sends a bad body, then 400 like any row (they may know the row exists)', async () => {
    const answer = await h.inject({
      method: 'PUT',
      url: `/api/admin/apps/${APP.appId}/limit`,
      headers: { Authorization: `Bearer ${OPERATOR_SESSION}`, 'Content-Type': 'application/json' },
      body: '{"exempt":',
    });
    expect({ status: answer.status, code: answer.json.error.code }).toEqual({ status: 400, code: 'malformed_body' });
  });

  it('when identity cannot be reached to check the session, then the answer is still the unknown path’s 404', async () => {
    await h.stop();
    h = await startGateway({
      identity: { ...identityAnswers(), verifySession: async () => Promise.reject(transportFailure('identity', GrpcStatus.UNAVAILABLE)) },
    });
    expect((await h.get('/api/admin/users', { Authorization: `Bearer ${OPERATOR_SESSION}` })).status).toBe(404);
  });
});

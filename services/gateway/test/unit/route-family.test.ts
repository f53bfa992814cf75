import { slowRoutesWords } from '../../src/fair-share/refusal-words';
import { routeTable } from '../../src/openapi/offline-document';

describe('route family: what a route row is for, as the row declares it', () => {
  const table = routeTable();
  const familyOf = (pattern: string) => table.find((row) => row.path === pattern)?.family;

  it.each([
    ['/playground/data/:pack/:entity', 'data'],
    ['/playground/data', 'data'],
    ['/playground/auth/api-key', 'auth'],
    ['/playground/auth/jwt/issue', 'auth'],
    ['/playground/echo', 'http'],
    ['/playground/batch', 'http'],
    ['/oauth/token', 'oauth2'],
    ['/.well-known/jwks.json', 'oauth2'],
    ['/oauth1/request_token', 'oauth1'],
    ['/api/apps/:id', 'portal'],
    ['/api/auth/sso/start', 'portal'],
    ['/api/admin/users', 'operators'],
    ['/playground', 'system'],
    ['/health', 'system'],
    ['/openapi.json', 'system'],
  ])('%s is %s', (pattern, family) => {
    expect(familyOf(pattern)).toBe(family);
  });

  it('when the route table is read, then every row that takes an app credential is in a learner family', () => {
    const families = new Set(table.filter((row) => row.auth.some((scheme) => scheme !== 'portal_session')).map((row) => row.family));
    expect([...families].every((family) => ['data', 'auth', 'http', 'oauth2', 'oauth1'].includes(family))).toBe(true);
  });

  it('when the route table is read, then every row under /playground/ is in a playground family, and every one under /api/admin an operator row', () => {
    for (const row of table) {
      if (row.path.startsWith('/playground/')) expect(['data', 'auth', 'http']).toContain(row.family);
      if (row.path.startsWith('/api/admin')) expect([row.path, row.family, row.operatorOnly]).toEqual([row.path, 'operators', true]);
    }
  });
});

describe('slow routes: the rows that take a slow-request slot, as the 429 names them', () => {
  it('when the route table is read, then the words name each slow row, with when it is slow', () => {
    expect(slowRoutesWords(routeTable())).toBe('/playground/timeout, /playground/response with a delay, /playground/batch');
  });
});

import { routeFamily } from '../../src/http/route-family';
import { routeTable } from '../../src/openapi/offline-document';

describe('routeFamily: what a route row is for, from its path pattern', () => {
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
    ['/api/admin/users', 'operators'],
    ['/playground', 'system'],
    ['/health', 'system'],
    ['/openapi.json', 'system'],
  ])('%s is %s', (pattern, family) => {
    expect(routeFamily(pattern)).toBe(family);
  });

  it('when the route table is read, then every row that takes an app credential is in a learner family', () => {
    const families = new Set(
      routeTable()
        .filter((row) => row.auth.some((scheme) => scheme !== 'portal_session'))
        .map((row) => routeFamily(row.path)),
    );
    expect([...families].every((family) => ['data', 'auth', 'http', 'oauth2', 'oauth1'].includes(family))).toBe(true);
  });
});

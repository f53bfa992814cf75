import { json } from '../../src/http/reply';
import { routeOf, type HttpMethod } from '../../src/http/route';
import { Router } from '../../src/http/router';

const row = (methods: HttpMethod | HttpMethod[], path: string) => routeOf('system')({ methods, path, summary: path, handler: () => json({}) });

describe('Router', () => {
  const router = new Router([
    row('GET', '/playground/data/:pack'),
    row(['GET', 'POST'], '/playground/echo'),
    row('DELETE', '/api/apps/:id'),
    row('GET', '/api/apps/:id'),
  ]);

  it('when a path and method match a row, then that row and its still-encoded parameters come back', () => {
    const matched = router.match('GET', '/playground/data/h%2Fr');
    expect(matched).toMatchObject({ kind: 'route', params: { pack: 'h%2Fr' } });
    expect(matched.kind === 'route' && matched.route.path).toBe('/playground/data/:pack');
  });

  it('when a path matches rows but not the method, then their methods are listed together', () => {
    const apps = router.match('POST', '/api/apps/abc');
    expect(apps.kind === 'other-method' && apps.allowed.sort()).toEqual(['DELETE', 'GET']);
    const echo = router.match('PUT', '/playground/echo');
    expect(echo.kind === 'other-method' && echo.allowed.sort()).toEqual(['GET', 'POST']);
  });

  it('HEAD is served by the GET row, and a trailing slash names the same resource', () => {
    expect(router.match('HEAD', '/playground/echo').kind).toBe('route');
    expect(router.match('GET', '/playground/echo/').kind).toBe('route');
    expect(router.match('GET', '/api/apps/abc/').kind).toBe('route');
  });

  it('when no row matches, then there is no answer', () => {
    expect(router.match('GET', '/nothing/here').kind).toBe('none');
    expect(router.match('GET', '/playground/data/a/b/c').kind).toBe('none');
  });

  it('when two rows claim one method at one path, then the table is refused at start', () => {
    expect(() => new Router([row('GET', '/x'), row(['GET', 'POST'], '/x')])).toThrow('two routes for GET /x');
  });
});

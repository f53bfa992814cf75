import { hrefOf, parseRoute, type Route } from '../../portal/src/route';

/*
 * The portal's screens in the URL's hash (portal/src/route.ts): every route
 * the page links to reads back as itself, and anything else is the app list.
 */
describe('portal routes', () => {
  const APP = '0123456789abcdef01234567';
  const routes: Route[] = [
    { screen: 'apps' },
    { screen: 'app', id: APP },
    { screen: 'start', id: APP },
    { screen: 'start', id: APP, style: 'basic' },
    { screen: 'start', id: APP, style: 'oauth2_authorization_code' },
    { screen: 'exercises' },
    { screen: 'classes' },
    { screen: 'class', id: '6a01c0a95e2b4d7a9c3e1f77' },
  ];

  it.each(routes.map((route) => [hrefOf(route), route]))('when %s is read, then it is the route it was written from', (href, route) => {
    expect(parseRoute(href)).toEqual(route);
  });

  it('when a hash is not a screen of the page (an unknown screen, a malformed id, a style with other characters), then it is the app list', () => {
    for (const hash of ['', '#', '#/nowhere', '#/apps/xyz', `#/apps/${APP}/start/Basic`, `#/apps/${APP}/start/a/b`, '#/classes/a/b', '#/exercises/x']) {
      expect({ hash, route: parseRoute(hash) }).toEqual({ hash, route: { screen: 'apps' } });
    }
  });

  it('when a trailing slash is typed, then the screen is the same', () => {
    expect(parseRoute('#/exercises/')).toEqual({ screen: 'exercises' });
    expect(parseRoute(`#/apps/${APP}/start/page/`)).toEqual({ screen: 'start', id: APP, style: 'page' });
  });
});

import { useEffect, useState } from 'preact/hooks';

/*
 * Where the learner is, in the URL's hash: #/apps, #/apps/<id>,
 * #/apps/<id>/start. Only ids and names of screens, never a secret.
 */
export type Route = { screen: 'apps' } | { screen: 'app'; id: string } | { screen: 'start'; id: string };

export function parseRoute(hash: string): Route {
  const match = /^#\/apps\/([0-9a-f]{24})(\/start)?\/?$/.exec(hash);
  if (!match) return { screen: 'apps' };
  return match[2] ? { screen: 'start', id: match[1] } : { screen: 'app', id: match[1] };
}

export const hrefOf = (route: Route): string =>
  route.screen === 'apps' ? '#/apps' : route.screen === 'app' ? `#/apps/${route.id}` : `#/apps/${route.id}/start`;

export function navigate(route: Route): void {
  location.hash = hrefOf(route);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

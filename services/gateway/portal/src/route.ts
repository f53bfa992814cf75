/*
 * Where the learner is, in the URL's hash: #/apps, #/apps/<id>,
 * #/apps/<id>/start (optionally /start/<style>, the snippet style to show
 * first), #/exercises, and for operators #/classes and #/classes/<id>. Only
 * ids and names of screens, never a secret. Pure (no Preact, no DOM but
 * `navigate`), so the unit tests read it as the page does; useRoute in
 * components/hooks.ts follows the hash.
 */
export type Route =
  | { screen: 'apps' }
  | { screen: 'app'; id: string }
  | { screen: 'start'; id: string; style?: string }
  | { screen: 'exercises' }
  | { screen: 'classes' }
  | { screen: 'class'; id: string };

export function parseRoute(hash: string): Route {
  if (/^#\/exercises\/?$/.test(hash)) return { screen: 'exercises' };
  if (/^#\/classes\/?$/.test(hash)) return { screen: 'classes' };
  const klass = /^#\/classes\/([A-Za-z0-9_-]{1,64})\/?$/.exec(hash);
  if (klass) return { screen: 'class', id: klass[1] };
  const match = /^#\/apps\/([0-9a-f]{24})(\/start(?:\/([a-z0-9_]{1,40}))?)?\/?$/.exec(hash);
  if (!match) return { screen: 'apps' };
  if (!match[2]) return { screen: 'app', id: match[1] };
  return match[3] ? { screen: 'start', id: match[1], style: match[3] } : { screen: 'start', id: match[1] };
}

export function hrefOf(route: Route): string {
  switch (route.screen) {
    case 'apps':
      return '#/apps';
    case 'app':
      return `#/apps/${route.id}`;
    case 'start':
      return `#/apps/${route.id}/start${route.style ? `/${route.style}` : ''}`;
    case 'exercises':
      return '#/exercises';
    case 'classes':
      return '#/classes';
    case 'class':
      return `#/classes/${encodeURIComponent(route.id)}`;
  }
}

export function navigate(route: Route): void {
  location.hash = hrefOf(route);
}

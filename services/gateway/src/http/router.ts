import { match, type MatchFunction } from 'path-to-regexp';
import type { HttpMethod, Route } from './route';

export type Matched =
  /** A row serves this method at this path. */
  | { kind: 'route'; route: Route; params: Record<string, string> }
  /** Rows serve this path, but not with this method. */
  | { kind: 'other-method'; allowed: HttpMethod[]; routes: Route[] }
  | { kind: 'none' };

interface PathEntry {
  path: string;
  matches?: MatchFunction<Record<string, string>>;
  byMethod: Map<string, Route>;
  routes: Route[];
}

const NONE: Matched = { kind: 'none' };
const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null));

/**
 * The gateway's one route matcher. Paths without parameters are found in a
 * map; the rest are tried in table order. HEAD is served by the GET row.
 * Parameters come back still percent-encoded (see context.ts, which decodes
 * them), so that an encoded slash cannot split a segment.
 */
export class Router {
  private readonly exact = new Map<string, PathEntry>();
  private readonly patterns: PathEntry[] = [];

  constructor(readonly routes: readonly Route[]) {
    for (const route of routes) {
      const entry = this.entryFor(route.path);
      // A path is either hidden or not: a public row beside an operator-only one would answer 405 naming the hidden methods.
      if (entry.routes.some((other) => other.operatorOnly !== route.operatorOnly))
        throw new Error(`${route.path}: operator-only and public rows share the path`);
      entry.routes.push(route);
      for (const method of route.methods) {
        if (entry.byMethod.has(method)) throw new Error(`two routes for ${method} ${route.path}`);
        entry.byMethod.set(method, route);
      }
    }
  }

  match(method: string, path: string): Matched {
    // A trailing slash names the same resource, as path-to-regexp's patterns allow it.
    let entry = this.exact.get(path) ?? (path.length > 1 && path.endsWith('/') ? this.exact.get(path.slice(0, -1)) : undefined);
    let params = NO_PARAMS;
    if (!entry) {
      for (const candidate of this.patterns) {
        const found = candidate.matches!(path);
        if (found) {
          entry = candidate;
          params = found.params;
          break;
        }
      }
      if (!entry) return NONE;
    }
    const route = entry.byMethod.get(method === 'HEAD' ? 'GET' : method);
    if (route) return { kind: 'route', route, params };
    return { kind: 'other-method', allowed: [...entry.byMethod.keys()] as HttpMethod[], routes: entry.routes };
  }

  private entryFor(path: string): PathEntry {
    const known = this.exact.get(path) ?? this.patterns.find((p) => p.path === path);
    if (known) return known;
    const entry: PathEntry = { path, byMethod: new Map(), routes: [] };
    if (/[:*{]/.test(path)) {
      entry.matches = match(path, { decode: false });
      this.patterns.push(entry);
    } else this.exact.set(path, entry);
    return entry;
  }
}

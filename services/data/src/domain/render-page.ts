import { createHash } from 'node:crypto';
import { challenges } from '@sandbox/contracts';
import { permissionDenied } from './errors';
import { buildNextLink, type NextLink } from './next-link';
import { readPageQuery } from './page-query';
import type { SigningKey } from './page-token';
import { nextPage, paginationInfo, planPage } from './pagination';
import { findEntity, findPack } from './packs';
import { shapeRows } from './shapes';

/** Field for field the gRPC GetPageRequest, so the handler passes it straight through. */
export interface PageRequest {
  readonly pack: string;
  readonly entity: string;
  /** The query string exactly as the client sent it, without "?". */
  readonly rawQuery: string;
  /** Scopes the caller's credential holds. */
  readonly grantedScopes: readonly string[];
  /** Absolute URL of the data API's root as the client addresses it (the gateway decides where it is mounted); every link starts with it. */
  readonly rootUrl: string;
}

export interface RenderedPage {
  /** The "page of data" body as JSON bytes. */
  readonly bodyJson: Buffer;
  /** Strong entity tag of bodyJson, quoted. */
  readonly etag: string;
  /** RFC 8288 Link header value; '' when there is none. */
  readonly link: string;
  /** The scope reading this page needs, so a caller that keeps pages can check it before serving one again. */
  readonly scope: string;
}

/**
 * One page of an entity. Checks run in the order the edge answers them: a
 * page parameter given twice (INVALID_ARGUMENT, as when the gateway split the
 * query), unknown pack or entity (NOT_FOUND), the missing scope
 * (PERMISSION_DENIED), then parameter values, cursors and tokens (INVALID_ARGUMENT).
 */
export function renderPage(request: PageRequest, signingKey: SigningKey): RenderedPage {
  const query = readPageQuery(request.rawQuery);
  const pack = findPack(request.pack);
  const entity = findEntity(request.pack, request.entity);
  if (!request.grantedScopes.includes(pack.scope)) {
    // RFC 6750 3.1: a bearer token without the scope is told which scope the resource needs.
    throw permissionDenied('missing_scope', `Reading the ${pack.name} pack needs the scope ${pack.scope}, which this app does not hold.`).withChallenge(
      challenges.insufficientScopeChallenge(pack.scope),
    );
  }
  const plan = planPage(query.paging, entity, signingKey);
  const start = Math.min(plan.start, entity.count);
  const returned = Math.min(plan.size, entity.count - start);
  const data = shapeRows(entity, plan.shape, start, returned);

  let link: NextLink | null = null;
  let pageToken: string | null = null;
  if (start + returned < entity.count) {
    const next = nextPage(plan, entity, signingKey);
    link = buildNextLink({ rootUrl: request.rootUrl, pack: pack.name, entity: entity.name, passthrough: query.passthrough }, next.paging);
    pageToken = next.pageToken;
  }

  // Built field by field so the key order is the spec's.
  const body: Record<string, unknown> = { pack: pack.name, entity: entity.name, shape: plan.shape };
  if (link) body['nextLink'] = link.absolute;
  if (pageToken) body['nextPageToken'] = pageToken;
  body['pagination'] = paginationInfo(plan, entity.count, returned, link);
  body['data'] = data;

  const bodyJson = Buffer.from(JSON.stringify(body));
  return {
    bodyJson,
    etag: `"${createHash('sha1').update(bodyJson).digest('base64url')}"`,
    link: plan.style === 'link' && link ? `<${link.absolute}>; rel="next"` : '',
    scope: pack.scope,
  };
}

import { createHash } from 'node:crypto';
import { permissionDenied } from './errors';
import { buildNextLink, type NextLink } from './next-link';
import type { SigningKey } from './page-token';
import { nextPage, paginationInfo, planPage, type PagingQuery } from './pagination';
import { findEntity, findPack } from './packs';
import { shapeRows } from './shapes';

export interface PageRequest extends PagingQuery {
  readonly pack: string;
  readonly entity: string;
  /** Scopes the caller's credential holds. */
  readonly grantedScopes: readonly string[];
  /** Absolute base of public URLs, e.g. "https://sandbox.example/prefix". */
  readonly baseUrl: string;
  /** Path of this resource under the base; defaults to /playground/data/{pack}/{entity}. */
  readonly path?: string;
  /** Other query parameters the client sent (e.g. api_key): kept in next links so following them unchanged keeps working. */
  readonly passthroughQuery?: Readonly<Record<string, string>>;
}

export interface RenderedPage {
  /** The "page of data" body as JSON bytes. */
  readonly bodyJson: Buffer;
  /** Strong entity tag of bodyJson, quoted. */
  readonly etag: string;
  /** RFC 8288 Link header value; '' when there is none. */
  readonly link: string;
}

/**
 * One page of an entity. Checks run in the order the edge answers them:
 * unknown pack or entity (NOT_FOUND), then the missing scope
 * (PERMISSION_DENIED), then parameters, cursors and tokens (INVALID_ARGUMENT).
 */
export function renderPage(request: PageRequest, signingKey: SigningKey): RenderedPage {
  const pack = findPack(request.pack);
  const entity = findEntity(request.pack, request.entity);
  if (!request.grantedScopes.includes(pack.scope)) {
    throw permissionDenied('missing_scope', `Reading the ${pack.name} pack needs the scope ${pack.scope}, which this app does not hold.`);
  }
  const plan = planPage(request, entity, signingKey);
  const start = Math.min(plan.start, entity.count);
  const returned = Math.min(plan.size, entity.count - start);
  const data = shapeRows(entity, plan.shape, start, returned);

  let link: NextLink | null = null;
  let pageToken: string | null = null;
  if (start + returned < entity.count) {
    const next = nextPage(plan, entity, signingKey);
    link = buildNextLink(
      { baseUrl: request.baseUrl, path: request.path ?? `/playground/data/${pack.name}/${entity.name}`, passthrough: request.passthroughQuery ?? {} },
      next.paging,
    );
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
  };
}

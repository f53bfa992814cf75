import { createHash } from 'node:crypto';
import { challenges } from '@sandbox/contracts';
import { permissionDenied } from './errors';
import { buildNextLink, type NextLink } from './next-link';
import { readPageQuery } from './page-query';
import type { SigningKey } from './page-token';
import { nextPage, paginationInfo, planPage } from './pagination';
import { findEntity, findPack } from './packs';
import type { EntityDefinition } from './entity';
import { formOf, RowTextCache, withMembers } from './row-text';
import { headerOf, type Shape } from './shapes';

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
  /** How it was asked for, whether it is the entity's last page, and the entity's rows: facts for the exercises (docs/exercises.md). */
  readonly paginationStyle: string;
  readonly lastPage: boolean;
  readonly entityRows: number;
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

  let link: NextLink | null = null;
  let pageToken: string | null = null;
  if (start + returned < entity.count) {
    const next = nextPage(plan, entity, signingKey);
    link = buildNextLink({ rootUrl: request.rootUrl, pack: pack.name, entity: entity.name, passthrough: query.passthrough }, next.paging);
    pageToken = next.pageToken;
  }

  // Built field by field so the key order is the spec's; `data` is last, so
  // its text goes in place of the closing brace.
  const body: Record<string, unknown> = { pack: pack.name, entity: entity.name, shape: plan.shape };
  if (link) body['nextLink'] = link.absolute;
  if (pageToken) body['nextPageToken'] = pageToken;
  body['pagination'] = paginationInfo(plan, entity.count, returned, link);
  const envelope = JSON.stringify(body);

  const parts: string[] = [];
  dataTexts(entity, plan.shape, start, start + returned, parts);
  const bodyJson = Buffer.from(`${envelope.slice(0, -1)},"data":[${parts.join(',')}]}`);
  return {
    bodyJson,
    etag: `"${createHash('sha1').update(bodyJson).digest('base64url')}"`,
    link: plan.style === 'link' && link ? `<${link.absolute}>; rel="next"` : '',
    scope: pack.scope,
    paginationStyle: plan.style,
    lastPage: start + returned >= entity.count,
    entityRows: entity.count,
  };
}

/**
 * Every page is built from rows serialised once (row-text.ts) rather than
 * from objects serialised whole: the bytes are the same as JSON.stringify of
 * the page's objects (services/data/test/unit/render-page-bytes.test.ts holds
 * them to the renderer this replaced), for a fraction of the work.
 */
const rowTexts = new RowTextCache();

/** The texts of the elements of the page's `data` array, rows [start, end) of the entity, in `shape`. */
function dataTexts(entity: EntityDefinition, shape: Shape, start: number, end: number, out: string[]): void {
  if (shape === 'list-of-lists') out.push(headerText(entity));
  if (shape !== 'nested-list') {
    rowTexts.appendRows(entity, formOf(shape), start, end, out);
    return;
  }
  const relation = entity.nestedList;
  if (relation.kind === 'children') {
    const child = relation.child();
    for (let i = start; i < end; i++) {
      const range = relation.childrenOf(i);
      const children: string[] = [];
      rowTexts.appendRows(child, 'flat', range.start, range.start + range.count, children);
      out.push(withMembers(rowTexts.row(entity, 'flat', i), relation.key, children));
    }
    return;
  }
  // Consecutive rows sharing a parent go under that parent's row; a group cut by the page's end continues on the next page.
  const parent = relation.parent();
  const own: string[] = [];
  rowTexts.appendRows(entity, 'flat', start, end, own);
  let groupStart = 0;
  while (groupStart < own.length) {
    const p = relation.parentOf(start + groupStart);
    let groupEnd = groupStart + 1;
    while (groupEnd < own.length && relation.parentOf(start + groupEnd) === p) groupEnd++;
    out.push(withMembers(rowTexts.row(parent, 'flat', p), relation.key, own.slice(groupStart, groupEnd)));
    groupStart = groupEnd;
  }
}

const headerTexts = new WeakMap<EntityDefinition, string>();
function headerText(entity: EntityDefinition): string {
  let text = headerTexts.get(entity);
  if (text === undefined) {
    text = JSON.stringify(headerOf(entity));
    headerTexts.set(entity, text);
  }
  return text;
}

// A frozen copy of the page renderer as it was before rows were serialised
// once (issue #36, "Data pages rendered once"): it builds every page as
// objects and serialises it whole with JSON.stringify. Kept only for
// render-page-bytes.test.ts, which holds the fast renderer to these bytes, so
// production has one way of rendering. Do not "fix" this file along with
// src: it is the definition of the bytes a page had, and changing the answer
// on purpose means changing both and saying so in docs/data.md.
import { createHash } from 'node:crypto';
import { challenges } from '@sandbox/contracts';
import type { EntityDefinition, Row, Value } from '../../src/domain/entity';
import { permissionDenied } from '../../src/domain/errors';
import { buildNextLink, type NextLink } from '../../src/domain/next-link';
import { readPageQuery } from '../../src/domain/page-query';
import type { SigningKey } from '../../src/domain/page-token';
import { nextPage, paginationInfo, planPage } from '../../src/domain/pagination';
import { findEntity, findPack } from '../../src/domain/packs';
import type { Shape } from '../../src/domain/shapes';
import type { PageRequest, RenderedPage } from '../../src/domain/render-page';

// shapes.ts as it was, verbatim but for exports.
type Member = readonly [as: string, field: string];
type NestPlanEntry =
  { readonly kind: 'field'; readonly key: string; readonly field: string } | { readonly kind: 'group'; readonly key: string; readonly members: Member[] };

interface EntityPlans {
  readonly header: readonly string[];
  readonly nest: readonly NestPlanEntry[];
}

// Built once per entity from its field definitions, so the per-row work is plain loops.
const plans = new WeakMap<EntityDefinition, EntityPlans>();

function plansOf(entity: EntityDefinition): EntityPlans {
  let plan = plans.get(entity);
  if (plan) return plan;
  const nest: NestPlanEntry[] = [];
  const groups = new Map<string, Member[]>();
  for (const field of entity.fields) {
    if (!field.nest) {
      nest.push({ kind: 'field', key: field.name, field: field.name });
      continue;
    }
    let members = groups.get(field.nest.in);
    if (!members) {
      members = [];
      groups.set(field.nest.in, members);
      // A group sits where its first field would have been.
      nest.push({ kind: 'group', key: field.nest.in, members });
    }
    members.push([field.nest.as, field.name]);
  }
  const keys = nest.map((entry) => entry.key);
  if (new Set(keys).size !== keys.length) throw new Error(`${entity.pack}/${entity.name}: a nested group collides with a field name`);
  plan = { header: entity.fields.map((f) => f.name), nest };
  plans.set(entity, plan);
  return plan;
}

function nestRow(entity: EntityDefinition, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const entry of plansOf(entity).nest) {
    if (entry.kind === 'field') {
      out[entry.key] = row[entry.field];
    } else {
      const group: Record<string, Value | undefined> = {};
      for (const [as, field] of entry.members) group[as] = row[field];
      out[entry.key] = group;
    }
  }
  return out;
}

function rowValues(header: readonly string[], row: Row): Value[] {
  const values = new Array<Value>(header.length);
  for (let f = 0; f < header.length; f++) values[f] = row[header[f]!]!;
  return values;
}

/** The `data` array of a page holding rows [start, start + count) of the entity. */
function shapeRows(entity: EntityDefinition, shape: Shape, start: number, count: number): unknown[] {
  const end = start + count;
  const data: unknown[] = [];
  switch (shape) {
    case 'flat':
      for (let i = start; i < end; i++) data.push(entity.row(i));
      return data;
    case 'list-of-lists': {
      const { header } = plansOf(entity);
      data.push(header);
      for (let i = start; i < end; i++) data.push(rowValues(header, entity.row(i)));
      return data;
    }
    case 'nested':
      for (let i = start; i < end; i++) data.push(nestRow(entity, entity.row(i)));
      return data;
    case 'nested-list':
      return nestedList(entity, start, end);
  }
}

function nestedList(entity: EntityDefinition, start: number, end: number): unknown[] {
  const data: unknown[] = [];
  const relation = entity.nestedList;
  if (relation.kind === 'children') {
    const child = relation.child();
    for (let i = start; i < end; i++) {
      const range = relation.childrenOf(i);
      const children: Row[] = [];
      for (let c = range.start; c < range.start + range.count; c++) children.push(child.row(c));
      data.push({ ...entity.row(i), [relation.key]: children });
    }
    return data;
  }
  const parent = relation.parent();
  let current = -1;
  let members: Row[] = [];
  for (let i = start; i < end; i++) {
    const p = relation.parentOf(i);
    if (p !== current) {
      current = p;
      members = [];
      data.push({ ...parent.row(p), [relation.key]: members });
    }
    members.push(entity.row(i));
  }
  return data;
}

export function referenceRenderPage(request: PageRequest, signingKey: SigningKey): Pick<RenderedPage, 'bodyJson' | 'etag' | 'link' | 'scope'> {
  const query = readPageQuery(request.rawQuery);
  const pack = findPack(request.pack);
  const entity = findEntity(request.pack, request.entity);
  if (!request.grantedScopes.includes(pack.scope)) {
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

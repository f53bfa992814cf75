import { DATASET_VERSION, REFERENCE_DATE } from './dataset';
import type { EntityDefinition } from './entity';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PAGINATION_FIELDS, STYLE_RULES } from './pagination';
import { findPack, findEntity, PACKS } from './packs';
import { describeNested, describeNestedList, SHAPE_DESCRIPTIONS, SHAPES, shapeRows } from './shapes';
import { entityUrl, packUrl } from './urls';

/** The shapes are shown on a small entity whose every shape fits in a few lines. */
const SHAPE_EXAMPLE = findEntity('cricket', 'matches');

function paginationStyles(rootUrl: string) {
  const url = entityUrl(rootUrl, 'hr', 'employees');
  return [
    { name: 'page', how: 'Send page and page_size; add 1 to page for the next page.', example: `${url}?page=2&page_size=${DEFAULT_PAGE_SIZE}` },
    { name: 'offset', how: 'Send offset and limit; add limit to offset for the next page.', example: `${url}?offset=100&limit=${DEFAULT_PAGE_SIZE}` },
    { name: 'cursor', how: 'Send paginate=cursor; then follow pagination.next (or next_url) unchanged until it is null.', example: `${url}?paginate=cursor` },
    { name: 'token', how: 'Send paginate=token; send each nextPageToken back as pageToken until the response has none.', example: `${url}?paginate=token` },
    { name: 'link', how: 'Send paginate=link; follow the rel="next" URL of the Link header until there is none.', example: `${url}?paginate=link` },
  ];
}

/** The catalog at the data API's root: packs, entities, shapes and pagination styles, linked from `rootUrl`. */
export function catalog(rootUrl: string) {
  return {
    dataset_version: DATASET_VERSION,
    reference_date: REFERENCE_DATE,
    packs: PACKS.map((pack) => ({
      name: pack.name,
      scope: pack.scope,
      description: pack.description,
      url: packUrl(rootUrl, pack.name),
      entities: pack.entities.map((entity) => ({
        name: entity.name,
        description: entity.description,
        rows: entity.count,
        url: entityUrl(rootUrl, entity.pack, entity.name),
      })),
    })),
    shapes: SHAPES.map((shape) => ({
      name: shape,
      default: shape === 'flat',
      description: SHAPE_DESCRIPTIONS[shape],
      example: { pack: SHAPE_EXAMPLE.pack, entity: SHAPE_EXAMPLE.name, data: shapeRows(SHAPE_EXAMPLE, shape, 0, 1) },
    })),
    pagination: {
      default_page_size: DEFAULT_PAGE_SIZE,
      max_page_size: MAX_PAGE_SIZE,
      styles: paginationStyles(rootUrl),
      rules: STYLE_RULES,
      body: {
        nextLink: 'Absolute URL of the next page, in every style; absent on the last page. Following it alone pages through any style.',
        nextPageToken: 'Token style only: the value to send as pageToken; absent on the last page.',
        pagination: PAGINATION_FIELDS,
      },
    },
  };
}

function describeEntity(rootUrl: string, entity: EntityDefinition) {
  return {
    name: entity.name,
    description: entity.description,
    rows: entity.count,
    url: entityUrl(rootUrl, entity.pack, entity.name),
    primary_key: entity.primaryKey,
    fields: entity.fields.map((field) => ({
      name: field.name,
      type: field.type,
      meaning: field.meaning,
      nullable: field.nullable === true,
      ...(field.references ? { references: `${field.references.entity}.${field.references.field}` } : {}),
      nested_as: field.nest ? `${field.nest.in}.${field.nest.as}` : field.name,
    })),
    shapes: { nested: describeNested(entity), 'nested-list': describeNestedList(entity) },
    sample: entity.row(0),
  };
}

/** The description at {root}/{pack}: each entity's fields, a sample row and counts. */
export function describePack(packName: string, rootUrl: string) {
  const pack = findPack(packName);
  return {
    name: pack.name,
    scope: pack.scope,
    description: pack.description,
    dataset_version: DATASET_VERSION,
    reference_date: REFERENCE_DATE,
    url: packUrl(rootUrl, pack.name),
    entities: pack.entities.map((entity) => describeEntity(rootUrl, entity)),
  };
}

// The data service's domain: generated datasets, shapes, pagination and page
// rendering. Pure: no I/O, no clock, no environment.
export { catalog, describePack } from './catalog';
export { DATASET_VERSION, REFERENCE_DATE } from './dataset';
export type { EntityDefinition, FieldDefinition, FieldType, PackDefinition, Row, Value } from './entity';
export { DomainError } from './errors';
export type { SigningKey } from './page-token';
export { PAGE_PARAMETERS, readPageQuery, type PageParameter, type PageQuery, type PagingQuery } from './page-query';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PAGINATE_VALUES, type PaginationStyle } from './pagination';
export { ENTITIES, findEntity, findPack, PACKS } from './packs';
export { renderPage, type PageRequest, type RenderedPage } from './render-page';
export { SHAPES, type Shape } from './shapes';

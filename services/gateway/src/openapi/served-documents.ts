import type { Route } from '../http/route';
import { buildOpenApiDocument, servedAt, type OpenApiDocument, type SchemeWords } from './document';

/**
 * The API's contract as GET /openapi.json and /openapi.yaml serve it
 * (routes/system/openapi-routes.ts, through deps.apiDocument): built from
 * the route rows themselves the first time it is asked for (every row
 * exists by then) and kept: only `servers` changes per request, to the
 * public base URL the client sees. Two are kept: the one everybody gets,
 * without the operator-only rows, and the one an operator's session gets,
 * with them (docs/operators.md).
 */
export function servedDocuments(rows: () => readonly Route[], words: SchemeWords): (baseUrl: string, operator: boolean) => OpenApiDocument {
  const built = new Map<boolean, OpenApiDocument>();
  return (baseUrl, operator) => {
    let document = built.get(operator);
    if (!document) built.set(operator, (document = buildOpenApiDocument(rows(), words, { operator })));
    return servedAt(document, baseUrl);
  };
}

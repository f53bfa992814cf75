import { stringify } from 'yaml';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import type { RouteContext } from '../http/context';
import type { Contract } from '../http/contract';
import { json, type Reply } from '../http/reply';
import { route, type Route } from '../http/route';
import { whenReady } from '../maybe-async';
import { buildOpenApiDocument, servedAt, type OpenApiDocument } from '../openapi/document';

/** The document, loosely: a client that needs more reads it with an OpenAPI parser. */
const openApiObject = z
  .looseObject({
    openapi: z.string().meta({ example: '3.1.0' }),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0).' });
const asJson = { responses: { 200: { description: 'This API, as JSON.', schema: openApiObject } }, noUpstreamRefusals: true } satisfies Contract;
const asYaml = {
  responses: { 200: { description: 'This API, as YAML: the same document.', schema: openApiObject, contentType: 'application/yaml' } },
  noUpstreamRefusals: true,
} satisfies Contract;

/**
 * The API's contract, built from the route rows themselves the first time it
 * is asked for (every row exists by then) and kept: only `servers` changes
 * per request, to the public base URL the client sees. Two are kept: the
 * one everybody gets, without the operator-only rows, and the one an
 * operator's session gets, with them (docs/operators.md).
 */
export function openApiRoutes(deps: GatewayDeps, allRoutes: () => readonly Route[]): Route[] {
  const built = new Map<boolean, OpenApiDocument>();
  const documentFor = (ctx: RouteContext, operator: boolean): OpenApiDocument => {
    let document = built.get(operator);
    if (!document) built.set(operator, (document = buildOpenApiDocument(allRoutes(), (name) => deps.describeAuth([name])[0]!.how, { operator })));
    return servedAt(document, ctx.baseUrl);
  };
  /** The document for whoever asks; the answer depends on it, so a shared cache must keep the two apart. */
  const serve = (ctx: RouteContext, render: (document: OpenApiDocument) => Reply) =>
    whenReady(deps.isOperator?.(ctx) ?? false, (operator) => {
      const reply = render(documentFor(ctx, operator));
      reply.headers.Vary = 'Authorization';
      return reply;
    });

  return [
    route({
      methods: 'GET',
      path: '/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document (JSON).',
      contract: asJson,
      rateLimited: false,
      handler: (ctx) => serve(ctx, (document) => json(document)),
    }),
    route({
      methods: 'GET',
      path: '/openapi.yaml',
      summary: 'This API as an OpenAPI 3.1 document (YAML).',
      contract: asYaml,
      rateLimited: false,
      handler: (ctx) =>
        serve(ctx, (document) => ({
          status: 200,
          headers: { 'Content-Type': 'application/yaml; charset=utf-8' },
          body: Buffer.from(stringify(document, { aliasDuplicateObjects: false })),
        })),
    }),
  ];
}

import type * as Yaml from 'yaml';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import type { RouteContext } from '../../http/context';
import type { Contract } from '../../http/contract';
import { json, type Reply } from '../../http/reply';
import { routeOf, type Route } from '../../http/route';
import { whenReady } from '../../maybe-async';

/** Every row here is for system (http/route-family.ts). */
const route = routeOf('system');

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
 * The API's contract, as the route table says it (openapi/, through
 * deps.apiDocument): the one everybody gets, without the operator-only
 * rows, or the one an operator's session gets, with them
 * (docs/operators.md), served at the public base URL the client sees.
 */
export function openApiRoutes(deps: GatewayDeps): Route[] {
  /** The document for whoever asks; the answer depends on it, so a shared cache must keep the two apart. */
  const serve = (ctx: RouteContext, render: (document: object) => Reply) =>
    whenReady(deps.isOperator?.(ctx) ?? false, (operator) => {
      const reply = render(deps.apiDocument(ctx.baseUrl, operator));
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
          body: Buffer.from(yaml().stringify(document, { aliasDuplicateObjects: false })),
        })),
    }),
  ];
}

/** The YAML writer, loaded when the YAML document is first asked for rather than by every gateway at start (docs/decisions.md, "Memory at rest"). */
function yaml(): typeof Yaml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('yaml') as typeof Yaml;
}

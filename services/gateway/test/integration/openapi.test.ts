import { appendFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import { parse } from 'yaml';
import { eventually, OpenApiChecker, rawRequest, startSystem, type RawResponse, type RunningSystem } from '@sandbox/testing';
import { answersBreakingTheContract } from '../../../../test/support/answer-log';
import type { Route } from '../../src/http/route';
import { offlineOpenApiDocument, routeTable } from '../../src/openapi/offline-document';

jest.setTimeout(90_000);

/*
 * The OpenAPI document the gateway serves, built from its route rows: valid
 * OpenAPI 3.1 by a maintained validator, covering every row, with the
 * security schemes a client generator needs and the public base URL.
 */

/** The gateway's rows as the server builds them (building a row calls no service). */
const routeRows = (): Route[] => routeTable();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is checked by the validator, not by types
type Document = Record<string, any>;

describe('the OpenAPI document', () => {
  let system: RunningSystem;
  let document: Document;
  beforeAll(async () => {
    system = await startSystem();
    const res = await rawRequest(`${system.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    document = res.json();
  });
  afterAll(() => system?.stop());

  it("when validated by swagger-parser, then it is a valid OpenAPI 3.1 document, and so is an operator's", async () => {
    expect(document.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    await expect(SwaggerParser.validate(offlineOpenApiDocument(system.baseUrl, { operator: true }) as never)).resolves.toBeDefined();
  });

  it("when compared with the route table, then every row and method has an operation, with a unique operationId; the operator-only rows only in an operator's document", () => {
    const operations = (doc: Document, rows: Route[]) =>
      rows.flatMap((row) =>
        row.methods.filter((method) => doc.paths[row.path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()]).map((method) => `${method} ${row.path}`),
      );
    const everyOperation = (rows: Route[]) => rows.flatMap((row) => row.methods.map((method) => `${method} ${row.path}`));
    const [publicRows, operatorRows] = [routeRows().filter((row) => !row.operatorOnly), routeRows().filter((row) => row.operatorOnly)];
    expect(operatorRows.length).toBeGreaterThan(0);
    expect(operations(document, publicRows)).toEqual(everyOperation(publicRows));
    expect(operations(document, operatorRows)).toEqual([]);
    const operators = offlineOpenApiDocument(system.baseUrl, { operator: true }) as Document;
    expect(operations(operators, routeRows())).toEqual(everyOperation(routeRows()));
    for (const doc of [document, operators]) {
      const ids = Object.values(doc.paths).flatMap((item) => Object.values(item as Document).map((op) => (op as Document).operationId));
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('when a client reads the security schemes, then every auth style is there with its standard type', () => {
    const schemes = document.components.securitySchemes;
    expect(schemes.api_key_header).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(schemes.api_key_query).toMatchObject({ type: 'apiKey', in: 'query', name: 'api_key' });
    expect(schemes.basic).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(schemes.digest).toMatchObject({ type: 'http', scheme: 'digest' });
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.oauth2).toMatchObject({ type: 'oauth2', flows: { clientCredentials: expect.any(Object), authorizationCode: expect.any(Object) } });
    expect(schemes.hmac.description).toMatch(/HMAC/i);
  });

  it('when servers is read, then it is the base URL the client used', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: system.baseUrl })]);
  });

  it('when the sandbox sits behind a proxy prefix, then the OAuth 2.0 flow URLs keep it (absolute under the public base URL)', () => {
    const behindProxy = offlineOpenApiDocument('https://host.example/sandbox') as Document;
    const { flows } = behindProxy.components.securitySchemes.oauth2;
    expect(flows.clientCredentials.tokenUrl).toBe('https://host.example/sandbox/oauth/token');
    expect(flows.authorizationCode).toMatchObject({
      authorizationUrl: 'https://host.example/sandbox/oauth/authorize',
      tokenUrl: 'https://host.example/sandbox/oauth/token',
    });
    expect(document.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(`${system.baseUrl}/oauth/token`);
  });

  it('when the YAML form is fetched, then it is the same document', async () => {
    const res = await rawRequest(`${system.baseUrl}/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    expect(parse(res.body)).toEqual(document);
  });

  it('when an error is documented, then it is the API error shape, or RFC 6749 on the OAuth endpoints', () => {
    const refusal = document.paths['/api/apps/{id}'].get.responses['404'].content['application/json'].schema;
    expect(refusal).toEqual({ $ref: '#/components/schemas/Error' });
    const oauth = document.paths['/oauth/token'].post.responses['400'].content['application/json'].schema;
    expect(oauth).toEqual({ $ref: '#/components/schemas/OAuthError' });
  });
});

/**
 * The HTTP-practice and system routes, asked for real: each answer (a
 * success and, where the route has one, a refusal) must be one the served
 * document allows for that operation: its status documented (exactly, by
 * its class, or default), its content type, its body by the schema, and
 * any header marked required.
 */
describe('the HTTP-practice and system routes, as the served document describes them', () => {
  let system: RunningSystem;
  let checker: OpenApiChecker;
  beforeAll(async () => {
    system = await startSystem();
    checker = await OpenApiChecker.fetch(system.baseUrl);
  });
  afterAll(() => system?.stop());

  interface Case {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** The status this case is about: the request must really get it. */
    status: number;
  }
  const json = (value: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });
  const boundary = 'openapi-check-boundary';
  const multipart = [
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nfirst upload\r\n`,
    `--${boundary}--\r\n`,
  ].join('');
  const lab = { Origin: 'https://learner.example' };

  /** Sends the case and checks its answer against the document; answers it for more assertions. */
  const conforms = async ({ method = 'GET', path, headers, body, status }: Case): Promise<RawResponse> => {
    const res = await rawRequest(`${system.baseUrl}${path}`, { method, headers, body });
    expect({ [`${method} ${path}`]: res.status }).toEqual({ [`${method} ${path}`]: status });
    checker.expectConforms(method, path, res);
    return res;
  };

  // Routes with no parameter, body or credential have no refusal of their own: /, /health, /playground, /playground/headers, /openapi.*.
  it.each<[string, Case]>([
    ['GET /', { path: '/', status: 200 }],
    ['GET /health', { path: '/health', status: 200 }],
    ['GET /health/ready', { path: '/health/ready', status: 200 }],
    ['GET /playground', { path: '/playground', status: 200 }],
    ['GET /openapi.json', { path: '/openapi.json', status: 200 }],
    ['GET /openapi.yaml (application/yaml)', { path: '/openapi.yaml', status: 200 }],
  ])('system: %s answers as documented', async (_what, request) => {
    await conforms(request);
  });

  it.each<[string, Case]>([
    ['echo, a JSON object', { method: 'POST', path: '/playground/echo?tag=a&tag=b', ...json({ hello: 'world' }), status: 200 }],
    [
      'echo, a form',
      { method: 'PUT', path: '/playground/echo', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'x=1&x=2', status: 200 },
    ],
    ['echo refuses a JSON array', { method: 'POST', path: '/playground/echo', headers: { 'Content-Type': 'application/json' }, body: '[1,2]', status: 400 }],
    [
      'upload, a file and a field',
      { method: 'POST', path: '/playground/upload', headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: multipart, status: 200 },
    ],
    ['upload refuses what is not multipart', { method: 'POST', path: '/playground/upload', ...json({ a: 1 }), status: 400 }],
    ['response, the default', { path: '/playground/response', status: 200 }],
    ['response, a 4xx asked for, after a delay', { path: '/playground/response?status=418&delay=5', status: 418 }],
    ['response, a 1xx asked for (answered 200)', { path: '/playground/response?status=101', status: 200 }],
    ['response, a 204 (no body, even when one is asked for)', { method: 'DELETE', path: '/playground/response?status=204&body=dropped', status: 204 }],
    ['response, a 3xx as text', { method: 'POST', path: '/playground/response?status=302&body=moved', status: 302 }],
    ['response, a 401 asked for', { path: '/playground/response?status=401', status: 401 }],
    ['response, a 503 asked for', { method: 'PATCH', path: '/playground/response?status=503&body=down', status: 503 }],
    ['response refuses a status out of range', { path: '/playground/response?status=600', status: 400 }],
    ['timeout, a short wait', { path: '/playground/timeout?delay=10', status: 200 }],
    ['timeout refuses a negative delay', { path: '/playground/timeout?delay=-1', status: 400 }],
    [
      'redirect, a hop with its Location',
      { method: 'POST', path: '/playground/redirect?n=2&status=307', headers: { 'Content-Type': 'text/plain' }, body: 'kept', status: 307 },
    ],
    ['redirect, the end of the chain', { path: '/playground/redirect?n=1&status=302&hop=1&trail=POST-4', status: 200 }],
    ['redirect refuses n over 10', { path: '/playground/redirect?n=11', status: 400 }],
    ['headers', { path: '/playground/headers', headers: { 'X-Custom': '1' }, status: 200 }],
    ['cors/info', { path: '/playground/cors/info?method=PUT&headers=x-custom', headers: lab, status: 200 }],
    ['cors/info refuses max_age over a day', { path: '/playground/cors/info?max_age=90000', headers: lab, status: 400 }],
    ['cors/simple', { path: '/playground/cors/simple?allow_credentials=true', headers: lab, status: 200 }],
    ['cors/simple refuses allow_credentials=yes', { path: '/playground/cors/simple?allow_credentials=yes', headers: lab, status: 400 }],
    ['cors/preflight', { method: 'POST', path: '/playground/cors/preflight', ...json({ hello: 'world' }), status: 200 }],
    [
      'cors/preflight refuses a body that is not an object',
      { method: 'POST', path: '/playground/cors/preflight', headers: { 'Content-Type': 'application/json' }, body: '"text"', status: 400 },
    ],
    [
      'batch',
      {
        method: 'POST',
        path: '/playground/batch',
        ...json({
          requests: [
            { method: 'GET', path: '/health' },
            { method: 'POST', path: '/playground/echo', body: 'text' },
            { method: 'GET', path: '//elsewhere' },
          ],
        }),
        status: 200,
      },
    ],
    [
      'batch refuses more than 20 items',
      { method: 'POST', path: '/playground/batch', ...json({ requests: Array.from({ length: 21 }, () => ({ method: 'GET', path: '/health' })) }), status: 400 },
    ],
  ])('HTTP practice: %s answers as documented', async (_what, request) => {
    await conforms(request);
  });

  it('when a service is down, then /health/ready answers the documented 503', async () => {
    await system.stopService('data');
    try {
      const down = await eventually(
        () => rawRequest(`${system.baseUrl}/health/ready`),
        (r) => r.status === 503,
        10_000,
      );
      checker.expectConforms('GET', '/health/ready', down.value);
    } finally {
      await system.startService('data');
    }
  });

  it('when an answer breaks the document, then the checker names the operation, the status and the schema path', () => {
    const answer = (status: number, body: unknown, headers: Record<string, string> = { 'Content-Type': 'application/json' }) => ({
      status,
      headers,
      body: JSON.stringify(body),
    });
    expect(() => checker.expectConforms('GET', '/playground/timeout', answer(200, { status: 200, delayRequestedMs: 'soon' }))).toThrow(
      /GET \/playground\/timeout \(operation getPlaygroundTimeout, \/playground\/timeout\) answered 200[\s\S]*#\/paths\/~1playground~1timeout\/get\/responses\/200\/content\/application~1json\/schema/,
    );
    expect(checker.problems('GET', '/playground/redirect', { status: 303, headers: {}, body: '' })).toEqual([
      expect.stringMatching(/^status 303 is not documented/),
    ]);
    expect(
      checker.problems(
        'GET',
        '/playground/redirect',
        answer(307, { redirect: 1, of: 1, status: 307, location: '/x', arrived: { method: 'GET', bodyBytes: 0 }, notes: [] }),
      ),
    ).toEqual(['header Location is required by responses.307 but absent']);
    expect(checker.problems('GET', '/health', answer(200, { status: 'ok' }, { 'Content-Type': 'text/html' }))).toEqual([
      expect.stringMatching(/^Content-Type text\/html is not documented/),
    ]);
  });
});

describe('the contract check every integration test runs (test/contract-setup.ts)', () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(() => system?.stop());

  it('when the route table is read, then every row has a contract, so every answer of every test is checked', () => {
    expect(
      routeRows()
        .filter((row) => !row.contract)
        .map((row) => `${row.methods.join(',')} ${row.path}`),
    ).toEqual([]);
  });

  it('when the gateway records an answer the document does not allow, then the check reports it with the request id', async () => {
    await rawRequest(`${system.baseUrl}/health`);
    // What the gateway would have written had /health answered a 418 with the wrong body.
    const file = system.env.RESPONSE_RECORD_FILE!;
    appendFileSync(
      file,
      `${JSON.stringify({ requestId: 'req-418', method: 'GET', path: '/health', route: '/health', status: 418, headers: { 'Content-Type': 'application/json' }, body: '{}' })}\n`,
    );
    appendFileSync(
      file,
      `${JSON.stringify({ requestId: 'req-bad-body', method: 'GET', path: '/health', route: '/health', status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"status":42}' })}\n`,
    );
    const problems = await answersBreakingTheContract();
    expect(problems).toEqual([
      expect.stringMatching(/^GET \/health -> 418 \(request req-418\): status 418 is not documented/),
      expect.stringMatching(/^GET \/health -> 200 \(request req-bad-body\): .*status/),
    ]);
  });
});

describe('the examples in the document', () => {
  // An operator's document: everybody's, and the operator-only rows too.
  const document = offlineOpenApiDocument('http://127.0.0.1:8080', { operator: true }) as Document;
  const components = document.components.schemas as Record<string, Document>;
  /** Whether a schema (or anything it contains or refers to) carries an example. */
  const exemplified = (schema: unknown, seen = new Set<string>()): boolean => {
    if (!schema || typeof schema !== 'object') return false;
    const s = schema as Document;
    if (typeof s.$ref === 'string') {
      const name = s.$ref.split('/').pop()!;
      if (seen.has(name)) return false;
      seen.add(name);
      return exemplified(components[name], seen);
    }
    if ('example' in s || 'examples' in s) return true;
    return Object.values(s).some((child) => typeof child === 'object' && exemplified(child, seen));
  };

  it('when a learner reads any answer that carries a body, then it shows an example (errors have theirs in the Error shape)', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(document.paths as Record<string, Document>)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries((operation as Document).responses as Record<string, Document>)) {
          for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Document>)) {
            if (!exemplified(media.schema) && !media.example && !media.examples) missing.push(`${method.toUpperCase()} ${path} ${status} ${type}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('when an example is validated against its own schema, then it conforms (an example cannot teach a wrong shape)', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: document.components });
    const wrong: string[] = [];
    for (const [name, schema] of Object.entries(components)) {
      if (!('example' in schema)) continue;
      const validate = ajv.compile({ $ref: `doc#/components/schemas/${name}` });
      if (!validate(schema.example)) wrong.push(`${name}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(wrong).toEqual([]);
  });
});

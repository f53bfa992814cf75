import { createApp, rawRequest, rawSocketSession, registerUser, startSystem, type CreatedApp, type RawResponse, type RunningSystem } from '@sandbox/testing';
import type { BodyMode, Route } from '../../src/http/route';
import { routeTable } from '../../src/openapi/offline-document';

jest.setTimeout(120_000);

/** The gateway's rows as the server builds them (building a row calls no service). */
const routeRows = (): Route[] => routeTable();

/**
 * The standard bad bodies, each with the body modes that must refuse it and
 * the status they must refuse it with (a raw or stream route takes any bytes).
 */
const BAD_BODIES: {
  what: string;
  modes: BodyMode[];
  contentType: string;
  body: Buffer;
  status: number;
  code: string;
  extraHeaders?: Record<string, string>;
}[] = [
  {
    what: 'JSON whose bytes are not UTF-8',
    modes: ['json'],
    contentType: 'application/json',
    body: Buffer.from('{"name":"a\xff\xfe"}', 'latin1'),
    status: 400,
    code: 'invalid_utf8',
  },
  {
    what: 'a form whose bytes are not UTF-8',
    modes: ['form'],
    contentType: 'application/x-www-form-urlencoded',
    body: Buffer.from('name=a\xff\xfe', 'latin1'),
    status: 400,
    code: 'invalid_utf8',
  },
  { what: 'malformed JSON', modes: ['json'], contentType: 'application/json', body: Buffer.from('{"name":'), status: 400, code: 'malformed_body' },
  { what: 'a JSON array', modes: ['json'], contentType: 'application/json', body: Buffer.from('[1,2]'), status: 400, code: 'invalid_body' },
  {
    what: 'a form body where JSON is read',
    modes: ['json'],
    contentType: 'application/x-www-form-urlencoded',
    body: Buffer.from('name=a&email=b'),
    status: 400,
    code: 'invalid_body',
  },
  {
    what: 'a JSON body where a form is read',
    modes: ['form'],
    contentType: 'application/json',
    body: Buffer.from('{"a":1}'),
    status: 400,
    code: 'invalid_body',
  },
  { what: 'plain text', modes: ['json', 'form'], contentType: 'text/plain', body: Buffer.from('hello'), status: 400, code: 'invalid_body' },
  {
    what: 'a latin-1 JSON body',
    modes: ['json'],
    contentType: 'application/json; charset=iso-8859-1',
    body: Buffer.from('{}'),
    status: 415,
    code: 'unsupported_charset',
  },
  {
    what: 'a latin-1 form body',
    modes: ['form'],
    contentType: 'application/x-www-form-urlencoded; charset=iso-8859-1',
    body: Buffer.from('a=1'),
    status: 415,
    code: 'unsupported_charset',
  },
  {
    what: 'a gzip body',
    modes: ['json', 'form', 'raw'],
    contentType: 'application/json',
    body: Buffer.from([0x1f, 0x8b, 8, 0]),
    status: 415,
    code: 'unsupported_encoding',
    extraHeaders: { 'Content-Encoding': 'gzip' },
  },
];

describe('hostile inputs, sent to every route row that reads a body', () => {
  /** An operator (docs/operators.md): the operator-only rows are sent their bad bodies with this session. */
  const OPERATOR = 'hostile-inputs-operator@example.org';
  let system: RunningSystem;
  let session: string;
  let operatorSession: string;
  let app: CreatedApp;
  const rows = routeRows().filter((r) => r.body !== 'none');

  beforeAll(async () => {
    system = await startSystem({ OPERATOR_EMAILS: OPERATOR });
    session = await registerUser(system.baseUrl);
    app = await createApp(system.baseUrl, session);
    const operator = await rawRequest(`${system.baseUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: OPERATOR, password: 'correct horse battery' }),
    });
    operatorSession = operator.json().token;
  });
  afterAll(async () => system?.stop());

  /** A path of the row with its parameters filled in, and the credential its auth accepts (an operator's session on an operator-only row). */
  const target = (row: Route) => ({
    path: row.path.replace(':id', app.id).replace(':appId', app.appId).replace(':pack', 'hr').replace(':entity', 'employees'),
    headers: row.operatorOnly
      ? { Authorization: `Bearer ${operatorSession}` }
      : row.auth.includes('portal_session')
        ? { Authorization: `Bearer ${session}` }
        : row.auth.includes('api_key_header')
          ? { 'x-api-key': app.apiKey }
          : ({} as Record<string, string>),
  });

  const expectRefusal = (res: RawResponse, row: Route, status: number, code: string) => {
    expect({ status: res.status, code: row.errors === 'api' ? res.json().error?.code : res.json().error }).toEqual({
      status,
      code: row.errors === 'api' ? code : 'invalid_request',
    });
    if (row.errors === 'api') expect(res.json().error.requestId).toBe(res.headers['x-request-id']);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  };

  it('the table has body routes to walk (a row added later is covered by default)', () => {
    expect(rows.length).toBeGreaterThanOrEqual(5);
  });

  it.each(BAD_BODIES.map((bad) => [bad.what, bad] as const))('%s is refused in the route’s error format, with nothing stored', async (_what, bad) => {
    const before = (await rawRequest(`${system.baseUrl}/api/apps`, { headers: { Authorization: `Bearer ${session}` } })).body;
    for (const row of rows.filter((r) => bad.modes.includes(r.body))) {
      const { path, headers } = target(row);
      for (const method of row.methods) {
        const res = await rawRequest(`${system.baseUrl}${path}`, {
          method,
          headers: { ...headers, 'Content-Type': bad.contentType, ...bad.extraHeaders },
          body: bad.body,
        });
        expectRefusal(res, row, bad.status, bad.code);
      }
    }
    expect((await rawRequest(`${system.baseUrl}/api/apps`, { headers: { Authorization: `Bearer ${session}` } })).body).toBe(before);
  });

  it('a declared body over the limit is answered 413 at once, before the body arrives, and the connection is closed', async () => {
    for (const row of rows) {
      const { path, headers } = target(row);
      const declared = String((row.bodyLimit ?? 1024 * 1024) + 1);
      const head = Object.entries({ ...headers, Host: 'x', 'Content-Type': 'application/json', 'Content-Length': declared })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      // Only 7 of the declared bytes are ever sent: an answer that waited for the body would never come.
      const session = await rawSocketSession(system.baseUrl, `${row.methods[0]} ${path} HTTP/1.1\r\n${head}\r\n{"a":1}`, 10_000);
      expect(session.closed).toBe(true);
      expect(session.answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(session.answer).toMatch(/\r\nx-request-id: /i);
      const body = JSON.parse(session.answer.split('\r\n\r\n')[1]);
      expect(row.errors === 'api' ? body.error.code : body.error).toBe(row.errors === 'api' ? 'body_too_large' : 'invalid_request');
    }
  });
});

describe('hostile requests at the edge, whatever the route', () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(async () => system?.stop());

  const exchange = async (request: string) => {
    const { answer, closed } = await rawSocketSession(system.baseUrl, request, 10_000);
    const [head, body] = answer.split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body), closed };
  };

  it('Expect other than 100-continue is 417 in the error shape, with a request id and the security headers', async () => {
    const res = await exchange('GET /health HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n');
    expect(res.status).toBe(417);
    expect(res.body.error.code).toBe('expectation_failed');
    expect(res.head).toMatch(new RegExp(`\\r\\nX-Request-Id: ${res.body.error.requestId}\\r\\n`, 'i'));
    expect(res.head).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
  });

  it('CONNECT is refused in the error shape: the sandbox is not a proxy', async () => {
    const res = await exchange('CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n');
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('method_not_allowed');
    expect(res.closed).toBe(true);
  });

  it('an absolute-form request target is a clear 400, and the log keeps the path only', async () => {
    const res = await exchange(
      'GET http://evil.example/health?api_key=ak_secret_in_target HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\nX-Request-Id: abs-form-1\r\n\r\n',
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request_target');
    const line = await waitForLogLine(system, 'abs-form-1');
    expect(line).toMatchObject({ path: '/health', status: 400 });
    expect(system.output()).not.toContain('evil.example');
    expect(system.output()).not.toContain('ak_secret_in_target');
  });

  it('a very long path is logged cut short', async () => {
    const res = await rawRequest(`${system.baseUrl}/${'a'.repeat(5000)}`, { headers: { 'X-Request-Id': 'long-path-1' } });
    expect(res.status).toBe(404);
    const line = await waitForLogLine(system, 'long-path-1');
    expect((line.path as string).length).toBeLessThanOrEqual(513);
  });

  it('every answer carries the security headers an API needs: success, refusal, parser error', async () => {
    const answers = [
      (await rawRequest(`${system.baseUrl}/health`)).headers,
      (await rawRequest(`${system.baseUrl}/no/such/path`)).headers,
      (await rawRequest(`${system.baseUrl}/playground/data/hr/employees`)).headers,
    ];
    for (const headers of answers) {
      expect(headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'content-security-policy': expect.stringContaining("frame-ancestors 'none'"),
      });
    }
    const parserError = await exchange('GET /health?x=\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(parserError.status).toBe(400);
    expect(parserError.head).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
    expect(parserError.head).toMatch(/\r\nContent-Security-Policy: default-src 'none';frame-ancestors 'none'\r\n/i);
  });
});

/** The gateway's access-log line for a request id, once written (lines are flushed within 250 ms). */
async function waitForLogLine(system: RunningSystem, requestId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const line = system
      .output()
      .split('\n')
      .find((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"msg":"request"'));
    if (line) return JSON.parse(line);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no access-log line for ${requestId}`);
}

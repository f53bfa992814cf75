import { GrpcStatus } from '@sandbox/runtime';
import { refusalOf } from '@sandbox/testing';
import { corsInfo, isSafelistedRequestHeader, normaliseMethod } from '../../src/domain/cors';
import { inbound, read } from './support/requests';

const PAGE = 'https://learner.example';
const SERVICE = 'http://127.0.0.1:8080';

/** GET /playground/cors/info?<query> from a page at `origin` (null: no Origin header). */
function info(query: string, origin: string | null = PAGE) {
  const answer = read(
    corsInfo(inbound({ path: '/playground/cors/info', rawQuery: query, baseUrl: SERVICE, headers: origin === null ? [] : [['Origin', origin]] })),
  );
  expect(answer.status).toBe(200);
  return answer.json;
}

describe('CORS info: which check the browser makes', () => {
  it('when a page GETs with no special headers, then it is a simple request and every check passes', () => {
    const result = info('');
    expect(result).toMatchObject({
      origin: { value: PAGE, source: 'Origin header', serviceOrigin: SERVICE, sameOrigin: false },
      request: { method: 'GET', headers: [], contentType: null, credentials: 'same-origin', droppedByBrowser: [] },
      check: 'simple',
      preflightRequest: null,
      verdict: 'pass',
      failing: [],
      labAnswers: { preflight: null, actual: { 'Access-Control-Allow-Origin': PAGE } },
      maxAge: null,
    });
    expect(result.checks.method.result).toBe('skipped');
    expect(result.checks.headers.result).toBe('skipped');
    expect(result.checks.credentials.result).toBe('skipped');
    expect(result.summary).toBe(`A page at ${PAGE} calling GET is a simple request (no preflight), and every check passes: the page can read the answer.`);
  });

  it('when the method is PUT with custom headers, then a preflight names them sorted in lower case, and the lab reflects them', () => {
    const result = info('method=PUT&headers=X-Api-Key,Authorization,x-api-key');
    expect(result.check).toBe('preflight');
    expect(result.why).toEqual([
      'PUT is not a CORS-safelisted method (GET, HEAD, POST).',
      'X-Api-Key is not a CORS-safelisted request header.',
      'Authorization is not a CORS-safelisted request header.',
    ]);
    expect(result.request.headers).toEqual(['X-Api-Key', 'Authorization']);
    expect(result.preflightRequest).toEqual({
      method: 'OPTIONS',
      headers: { Origin: PAGE, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'authorization,x-api-key' },
    });
    expect(result.labAnswers.preflight).toEqual({
      'Access-Control-Allow-Origin': PAGE,
      'Access-Control-Allow-Methods': 'PUT',
      'Access-Control-Allow-Headers': 'authorization, x-api-key',
      'Access-Control-Max-Age': '600',
    });
    expect(result.verdict).toBe('pass');
    expect(result.maxAge).toMatchObject({ seconds: 600, chromiumKeepsFor: 600, firefoxKeepsFor: 600 });
  });

  it('when Content-Type is a safelisted value, then a POST stays simple (and a note warns about CSRF)', () => {
    const result = info('method=POST&content_type=text/plain;charset=UTF-8');
    expect(result.check).toBe('simple');
    expect(result.request.headers).toEqual(['Content-Type']);
    expect(result.notes).toContainEqual(expect.stringContaining('(CSRF)'));
  });

  it('when Content-Type is application/json, or named without a value, then a preflight is needed for it', () => {
    const json = info('method=POST&content_type=application/json');
    expect(json.check).toBe('preflight');
    expect(json.preflightRequest.headers['Access-Control-Request-Headers']).toBe('content-type');
    const named = info('method=POST&headers=Content-Type');
    expect(named.check).toBe('preflight');
    expect(named.why[0]).toContain('taken to be application/json');
  });

  it('when forbidden headers are listed, then the browser drops them and they need no permission', () => {
    const result = info('headers=Cookie,Sec-Fetch-Mode,Proxy-Authorization,Host,X-Trace');
    expect(result.request.droppedByBrowser).toEqual(['Cookie', 'Sec-Fetch-Mode', 'Proxy-Authorization', 'Host']);
    expect(result.request.headers).toEqual(['X-Trace']);
    expect(result.preflightRequest.headers['Access-Control-Request-Headers']).toBe('x-trace');
    expect(result.notes[0]).toMatch(/^fetch silently leaves out Cookie, Sec-Fetch-Mode, Proxy-Authorization, Host/);
  });

  it('when the method is CONNECT, TRACE or TRACK, then fetch refuses to send it at all', () => {
    for (const method of ['CONNECT', 'trace', 'TRACK']) {
      const result = info(`method=${method}`);
      expect(result).toMatchObject({ check: 'blocked', verdict: 'fail', failing: ['method'] });
    }
  });

  it('when the page is on the service origin, then there is no CORS at all', () => {
    expect(info('method=DELETE&headers=X-A', SERVICE)).toMatchObject({ check: 'none', verdict: 'pass', origin: { sameOrigin: true } });
  });

  it('when fetch normalises the method, then info says so; when it does not (patch), then info explains the browsers disagree', () => {
    const put = info('method=put');
    expect(put.request.method).toBe('PUT');
    expect(put.notes).toContainEqual('fetch sends "put" as PUT.');
    const patch = info('method=patch&allow_methods=PATCH');
    expect(patch.request.method).toBe('patch');
    expect(patch.checks.method).toEqual({
      result: 'fail',
      why: 'Access-Control-Allow-Methods ("PATCH") does not list patch: it lists PATCH, and methods are compared case-sensitively.',
    });
    expect(patch.notes).toContainEqual(expect.stringContaining('Chromium needs "PATCH". Write PATCH in your code.'));
    expect(normaliseMethod('Delete')).toBe('DELETE');
    expect(normaliseMethod('Patch')).toBe('Patch');
  });
});

describe('CORS info: steering the lab to fail each check', () => {
  it('when allow_methods does not list the method, then the method check fails and the preflight stops the request', () => {
    const result = info('method=PUT&allow_methods=GET,%20POST');
    expect(result).toMatchObject({ check: 'preflight', verdict: 'fail', failing: ['method'] });
    expect(result.checks.method.why).toBe('Access-Control-Allow-Methods ("GET, POST") does not list PUT.');
    expect(result.labAnswers.preflight['Access-Control-Allow-Methods']).toBe('GET, POST');
    expect(result.summary).toContain('the preflight fails, so the request itself is never sent (fetch rejects with a TypeError)');
  });

  it('when allow_methods is empty, then the header is absent and only safelisted methods pass', () => {
    const result = info('method=DELETE&allow_methods=');
    expect(result.labAnswers.preflight['Access-Control-Allow-Methods']).toBeUndefined();
    expect(result.checks.method.why).toBe('Access-Control-Allow-Methods (absent) does not list DELETE.');
    expect(info('method=POST&headers=X-A&allow_methods=').checks.method.result).toBe('pass');
  });

  it('when allow_methods is *, then any method passes without credentials but * is literal with them', () => {
    expect(info('method=PUT&allow_methods=*').checks.method.result).toBe('pass');
    const credentialed = info('method=PUT&allow_methods=*&credentials=include&allow_credentials=true');
    expect(credentialed.checks.method).toEqual({
      result: 'fail',
      why: 'Access-Control-Allow-Methods ("*") does not list PUT: with credentials, * is a literal name, not \'any\'.',
    });
  });

  it('when allow_headers misses a header, then the headers check fails naming it', () => {
    const result = info('headers=X-Api-Key,X-Trace&allow_headers=x-trace');
    expect(result).toMatchObject({ verdict: 'fail', failing: ['headers'] });
    expect(result.checks.headers.why).toBe('Access-Control-Allow-Headers ("x-trace") does not list x-api-key.');
  });

  it('when allow_headers is *, then it covers custom headers but never Authorization', () => {
    expect(info('headers=X-Api-Key&allow_headers=*').checks.headers.result).toBe('pass');
    expect(info('headers=Authorization&allow_headers=*').checks.headers).toEqual({
      result: 'fail',
      why: 'Authorization must be named in Access-Control-Allow-Headers: * never covers it.',
    });
    expect(info('headers=Authorization&allow_headers=*,Authorization').checks.headers.result).toBe('pass');
    expect(info('headers=X-A&allow_headers=*&credentials=include&allow_credentials=true').checks.headers.result).toBe('fail');
  });

  it.each([
    [
      'https://other.example',
      'Access-Control-Allow-Origin is "https://other.example" but the page\'s origin is "https://learner.example"; a browser accepts only an exact match (scheme, host and port).',
    ],
    ['https://learner.example/', 'the trailing slash makes it a different string'],
    ['https://Learner.example', 'byte for byte: the case differs'],
    ['https://learner.example, https://other.example', 'a list is never accepted'],
    ['null', 'null matches only pages with an opaque origin'],
    ['http://learner.example', '(scheme, host and port)'],
  ])('when allow_origin is %s, then the origin check fails and says why', (allowOrigin, why) => {
    const result = info(`allow_origin=${encodeURIComponent(allowOrigin)}`);
    expect(result).toMatchObject({ check: 'simple', verdict: 'fail', failing: ['origin'] });
    expect(result.checks.origin.why).toContain(why);
    expect(result.labAnswers.actual['Access-Control-Allow-Origin']).toBe(allowOrigin);
    expect(result.summary).toContain('the request is sent, but the page cannot read the answer');
  });

  it('when allow_origin is * or the exact origin, then the origin check passes', () => {
    expect(info('allow_origin=*').checks.origin.result).toBe('pass');
    expect(info(`allow_origin=${encodeURIComponent(PAGE)}`).checks.origin.result).toBe('pass');
    expect(info('allow_origin=null', 'null').checks.origin.result).toBe('pass');
  });

  it('when credentials are included, then Access-Control-Allow-Credentials: true and an exact origin are both needed', () => {
    expect(info('credentials=include')).toMatchObject({ failing: ['credentials'], checks: { credentials: { result: 'fail' } } });
    expect(info('credentials=include').checks.credentials.why).toContain('allow_credentials=true');
    const allowed = info('credentials=include&allow_credentials=true');
    expect(allowed).toMatchObject({
      verdict: 'pass',
      labAnswers: { actual: { 'Access-Control-Allow-Origin': PAGE, 'Access-Control-Allow-Credentials': 'true' } },
    });
    const star = info('credentials=include&allow_credentials=true&allow_origin=*');
    expect(star.checks.credentials.why).toBe("With credentials: 'include', Access-Control-Allow-Origin must name the origin exactly; * is refused.");
    expect(star.checks.origin.result).toBe('pass');
  });

  it('when two checks fail, then both are listed in the order the browser makes them', () => {
    expect(info('method=PUT&headers=X-A&allow_methods=GET&allow_headers=X-B&allow_origin=https://x.example&credentials=include').failing).toEqual([
      'origin',
      'credentials',
      'method',
      'headers',
    ]);
  });

  it('when max_age is given, then the preflight answer carries it and info shows what each browser keeps', () => {
    const result = info('method=PUT&max_age=86400');
    expect(result.labAnswers.preflight['Access-Control-Max-Age']).toBe('86400');
    expect(result.maxAge).toMatchObject({ seconds: 86400, chromiumKeepsFor: 7200, firefoxKeepsFor: 86400 });
  });

  it('when there is no Origin header, then a restricted origin is unknown and origin= asks about a page', () => {
    const anonymous = info('allow_origin=https://a.example', null);
    expect(anonymous).toMatchObject({ verdict: 'unknown', origin: { value: null, source: 'none' } });
    expect(anonymous.checks.origin.result).toBe('unknown');
    expect(anonymous.notes).toContainEqual(expect.stringContaining('carried no Origin header'));
    expect(info('', null).verdict).toBe('pass');
    const asked = info('origin=https%3A%2F%2Fa.example&allow_origin=https://a.example', null);
    expect(asked).toMatchObject({ verdict: 'pass', origin: { value: 'https://a.example', source: 'origin parameter' } });
  });

  it('when info lists its parameters, then all ten are there with what was given', () => {
    const result = info('allow_origin=*&max_age=5&method=PUT');
    expect(result.parameters.map((p: { name: string }) => p.name)).toEqual([
      'allow_origin',
      'allow_methods',
      'allow_headers',
      'allow_credentials',
      'max_age',
      'method',
      'headers',
      'content_type',
      'credentials',
      'origin',
    ]);
    expect(result.parameters[0]).toMatchObject({ role: 'steering', given: '*' });
    expect(result.parameters[1].given).toBeNull();
    expect(result.parameters[5]).toMatchObject({ role: 'intended request', given: 'PUT' });
  });
});

describe('CORS info: bad parameters', () => {
  it.each([
    ['allow_origin=%0Ahttps://a.example', /^allow_origin must be an origin such as https:\/\/example.org, \* or null/],
    [`allow_origin=${'a'.repeat(257)}`, /^allow_origin must be/],
    ['allow_methods=GE%20T', /^allow_methods must be method names separated by commas/],
    ['allow_headers=X-A,%22b%22', /^allow_headers must be header names separated by commas/],
    ['allow_credentials=yes', /^allow_credentials must be true or false; got "yes"/],
    ['allow_credentials=TRUE', /^allow_credentials must be true or false/],
    ['max_age=-1', /^max_age must be a whole number of seconds from 0 to 86400, not negative/],
    ['max_age=86401', /^max_age must be from 0 to 86400 seconds; got 86401/],
    ['method=BAD%20METHOD', /^method must be an HTTP method name/],
    ['headers=*', /^headers lists the header names your page will set/],
    ['credentials=all', /^credentials must be omit, same-origin or include/],
    ['origin=https://a.example/', /^origin must be an origin such as https:\/\/example.org \(scheme, host and port; no path or trailing slash\) or null/],
    ['content_type=%00', /^content_type must be a Content-Type value/],
    ['allow_origin=*&allow_origin=null', /^allow_origin was given 2 times/],
  ])('when %s, then 400 invalid_parameter', async (query, message) => {
    const refusal = await refusalOf(() => corsInfo(inbound({ path: '/playground/cors/info', rawQuery: query })));
    expect(refusal.status).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(refusal.code).toBe('invalid_parameter');
    expect(refusal.message).toMatch(message);
  });
});

describe('CORS-safelisted request headers (Fetch)', () => {
  it.each([
    ['Accept', 'application/json', true],
    ['Accept', 'text/"x"', false],
    ['Accept-Language', 'en-GB,en;q=0.9', true],
    ['Accept-Language', 'en_GB', false],
    ['Content-Language', 'de', true],
    ['Content-Type', 'text/plain', true],
    ['Content-Type', 'multipart/form-data; boundary=abc', true],
    ['Content-Type', 'application/x-www-form-urlencoded;charset=UTF-8', true],
    ['Content-Type', 'text/plain; charset="utf-8"', false],
    ['Content-Type', 'application/json', false],
    ['Content-Type', `text/plain; x=${'a'.repeat(120)}`, false],
    ['Range', 'bytes=0-', true],
    ['Range', 'bytes=0-499', true],
    ['Range', 'bytes=500-100', false],
    ['Range', 'bytes=-500', false],
    ['Range', 'bytes=0-1,5-9', false],
    ['X-Requested-With', 'XMLHttpRequest', false],
  ])('when %s is %j, then safelisted is %s', (name, value, expected) => {
    expect(isSafelistedRequestHeader(name, value)).toBe(expected);
  });
});

import { GrpcStatus } from '@sandbox/runtime';
import { refusalOf } from '@sandbox/testing';
import { redirect } from '../../src/domain/redirect';
import { inbound, read, type Read } from './support/requests';

interface Sent {
  method: string;
  url: string;
  body?: string;
  contentType?: string;
}

/**
 * Follows the chain as browsers, curl -L and Python requests do (RFC 9110
 * 15.4): 301 and 302 turn a POST into a GET without its body; 307 and 308
 * repeat the method and body. Refuses to leave the origin it started on.
 */
function follow(first: Sent, baseUrl = 'http://127.0.0.1:8080'): { answers: Read[]; sent: Sent[] } {
  const origin = new URL(first.url).origin;
  const answers: Read[] = [];
  const sent: Sent[] = [];
  let request = first;
  for (let i = 0; i < 20; i++) {
    sent.push(request);
    const url = new URL(request.url);
    const answer = read(
      redirect(
        inbound({
          method: request.method,
          path: url.pathname,
          rawQuery: url.search.slice(1),
          baseUrl,
          body: request.body,
          headers: request.contentType ? [['Content-Type', request.contentType]] : [],
        }),
      ),
    );
    answers.push(answer);
    if (answer.status < 300 || answer.status >= 400) return { answers, sent };
    const next = new URL(answer.headers.location, url);
    if (next.origin !== origin) throw new Error(`redirected off the origin: ${next.href}`);
    const keep = answer.status === 307 || answer.status === 308 || request.method === 'GET' || request.method === 'HEAD';
    request = keep ? { ...request, url: next.href } : { method: 'GET', url: next.href };
  }
  throw new Error('too many redirects');
}

const POST = (url: string): Sent => ({ method: 'POST', url, body: '{"a":1}', contentType: 'application/json' });

describe('redirect chains', () => {
  it('when n=3 and status=307, then three 307 hops with relative Locations carry the trail, then 200', () => {
    const { answers } = follow(POST('http://127.0.0.1:8080/playground/redirect?n=3&status=307'));
    expect(answers.map((a) => a.status)).toEqual([307, 307, 307, 200]);
    expect(answers.slice(0, 3).map((a) => a.headers.location)).toEqual([
      '/playground/redirect?n=3&status=307&hop=1&trail=POST-7',
      '/playground/redirect?n=3&status=307&hop=2&trail=POST-7.POST-7',
      '/playground/redirect?n=3&status=307&hop=3&trail=POST-7.POST-7.POST-7',
    ]);
    expect(answers[0].json).toMatchObject({ redirect: 1, of: 3, status: 307, arrived: { method: 'POST', bodyBytes: 7 } });
  });

  it.each([301, 302])('when a POST follows %i redirects, then the trail shows it turned into a GET and lost its body', (status) => {
    const { answers } = follow(POST(`http://127.0.0.1:8080/playground/redirect?n=2&status=${status}`));
    const final = answers.at(-1)!;
    expect(final.status).toBe(200);
    expect(final.json).toMatchObject({
      redirects: 2,
      status,
      trail: [
        { request: 1, method: 'POST', bodyBytes: 7, answered: status },
        { request: 2, method: 'GET', bodyBytes: 0, answered: status },
        { request: 3, method: 'GET', bodyBytes: 0, answered: 200 },
      ],
      arrived: { method: 'GET', contentType: null, body: null, bodyKind: 'none', bodySize: 0 },
      methodChanged: true,
    });
    expect(final.json.notes[0]).toBe(
      `Your client turned POST into GET after redirect 1 and dropped the body, as clients do with a ${status}; use 307 or 308 to keep the method and body.`,
    );
  });

  it.each([307, 308])('when a POST follows %i redirects, then the method and body arrive unchanged', (status) => {
    const { answers } = follow(POST(`http://127.0.0.1:8080/playground/redirect?n=2&status=${status}`));
    const final = answers.at(-1)!.json;
    expect(final.trail.map((t: { method: string; bodyBytes: number }) => `${t.method}-${t.bodyBytes}`)).toEqual(['POST-7', 'POST-7', 'POST-7']);
    expect(final.arrived).toEqual({ method: 'POST', contentType: 'application/json', body: { a: 1 }, bodyKind: 'json', bodySize: 7 });
    expect(final.methodChanged).toBe(false);
    expect(final.notes[0]).toBe(`The method (POST) and the body (7 bytes) arrived unchanged on every request, as a ${status} requires.`);
  });

  it('when no parameters are given, then one 302 and the 200', () => {
    const { answers } = follow({ method: 'GET', url: 'http://127.0.0.1:8080/playground/redirect' });
    expect(answers.map((a) => a.status)).toEqual([302, 200]);
    expect(answers[0].headers.location).toBe('/playground/redirect?n=1&status=302&hop=1&trail=GET-0');
  });

  it('when the service is behind a proxy prefix, then each Location is a path under the prefix on the same host', () => {
    const { answers, sent } = follow({ method: 'GET', url: 'https://sandbox.example/api/playground/redirect?n=2&status=308' }, 'https://sandbox.example/api');
    expect(answers[0].headers.location).toBe('/api/playground/redirect?n=2&status=308&hop=1&trail=GET-0');
    expect(sent.map((s) => new URL(s.url).pathname)).toEqual(['/api/playground/redirect', '/api/playground/redirect', '/api/playground/redirect']);
  });

  it('when the final body is not what its Content-Type says, then it is still shown (the chain is over), with the reason', () => {
    const { answers } = follow({ method: 'POST', url: 'http://127.0.0.1:8080/playground/redirect?status=307', body: '[1]', contentType: 'application/json' });
    expect(answers.at(-1)!.json.arrived).toMatchObject({ bodyKind: 'bytes', bodySize: 3 });
    expect(answers.at(-1)!.json.notes).toContainEqual(expect.stringContaining('The JSON body is an array'));
  });

  it('when a client changes the method on a 307, then the final answer says that 307 forbids it', () => {
    const hop = read(redirect(inbound({ method: 'GET', path: '/playground/redirect', rawQuery: 'n=1&status=307&hop=1&trail=POST-5' })));
    expect(hop.json.notes[0]).toBe('Your client changed POST into GET after redirect 1, which a 307 forbids: it must repeat the same method and body.');
  });

  it.each([
    ['n=0', 'n must be from 1 to 10 (the number of redirects before the final answer); got 0.'],
    ['n=11', 'n must be from 1 to 10 (the number of redirects before the final answer); got 11.'],
    ['n=two', 'n must be a whole number of redirects from 1 to 10, e.g. n=3; got "two".'],
    ['status=303', 'status must be one of 301, 302, 307 or 308; got 303.'],
    ['status=200', 'status must be one of 301, 302, 307 or 308; got 200.'],
    ['status=abc', 'status must be one of 301, 302, 307 or 308; got "abc".'],
    ['n=3&hop=4&trail=GET-0.GET-0.GET-0.GET-0', 'hop must be from 0 to n (3); got 4.'],
  ])('when the query is %s, then 400 invalid_parameter: %s', async (rawQuery, message) => {
    await expect(refusalOf(() => redirect(inbound({ path: '/playground/redirect', rawQuery })))).resolves.toEqual({
      status: GrpcStatus.INVALID_ARGUMENT,
      code: 'invalid_parameter',
      message,
    });
  });

  it.each(['n=3&hop=2&trail=GET-0', 'n=3&hop=1&trail=GET', 'n=3&hop=1&trail=G%2FT-1', 'n=3&hop=1'])(
    'when the trail does not match the hop (%s), then 400 invalid_parameter naming trail',
    async (rawQuery) => {
      const refusal = await refusalOf(() => redirect(inbound({ path: '/playground/redirect', rawQuery })));
      expect(refusal.code).toBe('invalid_parameter');
      expect(refusal.message).toMatch(/^trail must hold one METHOD-bytes entry per redirect already followed/);
    },
  );

  it('when every valid combination is asked, then every Location is a path on this host (never //host, never a scheme)', () => {
    for (const status of [301, 302, 307, 308]) {
      for (let n = 1; n <= 10; n++) {
        const answer = read(
          redirect(
            inbound({ method: 'PUT', path: '/playground/redirect', rawQuery: `n=${n}&status=${status}`, baseUrl: 'http://127.0.0.1:8080//x', body: 'b' }),
          ),
        );
        expect(answer.headers.location).toMatch(/^\/(?!\/)[^:]*$/);
      }
    }
  });
});

import { GrpcStatus, HttpRefusal } from '@sandbox/runtime';
import { refusalOf } from '@sandbox/testing';
import { normaliseHeaders, repeatedHeaderNotes } from '../../src/domain/headers';
import { basePath, refusalAnswer } from '../../src/domain/http';
import { parseMediaType } from '../../src/domain/media-type';
import { parseForm, Query } from '../../src/domain/query';
import { read } from './support/requests';

const h = (pairs: Array<[string, string]>) => pairs.map(([name, value]) => ({ name, value }));

describe('query strings and forms', () => {
  it('when a key is given once, then it is a string; when repeated, then an array in the order given', () => {
    expect({ ...parseForm('a=1&b=2&a=3&a=4') }).toEqual({ a: ['1', '3', '4'], b: '2' });
  });

  it('when values use + and percent-escapes, or a key has no "=", then they read as a browser form does', () => {
    expect({ ...parseForm('q=two+words&e=%C3%A9t%C3%A9&flag&empty=') }).toEqual({ q: 'two words', e: 'été', flag: '', empty: '' });
  });

  it('when a key is __proto__, then it is an ordinary key and nothing is polluted', () => {
    const parsed = parseForm('__proto__=x&constructor=y');
    expect(Object.keys(parsed)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('when a single-valued parameter is repeated, then 400 invalid_parameter naming it', async () => {
    await expect(refusalOf(() => new Query('status=200&status=500').single('status'))).resolves.toEqual({
      status: GrpcStatus.INVALID_ARGUMENT,
      code: 'invalid_parameter',
      message: 'status was given 2 times; give it once.',
    });
  });

  it.each(['1.5', '-1', '+5', ' 5', '', '1e3', 'abc', '0x10'])('when an integer parameter is %j, then 400 invalid_parameter', async (value) => {
    const refusal = await refusalOf(() => new Query(`delay=${encodeURIComponent(value)}`).integer('delay', 0, 'a whole number of milliseconds'));
    expect(refusal.code).toBe('invalid_parameter');
    expect(refusal.message).toContain('delay must be a whole number of milliseconds');
    if (value === '-1') expect(refusal.message).toContain('not negative');
  });

  it('when an integer parameter is absent, then the default; with leading zeros, then its value', () => {
    expect(new Query('').integer('delay', 7, '')).toBe(7);
    expect(new Query('delay=007').integer('delay', 0, '')).toBe(7);
    expect(new Query(`delay=${'9'.repeat(400)}`).integer('delay', 0, '')).toBe(Number.MAX_VALUE);
  });
});

describe('headers as node normalises them', () => {
  it('when names repeat, then node drops, arrays, or joins them by its rules', () => {
    const map = normaliseHeaders(
      h([
        ['Host', 'a.example'],
        ['host', 'b.example'],
        ['Set-Cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['Cookie', 'x=1'],
        ['COOKIE', 'y=2'],
        ['X-Trace', 'one'],
        ['x-trace', 'two'],
        ['User-Agent', 'first'],
        ['User-Agent', 'second'],
        ['Accept', 'text/html'],
      ]),
    );
    expect({ ...map }).toEqual({
      host: 'a.example',
      'set-cookie': ['a=1', 'b=2'],
      cookie: 'x=1; y=2',
      'x-trace': 'one, two',
      'user-agent': 'first',
      accept: 'text/html',
    });
    expect(Object.keys(map)).toEqual(['host', 'set-cookie', 'cookie', 'x-trace', 'user-agent', 'accept']);
  });

  it('when a header is repeated, then a note says what node did with it', () => {
    const notes = repeatedHeaderNotes(
      h([
        ['Content-Type', 'a/b'],
        ['content-type', 'c/d'],
        ['X-A', '1'],
        ['X-A', '2'],
        ['X-A', '3'],
        ['Only', 'once'],
      ]),
    );
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/^Content-Type was sent 2 times: node keeps the first value/);
    expect(notes[1]).toMatch(/^X-A was sent 3 times: joined with ", "/);
  });
});

describe('media types', () => {
  it('when a Content-Type has parameters, quoted or not, then they are read with lower-case names', () => {
    expect(parseMediaType('Multipart/Form-Data; Boundary="a b\\"c"; charset=UTF-8;')).toEqual({
      essence: 'multipart/form-data',
      params: { boundary: 'a b"c', charset: 'UTF-8' },
    });
    expect(parseMediaType('application/vnd.api+json')).toEqual({ essence: 'application/vnd.api+json', params: {} });
  });

  it.each(['json', 'text/', '/plain', 'text/plain; charset', 'text/plain; =x', 'text plain/x', 'text/plain; a="unterminated'])(
    'when the Content-Type is %j, then it is not a media type',
    (value) => {
      expect(parseMediaType(value)).toBeNull();
    },
  );
});

describe('the public base path, for relative Locations', () => {
  it.each([
    ['http://127.0.0.1:8080', ''],
    ['http://127.0.0.1:8080/', ''],
    ['https://host.example/prefix', '/prefix'],
    ['https://host.example/a/b/', '/a/b'],
    ['https://host.example//evil.example', '/evil.example'],
    ['not a url', ''],
  ])('when the base is %s, then the path is %j (never starting with //)', (base, path) => {
    expect(basePath(base)).toBe(path);
  });
});

describe('refusals the gateway cannot map from gRPC', () => {
  it('when a 413 is answered by the service, then it has the project error shape with the request id', () => {
    const answer = read(refusalAnswer(new HttpRefusal(413, 'file_too_large', 'Too big.'), 'req-1'));
    expect(answer.status).toBe(413);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.json).toEqual({ error: { code: 'file_too_large', message: 'Too big.', requestId: 'req-1' } });
  });
});

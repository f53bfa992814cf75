import { createHash } from 'node:crypto';
import { GrpcStatus } from '@sandbox/runtime';
import { refusalOf } from '@sandbox/testing';
import { echo, MAX_ECHO_ANSWER_BYTES } from '../../src/domain/echo';
import { inbound, read } from './support/requests';

const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('echo', () => {
  it('when a JSON object is POSTed with a query, then method, query, content type, parsed body, headers and address come back', () => {
    const answer = read(
      echo(
        inbound({
          method: 'POST',
          rawQuery: 'x=1&tag=a&tag=b',
          headers: [['Host', '127.0.0.1:8080'], JSON_TYPE, ['X-Custom', 'one'], ['x-custom', 'two']],
          body: '{"name":"Ada","n":[1,2]}',
          remoteAddress: '::ffff:10.0.0.7',
        }),
      ),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.json).toEqual({
      method: 'POST',
      url: 'http://127.0.0.1:8080/playground/echo?x=1&tag=a&tag=b',
      path: '/playground/echo',
      query: { x: '1', tag: ['a', 'b'] },
      contentType: 'application/json',
      body: { name: 'Ada', n: [1, 2] },
      bodyKind: 'json',
      bodySize: 24,
      headers: { host: '127.0.0.1:8080', 'content-type': 'application/json', 'x-custom': 'one, two' },
      clientAddress: '::ffff:10.0.0.7',
      httpVersion: '1.1',
      notes: [],
    });
  });

  it('when the JSON is malformed, then 400 malformed_body with the parser position', async () => {
    const refusal = await refusalOf(() => echo(inbound({ method: 'POST', headers: [JSON_TYPE], body: '{"a":1,}' })));
    expect(refusal.status).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(refusal.code).toBe('malformed_body');
    expect(refusal.message).toMatch(/^The body is not valid JSON \(Content-Type application\/json\): .*position/);
  });

  it.each([
    ['[1,2]', 'an array'],
    ['"text"', 'a string'],
    ['42', 'a number'],
    ['true', 'a boolean'],
    ['null', 'null'],
  ])('when the JSON body is %s, then 400 invalid_body saying it is %s', async (body, what) => {
    await expect(refusalOf(() => echo(inbound({ method: 'POST', headers: [JSON_TYPE], body })))).resolves.toEqual({
      status: GrpcStatus.INVALID_ARGUMENT,
      code: 'invalid_body',
      message: `The JSON body is ${what}; this endpoint takes a JSON object, e.g. {"name": "value"}.`,
    });
  });

  it('when a +json type is sent, then it is read as JSON too', () => {
    expect(read(echo(inbound({ method: 'PATCH', headers: [['Content-Type', 'application/merge-patch+json']], body: '{"a":null}' }))).json).toMatchObject({
      bodyKind: 'json',
      body: { a: null },
    });
  });

  it('when Content-Type is JSON but the body is empty, then 400 invalid_body (an empty string is not JSON)', async () => {
    const refusal = await refusalOf(() => echo(inbound({ method: 'POST', headers: [JSON_TYPE] })));
    expect(refusal).toMatchObject({
      code: 'invalid_body',
      message: 'Content-Type is application/json but the body is empty; a JSON body must be an object, e.g. {}.',
    });
  });

  it('when JSON is not UTF-8, then 400 invalid_utf8; when it starts with a BOM or names another charset, then it is read with a note', async () => {
    await expect(refusalOf(() => echo(inbound({ method: 'POST', headers: [JSON_TYPE], body: Buffer.from([0x7b, 0xff, 0x7d]) })))).resolves.toMatchObject({
      code: 'invalid_utf8',
    });
    const bom = read(
      echo(
        inbound({
          method: 'POST',
          headers: [['Content-Type', 'application/json; charset=latin1']],
          body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]),
        }),
      ),
    );
    expect(bom.json.body).toEqual({ a: 1 });
    expect(bom.json.notes).toEqual([expect.stringContaining('always UTF-8'), expect.stringContaining('byte order mark')]);
  });

  it('when a POST has no body, then body is null with a note, not a refusal', () => {
    const answer = read(echo(inbound({ method: 'POST' })));
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ body: null, bodyKind: 'none', bodySize: 0, contentType: null });
    expect(answer.json.notes).toEqual(['This POST carried no body, so body is null. (A JSON POST must send an object, even an empty one: {}.)']);
  });

  it('when a form is POSTed, then it is an object with repeated keys as arrays', () => {
    const answer = read(echo(inbound({ method: 'POST', headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: 'a=1&b=x+y&a=2' })));
    expect(answer.json).toMatchObject({ bodyKind: 'form', body: { a: ['1', '2'], b: 'x y' } });
  });

  it('when text is sent, then it is decoded in its charset (UTF-8 when none is named, with a note)', () => {
    const latin = read(
      echo(inbound({ method: 'PUT', headers: [['Content-Type', 'text/plain; charset=iso-8859-1']], body: Buffer.from([0x63, 0x61, 0x66, 0xe9]) })),
    );
    expect(latin.json).toMatchObject({ bodyKind: 'text', body: 'café', bodySize: 4, notes: [] });
    const plain = read(echo(inbound({ method: 'PUT', headers: [['Content-Type', 'text/csv']], body: 'a,b\n1,2' })));
    expect(plain.json).toMatchObject({ bodyKind: 'text', body: 'a,b\n1,2', notes: ['No charset was given; the text was read as UTF-8.'] });
  });

  it('when text is not valid in its charset, or the charset is unknown, then it is reported as bytes and says why', () => {
    const bytes = Buffer.from([0x66, 0xff, 0x66]);
    const invalid = read(echo(inbound({ method: 'POST', headers: [['Content-Type', 'text/plain; charset=utf-8']], body: bytes })));
    expect(invalid.json).toMatchObject({ bodyKind: 'bytes', body: { size: 3, sha256: sha(bytes) } });
    expect(invalid.json.notes[0]).toContain('not valid utf-8 text');
    const unknown = read(echo(inbound({ method: 'POST', headers: [['Content-Type', 'text/plain; charset=klingon']], body: 'x' })));
    expect(unknown.json.notes[0]).toContain('"klingon" is not one this service can decode');
  });

  it('when another type, or no Content-Type, is sent, then the body is its size and sha256', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]);
    const typed = read(echo(inbound({ method: 'POST', headers: [['Content-Type', 'image/png']], body: png })));
    expect(typed.json).toMatchObject({ bodyKind: 'bytes', body: { size: 6, sha256: sha(png) }, bodySize: 6 });
    const untyped = read(echo(inbound({ method: 'POST', body: 'hello' })));
    expect(untyped.json.body).toEqual({ size: 5, sha256: sha(Buffer.from('hello')) });
    expect(untyped.json.notes[0]).toMatch(/^No Content-Type was sent/);
    const multipart = read(echo(inbound({ method: 'POST', headers: [['Content-Type', 'multipart/form-data; boundary=x']], body: '--x--' })));
    expect(multipart.json.notes[0]).toContain('/playground/upload');
  });

  it('when a GET or DELETE carries a body, then a note says it is unusual', () => {
    const get = read(echo(inbound({ method: 'GET', headers: [['Content-Type', 'text/plain']], body: 'hi' })));
    expect(get.json.notes).toContainEqual(expect.stringContaining('A GET with a body is unusual'));
    const del = read(echo(inbound({ method: 'DELETE', headers: [JSON_TYPE], body: '{}' })));
    expect(del.json.notes).toContainEqual(expect.stringContaining('A DELETE with a body is legal'));
  });

  it('when X-Forwarded-For is sent, then a note says not to trust it and clientAddress stays the connection', () => {
    const answer = read(echo(inbound({ headers: [['X-Forwarded-For', '203.0.113.9']], remoteAddress: '127.0.0.1' })));
    expect(answer.json.clientAddress).toBe('127.0.0.1');
    expect(answer.json.notes[0]).toContain('X-Forwarded-For says "203.0.113.9"');
  });

  it('when the reflected body would make the answer too large, then it is reported by size and hash instead', () => {
    const body = Buffer.alloc(1024 * 1024, 0); // NUL bytes: six times larger as JSON text
    const answer = echo(inbound({ method: 'POST', headers: [['Content-Type', 'text/plain']], body }));
    expect(answer.body.length).toBeLessThan(MAX_ECHO_ANSWER_BYTES);
    const json = read(answer).json;
    expect(json).toMatchObject({ bodyKind: 'bytes', body: { size: body.length, sha256: sha(body) } });
    expect(json.notes).toContainEqual('The text body is too large to reflect here, so it is reported as its size and sha256.');
  });
});

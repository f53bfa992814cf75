import { createHmac } from 'node:crypto';
import OAuth from 'oauth-1.0a';
import type { oauth } from '@sandbox/contracts';
import { GrpcStatus } from '@sandbox/runtime';
import { baseStringUri, normalizedParameters, signatureBaseString } from '../../src/domain/oauth1/base-string';
import { percentEncode } from '../../src/domain/oauth1/encoding';
import { parseAuthorizationHeader, parseSignedRequest } from '../../src/domain/oauth1/signed-request';
import { sameSecret, sign } from '../../src/domain/oauth1/signature';
import { appErrorThrownBy as refusal } from '../support/refusals';

/** A SignedRequest as the gateway builds it. */
const signedRequest = (method: string, baseUrl: string, params: Array<[string, string]>, authorization = ''): oauth.SignedRequest => ({
  method,
  baseUrl,
  params: params.map(([name, value]) => ({ name, value })),
  authorization,
});

const baseStringOf = (request: oauth.SignedRequest) => {
  const parsed = parseSignedRequest(request);
  return signatureBaseString(parsed.method, parsed.baseUri, parsed.params);
};

describe('OAuth 1.0a signature base string (RFC 5849 3.4.1)', () => {
  it('when given the RFC 3.4.1.1 example request, then the base string is the published one', () => {
    // POST /request?b5=%3D%253D&a3=a&c%40=&a2=r%20b, Host: example.com, body c2&a3=2+q, as the gateway decodes them.
    const request = signedRequest(
      'POST',
      'http://example.com/request',
      [
        ['b5', '=%3D'],
        ['a3', 'a'],
        ['c@', ''],
        ['a2', 'r b'],
        ['c2', ''],
        ['a3', '2 q'],
      ],
      'OAuth realm="Example",\r\n oauth_consumer_key="9djdj82h48djs9d2",\r\n oauth_token="kkk9d7dh3k39sjv7",\r\n oauth_signature_method="HMAC-SHA1",\r\n oauth_timestamp="137131201",\r\n oauth_nonce="7d8f3e4a",\r\n oauth_signature="bYT5CMsGcbgUdFHObYMEfcx6bsw%3D"',
    );
    expect(baseStringOf(request)).toBe(
      'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
    );
  });

  // RFC 5849 1.2: client credentials dpf43f3p2l4k3l03 / kd94hf93k423kf44 at photos.example.net.
  const CONSUMER_SECRET = 'kd94hf93k423kf44';
  const vectors = [
    {
      leg: 'temporary credentials (leg 1)',
      request: signedRequest(
        'POST',
        'https://photos.example.net/initiate',
        [],
        'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131200", oauth_nonce="wIjqoS", oauth_callback="http%3A%2F%2Fprinter.example.com%2Fready", oauth_signature="74KNZJeDHnMBp0EMJ9ZHt%2FXKycU%3D"',
      ),
      tokenSecret: '',
      signature: '74KNZJeDHnMBp0EMJ9ZHt/XKycU=',
    },
    {
      leg: 'token credentials (leg 3)',
      request: signedRequest(
        'POST',
        'https://photos.example.net/token',
        [],
        'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="hh5s93j4hdidpola", oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131201", oauth_nonce="walatlh", oauth_verifier="hfdp7dh39dks9884", oauth_signature="gKgrFCywp7rO0OXSjdot%2FIHF7IU%3D"',
      ),
      tokenSecret: 'hdhd0244k9j7ao03',
      signature: 'gKgrFCywp7rO0OXSjdot/IHF7IU=',
    },
    {
      leg: 'a protected resource',
      request: signedRequest(
        'GET',
        'http://photos.example.net/photos',
        [
          ['file', 'vacation.jpg'],
          ['size', 'original'],
        ],
        'OAuth realm="Photos", oauth_consumer_key="dpf43f3p2l4k3l03", oauth_token="nnch734d00sl2jdk", oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131202", oauth_nonce="chapoH", oauth_signature="MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D"',
      ),
      tokenSecret: 'pfkkdhi9sl3r4s00',
      signature: 'MdpQcU8iPSUjWoN/UDMsK2sui9I=',
    },
  ];

  it.each(vectors)(
    'when signing the RFC 1.2 example of $leg, then HMAC-SHA1 gives the published signature, and the header carries it decoded',
    ({ request, tokenSecret, signature }) => {
      const parsed = parseSignedRequest(request);
      expect(sign('HMAC-SHA1', signatureBaseString(parsed.method, parsed.baseUri, parsed.params), CONSUMER_SECRET, tokenSecret)).toBe(signature);
      expect(parsed.protocol.get('oauth_signature')).toBe(signature);
    },
  );

  it('when the RFC 1.2 leg 1 is built, then its base string holds the callback encoded twice and no realm', () => {
    expect(baseStringOf(vectors[0].request)).toBe(
      'POST&https%3A%2F%2Fphotos.example.net%2Finitiate&oauth_callback%3Dhttp%253A%252F%252Fprinter.example.com%252Fready%26oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3DwIjqoS%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131200',
    );
  });

  it('when the method is lowercase, then the base string has it in uppercase', () => {
    expect(signatureBaseString('get', 'http://example.com/', [])).toBe('GET&http%3A%2F%2Fexample.com%2F&');
  });

  it('when a tricky request is signed by the oauth-1.0a library, then our base string and signature are the same', () => {
    const signer = new OAuth({
      consumer: { key: 'app_key', secret: "s3cr*t with 'quotes' & (parens)!" },
      signature_method: 'HMAC-SHA1',
      hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
    });
    const data = { q: 'a b+c', 'x[]': "!*'()", name: 'Zoë ☃', empty: '', tilde: '-._~' };
    const token = { key: 'tok', secret: 'tok&secret' };
    const signed = signer.authorize({ url: 'https://api.example.org/v1/items', method: 'POST', data }, token);
    const request = signedRequest('POST', 'https://api.example.org/v1/items', Object.entries(data), signer.toHeader(signed).Authorization);
    const { oauth_signature: _signature, ...unsigned } = signed;
    expect(baseStringOf(request)).toBe(signer.getBaseString({ url: 'https://api.example.org/v1/items', method: 'POST', data }, unsigned as OAuth.Data));
    expect(sign('HMAC-SHA1', baseStringOf(request), "s3cr*t with 'quotes' & (parens)!", 'tok&secret')).toBe(signed.oauth_signature);
  });

  it('when HMAC-SHA256 is used, then the signature is what the oauth-1.0a library computes with SHA-256', () => {
    const signer = new OAuth({
      consumer: { key: 'app_key', secret: 'ak_secret' },
      signature_method: 'HMAC-SHA256',
      hash_function: (base, key) => createHmac('sha256', key).update(base).digest('base64'),
    });
    const signed = signer.authorize({ url: 'http://example.com/p', method: 'GET', data: { a: '1' } }, { key: 't', secret: 'ts' });
    const request = signedRequest('GET', 'http://example.com/p', [['a', '1']], signer.toHeader(signed).Authorization);
    expect(sign('HMAC-SHA256', baseStringOf(request), 'ak_secret', 'ts')).toBe(signed.oauth_signature);
  });

  it('when PLAINTEXT is used, then the signature is the two secrets percent-encoded and joined by "&", the "&" kept with no token secret', () => {
    expect(sign('PLAINTEXT', 'ignored', 'kd94hf93k423kf44', 'pfkkdhi9sl3r4s00')).toBe('kd94hf93k423kf44&pfkkdhi9sl3r4s00');
    expect(sign('PLAINTEXT', 'ignored', 'a&b c', '')).toBe('a%26b%20c&');
  });

  it('when two signatures are compared, then equal ones match and any difference (length included) does not', () => {
    expect(sameSecret('abc=', 'abc=')).toBe(true);
    expect(sameSecret('abc', 'abc=')).toBe(false);
    expect(sameSecret('abd=', 'abc=')).toBe(false);
  });
});

describe('OAuth 1.0a normalisation', () => {
  it.each([
    ['HTTP://EXAMPLE.COM:80/r%20v/X', 'http://example.com/r%20v/X'],
    ['https://www.example.net:8080/?q=1', 'https://www.example.net:8080/'],
    ['https://Sandbox.Example.org:443/oauth1/request_token', 'https://sandbox.example.org/oauth1/request_token'],
    ['http://example.com:443/x', 'http://example.com:443/x'],
    ['https://example.com:80/x', 'https://example.com:80/x'],
    ['http://example.com', 'http://example.com/'],
    ['http://example.com:/a', 'http://example.com/a'],
    ['http://[::1]:80/a#frag', 'http://[::1]/a'],
    ['http://127.0.0.1:8080/Path/With/Case', 'http://127.0.0.1:8080/Path/With/Case'],
    ['http://example.com/a b/é', 'http://example.com/a%20b/%C3%A9'],
    ['http://example.com/100%', 'http://example.com/100%25'],
  ])('when the URL is %s, then the base string URI is %s', (url, expected) => {
    expect(baseStringUri(url)).toBe(expected);
  });

  it.each(['', '/relative/path', 'example.com/x', 'http:///nohost'])('when the URL is %p, then it is not a base string URI', (url) => {
    expect(baseStringUri(url)).toBeUndefined();
  });

  it('when encoding, then only unreserved characters stay, a space is %20 (never +), "+" is %2B, hex is uppercase, text is UTF-8', () => {
    expect(percentEncode("AZaz09-._~ !*'()+&=/?#[]@:$,;%")).toBe('AZaz09-._~%20%21%2A%27%28%29%2B%26%3D%2F%3F%23%5B%5D%40%3A%24%2C%3B%25');
    expect(percentEncode('é☃\u{1F600}')).toBe('%C3%A9%E2%98%83%F0%9F%98%80');
  });

  it('when parameters repeat, then every copy is kept and copies sort by value; names sort by their encoded bytes; oauth_signature is left out', () => {
    const params = [
      ['b', '2'],
      ['a', 'z'],
      ['a', 'y'],
      ['c2', ''],
      ['c@', 'x'],
      ['oauth_signature', 'sig'],
      ['A', 'upper'],
      ['a', 'y'],
    ].map(([name, value]) => ({ name, value }));
    expect(normalizedParameters(params)).toBe('A=upper&a=y&a=y&a=z&b=2&c%40=x&c2=');
  });

  it('when a query value held "+" (a space, as the gateway decoded it) or "%2B" (a plus), then the base string has %2520 and %252B', () => {
    const base = signatureBaseString('GET', 'http://example.com/', [
      { name: 'space', value: 'a b' },
      { name: 'plus', value: 'a+b' },
    ]);
    expect(base).toBe('GET&http%3A%2F%2Fexample.com%2F&plus%3Da%252Bb%26space%3Da%2520b');
  });
});

describe('OAuth 1.0a Authorization header (RFC 5849 3.5.1)', () => {
  it('when parsed, then realm is left out, names and values are percent-decoded, and "+" stays "+"', () => {
    expect(parseAuthorizationHeader('OAuth realm="Photos", oauth_consumer_key="a%20b", oauth_callback="http%3A%2F%2Fx.example%2F", oauth_nonce="a+b"')).toEqual(
      [
        { name: 'oauth_consumer_key', value: 'a b' },
        { name: 'oauth_callback', value: 'http://x.example/' },
        { name: 'oauth_nonce', value: 'a+b' },
      ],
    );
  });

  it('when the scheme is in another case, spacing is loose or a value is unquoted or empty, then it is still read', () => {
    expect(parseAuthorizationHeader('oauth   oauth_token = "t1" ,oauth_version=1.0,, oauth_verifier=""')).toEqual([
      { name: 'oauth_token', value: 't1' },
      { name: 'oauth_version', value: '1.0' },
      { name: 'oauth_verifier', value: '' },
    ]);
  });

  it.each([
    ['OAuth oauth_token="unterminated', /no closing quote/],
    ['OAuth oauth_token', /"=" was expected/],
    ['OAuth oauth_token="a" oauth_nonce="b"', /"," was expected/],
    ['OAuth oauth_token="%E0%A4%A"', /not valid percent-encoded UTF-8/],
  ])('when the header is %p, then 400 parameter_rejected saying where', (header, words) => {
    const error = refusal(() => parseAuthorizationHeader(header));
    expect(error).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'parameter_rejected' });
    expect(error.message).toMatch(words);
  });

  it('when a protocol parameter is in the header and the query, then 400 parameter_rejected naming it and both places', () => {
    const error = refusal(() => parseSignedRequest(signedRequest('GET', 'http://example.com/', [['oauth_nonce', 'n2']], 'OAuth oauth_nonce="n1"')));
    expect(error).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'parameter_rejected' });
    expect(error.message).toMatch(/oauth_nonce 2 times \(the Authorization header and the query or form body\)/);
    expect(error.challenge).toBeUndefined();
  });

  it('when a protocol parameter repeats within the query, then it is refused; an ordinary parameter may repeat', () => {
    expect(
      refusal(() =>
        parseSignedRequest(
          signedRequest('GET', 'http://example.com/', [
            ['oauth_token', 'a'],
            ['oauth_token', 'a'],
          ]),
        ),
      ).code,
    ).toBe('parameter_rejected');
    const parsed = parseSignedRequest(
      signedRequest('GET', 'http://example.com/', [
        ['a', '1'],
        ['a', '1'],
      ]),
    );
    expect(parsed.params).toHaveLength(2);
  });

  it('when the Authorization header is of another scheme, then it is not read', () => {
    const parsed = parseSignedRequest(signedRequest('GET', 'http://example.com/', [], 'Basic b2F1dGhfdG9rZW49IngiOng='));
    expect(parsed).toMatchObject({ header: 'other', params: [] });
  });
});

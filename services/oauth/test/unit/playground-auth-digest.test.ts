import { loadSigningKey, type SigningKey } from '../../src/domain/signing-key';
import { digestChallenge, digestResponse, digestVerify, type PlaygroundAuthDeps } from '../../src/domain/playground-auth';
import { digestNcKey, type DigestAlgorithm } from '../../src/domain/playground-auth/digest';
import { parseDigestAuthorization } from '../../src/domain/playground-auth/digest-header';
import type { EphemeralStore } from '../../src/stores/ephemeral-store';
import { memoryDeps, StandInApps } from '../support/unit-deps';

const APP_ID = 'app_digest_practice';
const API_KEY = `ak_${'D'.repeat(43)}`;
const REALM = 'training-sandbox';
const URI = '/playground/auth/digest?x=1';

/** The challenge's parameters, read the way a client reads them. */
function readChallenge(header: string): Record<string, string> {
  const params = parseDigestAuthorization(header);
  if (typeof params === 'string') throw new Error(params);
  return Object.fromEntries(params);
}

interface Answer {
  algorithm: DigestAlgorithm;
  username: string;
  password: string;
  realm: string;
  nonce: string;
  opaque: string;
  uri: string;
  method: string;
  nc: string;
  cnonce: string;
}

/** An Authorization header as a client builds it (RFC 7616 3.4), with fields to replace or (undefined) leave out. */
function authorization(answer: Answer, overrides: Record<string, string | undefined> = {}): string {
  const response = digestResponse({ ...answer, qop: 'auth' });
  const fields: Record<string, string | undefined> = {
    username: `"${answer.username}"`,
    realm: `"${answer.realm}"`,
    nonce: `"${answer.nonce}"`,
    uri: `"${answer.uri}"`,
    algorithm: answer.algorithm,
    response: `"${response}"`,
    opaque: `"${answer.opaque}"`,
    qop: 'auth',
    nc: answer.nc,
    cnonce: `"${answer.cnonce}"`,
    ...overrides,
  };
  return `Digest ${Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${value}`)
    .join(', ')}`;
}

describe('HTTP Digest (RFC 7616)', () => {
  describe('the response computation', () => {
    // RFC 7616 3.9.1: the same request answered with MD5 and with SHA-256.
    const rfc = {
      username: 'Mufasa',
      password: 'Circle of Life',
      realm: 'http-auth@example.org',
      method: 'GET',
      uri: '/dir/index.html',
      nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
      nc: '00000001',
      cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
      qop: 'auth',
    };

    it('when computed for the RFC 7616 3.9.1 MD5 example, then 8ca523f5e9506fed4657c9700eebdbec', () => {
      expect(digestResponse({ ...rfc, algorithm: 'MD5' })).toBe('8ca523f5e9506fed4657c9700eebdbec');
    });

    it('when computed for the RFC 7616 3.9.1 SHA-256 example, then 753927fa…b6c1', () => {
      expect(digestResponse({ ...rfc, algorithm: 'SHA-256' })).toBe('753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
    });

    it('when a -sess variant is used, then A1 includes the nonce and cnonce, so the response differs', () => {
      expect(digestResponse({ ...rfc, algorithm: 'MD5-sess' })).toMatch(/^[0-9a-f]{32}$/);
      expect(digestResponse({ ...rfc, algorithm: 'MD5-sess' })).not.toBe(digestResponse({ ...rfc, algorithm: 'MD5' }));
      expect(digestResponse({ ...rfc, algorithm: 'SHA-256-sess' })).not.toBe(digestResponse({ ...rfc, algorithm: 'SHA-256' }));
    });
  });

  describe('challenges and verification', () => {
    let signingKey: SigningKey;
    let now: number;
    let store: EphemeralStore;
    let apps: StandInApps;
    let deps: PlaygroundAuthDeps;

    beforeAll(async () => {
      signingKey = await loadSigningKey(undefined);
    });
    beforeEach(() => {
      now = Date.UTC(2030, 0, 1, 12, 0, 0);
      apps = new StandInApps();
      apps.add({ appId: APP_ID, apiKey: API_KEY });
      deps = memoryDeps(() => now, apps, signingKey);
      ({ store } = deps);
    });
    afterEach(async () => store.close());

    /** A fresh challenge answered correctly, with the given algorithm. */
    const answerTo = (algorithm: DigestAlgorithm = 'SHA-256', headers = digestChallenge(deps, REALM)): Answer => {
      const challenge = readChallenge(headers[0]);
      return {
        algorithm,
        username: APP_ID,
        password: API_KEY,
        realm: challenge.realm,
        nonce: challenge.nonce,
        opaque: challenge.opaque,
        uri: URI,
        method: 'GET',
        nc: '00000001',
        cnonce: 'abc123',
      };
    };
    const verify = (header: string, uri = URI, method = 'GET') => digestVerify(deps, { method, uri, authorization: header });
    const reasonFor = async (header: string, uri = URI) => {
      const { check, wwwAuthenticate } = await verify(header, uri);
      expect(check!.ok).toBe(false);
      expect(check!.reason).not.toContain(API_KEY);
      expect(wwwAuthenticate).toEqual([]);
      return check!.reason;
    };

    it('when a challenge is made, then SHA-256 then MD5, one realm, one nonce, qop="auth" and opaque', () => {
      const headers = digestChallenge(deps, REALM);
      expect(headers).toHaveLength(2);
      const pattern = (algorithm: string) =>
        new RegExp(`^Digest realm="${REALM}", qop="auth", algorithm=${algorithm}, nonce="[0-9A-Za-z._-]+", opaque="[A-Za-z0-9_-]+"$`);
      expect(headers[0]).toMatch(pattern('SHA-256'));
      expect(headers[1]).toMatch(pattern('MD5'));
      const [sha, md5] = headers.map(readChallenge);
      expect(md5.nonce).toBe(sha.nonce);
      expect(md5.realm).toBe(sha.realm);
      expect(digestChallenge(deps, REALM)[0]).not.toBe(headers[0]);
    });

    it('when the realm would break the header, then the challenge is refused as a bad request', () => {
      expect(() => digestChallenge(deps, 'a"b')).toThrow(/realm must be/);
      expect(() => digestChallenge(deps, '')).toThrow(/realm must be/);
    });

    it.each(['SHA-256', 'MD5', 'SHA-256-sess', 'MD5-sess'] as DigestAlgorithm[])('when answered with %s, then the app is accepted', async (algorithm) => {
      const { check } = await verify(authorization(answerTo(algorithm)));
      expect(check).toEqual({ ok: true, reason: '', principal: apps.apps.get(APP_ID)!.principal });
    });

    it('when the algorithm is left out, then MD5 is assumed (RFC 7616 3.4)', async () => {
      const answer = answerTo('MD5');
      expect((await verify(authorization(answer, { algorithm: undefined }))).check!.ok).toBe(true);
    });

    it('when another replica with the same signing key checks the nonce, then it is accepted there too', async () => {
      const pem = signingKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const replica: PlaygroundAuthDeps = { ...deps, signingKey: await loadSigningKey(pem) };
      const { check } = await digestVerify(replica, { method: 'GET', uri: URI, authorization: authorization(answerTo()) });
      expect(check!.ok).toBe(true);
      const otherSandbox: PlaygroundAuthDeps = { ...deps, signingKey: await loadSigningKey(undefined) };
      const foreign = await digestVerify(otherSandbox, { method: 'GET', uri: URI, authorization: authorization({ ...answerTo(), nc: '00000002' }) });
      expect(foreign.check!.reason).toMatch(/^nonce: it was not issued by this sandbox/);
    });

    describe('nonce count', () => {
      it('when the count rises, then each is accepted; when it repeats or falls, then refused', async () => {
        const answer = answerTo();
        expect((await verify(authorization(answer))).check!.ok).toBe(true);
        expect(await reasonFor(authorization(answer))).toMatch(/^nc 00000001 does not increase/);
        expect((await verify(authorization({ ...answer, nc: '00000003' }))).check!.ok).toBe(true);
        expect(await reasonFor(authorization({ ...answer, nc: '00000002' }))).toMatch(/^nc 00000002 does not increase/);
        expect((await verify(authorization({ ...answer, nc: '0000000A' }))).check!.ok).toBe(true);
      });

      it('when two checks race with the same count, then exactly one is accepted', async () => {
        const header = authorization(answerTo());
        const checks = await Promise.all([verify(header), verify(header), verify(header)]);
        expect(checks.filter(({ check }) => check!.ok)).toHaveLength(1);
      });

      it("when a count is kept, then for the nonce's remaining life plus a minute", async () => {
        const answer = answerTo();
        now += 60_000;
        await verify(authorization(answer));
        const key = digestNcKey(answer.nonce);
        expect(await store.get(key)).toBe('1');
        now += 4 * 60_000 + 60_000 - 1;
        expect(await store.get(key)).toBe('1');
        now += 1;
        expect(await store.get(key)).toBeUndefined();
      });

      it('when nc is malformed or zero, or nc/cnonce are missing, then refused naming nc', async () => {
        const answer = answerTo();
        expect(await reasonFor(authorization({ ...answer, nc: '1' }))).toMatch(/^nc '1' must be 8 hex digits/);
        expect(await reasonFor(authorization({ ...answer, nc: '00000000' }))).toMatch(/^nc 00000000 is not a count/);
        expect(await reasonFor(authorization(answer, { nc: undefined, cnonce: undefined }))).toBe('qop=auth needs nc and cnonce.');
      });
    });

    describe('stale nonces', () => {
      it('when a right answer uses a nonce older than 5 minutes, then refused with fresh challenges marked stale=true that work', async () => {
        const answer = answerTo();
        now += 5 * 60_000 - 1;
        expect((await verify(authorization(answer))).check!.ok).toBe(true);
        now += 1;
        const { check, wwwAuthenticate } = await verify(authorization({ ...answer, nc: '00000002' }));
        expect(check).toEqual({
          ok: false,
          reason: expect.stringMatching(/^nonce: stale\. The nonce expired at .* Your credentials were right/),
          principal: undefined,
        });
        expect(wwwAuthenticate).toHaveLength(2);
        expect(wwwAuthenticate[0]).toMatch(/algorithm=SHA-256, .*, stale=true$/);
        expect(wwwAuthenticate[1]).toMatch(/algorithm=MD5, .*, stale=true$/);
        expect(readChallenge(wwwAuthenticate[0]).nonce).not.toBe(answer.nonce);
        expect((await verify(authorization(answerTo('SHA-256', wwwAuthenticate)))).check!.ok).toBe(true);
      });

      it('when a wrong answer uses an expired nonce, then no stale flag: the response is refused and the expiry mentioned', async () => {
        const answer = { ...answerTo(), password: 'wrong' };
        now += 6 * 60_000;
        const reason = await reasonFor(authorization(answer));
        expect(reason).toMatch(/^response does not match\..* The nonce expired at /);
      });
    });

    describe('which part differed', () => {
      it('when the nonce is altered, then refused naming the nonce', async () => {
        const answer = answerTo();
        const altered = `${answer.nonce.slice(0, -2)}${answer.nonce.endsWith('AA') ? 'BB' : 'AA'}`;
        expect(await reasonFor(authorization({ ...answer, nonce: altered }))).toMatch(/^nonce: it was not issued by this sandbox/);
        expect(await reasonFor(authorization({ ...answer, nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093' }))).toMatch(/^nonce:/);
      });

      it('when the nonce claims to be from the future, then refused naming the nonce', async () => {
        const headers = digestChallenge({ ...deps, clock: () => now + 2 * 60_000 }, REALM);
        expect(await reasonFor(authorization(answerTo('SHA-256', headers)))).toMatch(/^nonce: its issue time lies ahead of server time/);
      });

      it('when opaque is missing or changed, then refused naming opaque', async () => {
        const answer = answerTo();
        expect(await reasonFor(authorization(answer, { opaque: undefined }))).toMatch(/^opaque is missing/);
        expect(await reasonFor(authorization({ ...answer, opaque: 'something-else' }))).toMatch(/^opaque differs/);
      });

      it('when the realm differs from the challenge, then refused naming realm', async () => {
        expect(await reasonFor(authorization({ ...answerTo(), realm: 'Training Sandbox' }))).toMatch(
          /^realm 'Training Sandbox' is not the realm of the challenge/,
        );
      });

      it('when uri is not the request-target, then refused naming both', async () => {
        const reason = await reasonFor(authorization({ ...answerTo(), uri: '/playground/auth/digest' }));
        expect(reason).toBe(
          `uri '/playground/auth/digest' differs from the request-target '${URI}': it must be the path and query exactly as on the request line.`,
        );
      });

      it('when the username is no App ID, or the app is revoked, then refused naming the username', async () => {
        expect(await reasonFor(authorization({ ...answerTo(), username: 'ghost' }))).toMatch(/^username 'ghost' is not the App ID of any app here/);
        apps.apps.get(APP_ID)!.active = false;
        expect(await reasonFor(authorization(answerTo()))).toBe(`The app '${APP_ID}' is revoked: its credentials are refused.`);
      });

      it('when the password is not the API key, then "response does not match" with the inputs used, never the expected response', async () => {
        const answer = { ...answerTo(), password: `as_${'S'.repeat(43)}` };
        const reason = await reasonFor(authorization(answer));
        expect(reason).toMatch(
          /^response does not match\. The server computed it with algorithm=SHA-256, username='app_digest_practice', realm='training-sandbox'/,
        );
        expect(reason).toContain('not the App Secret');
        expect(reason).not.toContain(digestResponse({ ...answer, password: API_KEY, qop: 'auth' }));
      });

      it('when the request method differs from the one hashed, then the response does not match', async () => {
        const { check } = await verify(authorization(answerTo()), URI, 'POST');
        expect(check!.reason).toMatch(/method 'POST'/);
      });

      it('when the response was hashed with another algorithm than the one named, then refused naming the algorithm', async () => {
        const answer = answerTo('MD5');
        const header = authorization(answer).replace('algorithm=MD5', 'algorithm=MD5-sess');
        expect(await reasonFor(header)).toBe(
          'algorithm: the response was computed with MD5, but the header says algorithm=MD5-sess: name the algorithm you hashed with.',
        );
        expect(await reasonFor(authorization(answer).replace('algorithm=MD5', 'algorithm=SHA-256'))).toMatch(
          /^response must be 64 hex characters for algorithm=SHA-256/,
        );
      });

      it('when the algorithm is not offered, then refused naming algorithm', async () => {
        expect(await reasonFor(authorization(answerTo(), { algorithm: 'SHA-512-256' }))).toMatch(/^algorithm 'SHA-512-256' is not offered: use SHA-256 or MD5/);
      });

      it('when qop is missing or auth-int, then refused saying to use qop=auth', async () => {
        expect(await reasonFor(authorization(answerTo(), { qop: undefined }))).toMatch(/^qop is missing: this server requires qop=auth/);
        expect(await reasonFor(authorization(answerTo(), { qop: 'auth-int' }))).toBe("qop 'auth-int' is not offered: use qop=auth.");
      });

      it('when userhash or username* is used, then refused saying to send the App ID as username', async () => {
        expect(await reasonFor(authorization(answerTo(), { userhash: 'true' }))).toMatch(/^userhash is not offered here/);
        expect(await reasonFor(authorization(answerTo(), { 'username*': "UTF-8''x" }))).toMatch(/^username\* .* is not needed here/);
      });

      it('when the header does not parse, then refused saying where', async () => {
        expect(await reasonFor('')).toMatch(/^No Digest credentials were sent/);
        expect(await reasonFor('Basic YTpi')).toMatch(/does not use the Digest scheme/);
        expect(await reasonFor('Digest username="a')).toMatch(/no closing double quote/);
        expect(await reasonFor('Digest username="a", username="b"')).toBe('The Digest header sends username twice.');
        expect(await reasonFor('Digest username')).toMatch(/username has no value/);
        expect(await reasonFor('Digest realm="x"')).toBe('The Digest header lacks username, nonce, uri, response.');
      });
    });

    it('when the header uses escapes, odd spacing and empty list elements, then it still parses', () => {
      expect(parseDigestAuthorization('digest  ,username = "a\\"b" ,, qop=auth,')).toEqual(
        new Map([
          ['username', 'a"b'],
          ['qop', 'auth'],
        ]),
      );
    });
  });
});

import { createHmac, randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { oauth } from '@sandbox/contracts';
import { AppError, GrpcStatus } from '@sandbox/runtime';
import { eventually } from '@sandbox/testing';
import { oauth1Signer, type SignatureMethod as Method } from '../support/oauth1-client';
import { movableClock, REDIS_PREFIX, sha256hex, startOAuthSystem, type IdentityClient, type OAuthClient, type OAuthSystem } from '../support/oauth-harness';
import { appErrorOf as failure } from '../support/refusals';

jest.setTimeout(60_000);

interface Credentials {
  oauthToken: string;
  oauthTokenSecret: string;
}

const PUBLIC = 'http://127.0.0.1:8080';
const CALLBACK = 'http://127.0.0.1:9/ready?from=sandbox';
const ELEVEN_MINUTES_MS = 11 * 60_000;

/**
 * OAuth 1.0a at the gRPC boundary: the real identity service (memory
 * stores), two oauth replicas sharing the real Redis and one signing key,
 * each with a clock the test moves (expiry without sleeping), called through
 * grpc-js; every request signed by the oauth-1.0a npm library, not our code.
 */
describe('oauth service: OAuth 1.0a over gRPC (real identity, real Redis, two replicas)', () => {
  /** Both replicas' clock, and the signer's. */
  const { clock, letTimePass } = movableClock();
  let system: OAuthSystem;
  let idp: IdentityClient;
  let a: OAuthClient; // replica A
  let b: OAuthClient; // replica B, same Redis and key
  let redis: Redis;
  let owner: string;
  const newApp = async () => {
    const { app, issued } = await idp.createApp({ ownerId: owner, name: 'OAuth 1.0a practice', description: '', redirectUris: [] });
    return { id: app!.id, key: app!.appId, secret: issued!.apiKey! };
  };
  type App = Awaited<ReturnType<typeof newApp>>;
  let app: App;

  /**
   * A request as a client signs it (the oauth-1.0a library) and the gateway
   * hands it over: protocol parameters in the Authorization header, other
   * parameters as query or form parameters, the URL the client addressed.
   */
  function signed(
    path: string,
    options: {
      by?: App;
      token?: { key: string; secret: string };
      extra?: Record<string, string>;
      data?: Record<string, string>;
      method?: string;
      signatureMethod?: Method;
      consumerSecret?: string;
    } = {},
  ): oauth.SignedRequest {
    const by = options.by ?? app;
    const signatureMethod = options.signatureMethod ?? 'HMAC-SHA1';
    const signer = oauth1Signer({ key: by.key, secret: options.consumerSecret ?? by.secret }, signatureMethod, () => Math.floor(clock() / 1000));
    const url = `${PUBLIC}${path}`;
    const method = options.method ?? 'POST';
    const protocol = signer.authorize({ url, method, data: { ...options.data, ...options.extra } }, options.token);
    return {
      method,
      baseUrl: url,
      params: Object.entries(options.data ?? {}).map(([name, value]) => ({ name, value })),
      authorization: signer.toHeader(protocol).Authorization,
    };
  }

  const leg1 = (via: OAuthClient = a, options: Parameters<typeof signed>[1] = {}) =>
    via.oAuth1RequestToken({ request: signed('/oauth1/request_token', { extra: { oauth_callback: CALLBACK }, ...options }) });
  const leg2 = (token: string, via: OAuthClient = a) => via.oAuth1Authorize({ oauthToken: token });
  const leg3Request = (temporary: Credentials, verifier: string, options: Parameters<typeof signed>[1] = {}) =>
    signed('/oauth1/access_token', {
      token: { key: temporary.oauthToken, secret: temporary.oauthTokenSecret },
      extra: { oauth_verifier: verifier },
      ...options,
    });
  const leg3 = (temporary: Credentials, verifier: string, via: OAuthClient = a, options: Parameters<typeof signed>[1] = {}) =>
    via.oAuth1AccessToken({ request: leg3Request(temporary, verifier, options) });
  const protectedRequest = (access: Credentials, options: Parameters<typeof signed>[1] = {}) =>
    signed('/playground/auth/oauth1', { method: 'GET', token: { key: access.oauthToken, secret: access.oauthTokenSecret }, ...options });
  const verify = async (access: Credentials, via: OAuthClient = a, options: Parameters<typeof signed>[1] = {}) =>
    (await via.oAuth1Verify({ request: protectedRequest(access, options) })).check!;
  const threeLegs = async (by: App = app) => {
    const temporary = await leg1(a, { by });
    const { oauthVerifier } = await leg2(temporary.oauthToken, b);
    return leg3(temporary, oauthVerifier, a, { by });
  };
  const expectProblem = (error: AppError, code: string) => {
    expect(error).toMatchObject({ status: GrpcStatus.UNAUTHENTICATED, code, challenge: `OAuth realm="training-sandbox", oauth_problem="${code}"` });
  };

  beforeAll(async () => {
    system = await startOAuthSystem({ clock, label: 'oauth1' });
    ({ idp, redis, owner } = system);
    [a, b] = system.replicas;
    app = await newApp();
  });

  afterAll(() => system?.stop());

  describe('the three legs', () => {
    it('leg 1 at replica A, leg 2 at B, leg 3 at A, a protected request at B: each answers as RFC 5849 says, and the app is the principal', async () => {
      const temporary = await leg1(a);
      expect(temporary).toEqual({ oauthToken: expect.stringMatching(/^o1rt_/), oauthTokenSecret: expect.any(String), oauthCallbackConfirmed: true });
      const approved = await leg2(temporary.oauthToken, b);
      expect(approved).toEqual({
        oauthToken: temporary.oauthToken,
        oauthVerifier: expect.any(String),
        callback: `${CALLBACK}&oauth_token=${temporary.oauthToken}&oauth_verifier=${approved.oauthVerifier}`,
      });
      const access = await leg3(temporary, approved.oauthVerifier, a);
      expect(access).toEqual({ oauthToken: expect.stringMatching(/^o1at_/), oauthTokenSecret: expect.any(String) });
      const check = await verify(access, b, { data: { page: '2', q: 'spaces and +plus' } });
      expect(check).toEqual({ ok: true, reason: '', principal: { id: app.id, appId: app.key, ownerId: owner, scopes: expect.any(Array) } });
    });

    it.each<Method>(['HMAC-SHA256', 'PLAINTEXT'])('with %s, then the three legs and a protected request pass too', async (signatureMethod) => {
      const temporary = await leg1(a, { signatureMethod });
      const { oauthVerifier } = await leg2(temporary.oauthToken);
      const access = await leg3(temporary, oauthVerifier, b, { signatureMethod });
      expect((await verify(access, a, { signatureMethod })).ok).toBe(true);
    });

    it('Redis holds the request token under its hash (no secret in any value), the nonces, and after leg 3 only a used-mark, each for at most 11 minutes', async () => {
      const temporary = await leg1(a, { extra: { oauth_callback: 'oob' } });
      const rtKey = `${REDIS_PREFIX}oauth1:rt:${sha256hex(temporary.oauthToken)}`;
      const rtTtl = await redis.pttl(rtKey);
      expect(rtTtl).toBeGreaterThan(ELEVEN_MINUTES_MS - 30_000);
      expect(rtTtl).toBeLessThanOrEqual(ELEVEN_MINUTES_MS);
      const stored = (await redis.get(rtKey))!;
      expect(JSON.parse(stored)).toEqual({ app: app.key, callback: 'oob', issuedAt: expect.any(Number), expiresAt: expect.any(Number) });
      expect(stored).not.toContain(temporary.oauthTokenSecret);
      expect(await redis.exists(`${REDIS_PREFIX}oauth1:rt:${temporary.oauthToken}`)).toBe(0);

      const { oauthVerifier, callback } = await leg2(temporary.oauthToken);
      expect(callback).toBe('');
      const request = leg3Request(temporary, oauthVerifier);
      const access = await a.oAuth1AccessToken({ request });
      const nonce = /oauth_nonce="([^"]+)"/.exec(request.authorization)![1];
      const nonceTtl = await redis.pttl(`${REDIS_PREFIX}oauth1:nonce:${sha256hex(JSON.stringify([app.key, nonce]))}`);
      expect(nonceTtl).toBeGreaterThan(ELEVEN_MINUTES_MS - 30_000);
      expect(nonceTtl).toBeLessThanOrEqual(ELEVEN_MINUTES_MS);
      expect(await redis.exists(rtKey)).toBe(0);
      const usedTtl = await redis.pttl(`${REDIS_PREFIX}oauth1:rt-used:${sha256hex(temporary.oauthToken)}`);
      expect(usedTtl).toBeGreaterThan(0);
      expect(usedTtl).toBeLessThanOrEqual(ELEVEN_MINUTES_MS);
      // The access token is kept nowhere: no key, and no value holds it or its secret.
      for (const key of await redis.keys(`${REDIS_PREFIX}oauth1:*`)) {
        const value = (await redis.get(key)) ?? '';
        for (const secret of [access.oauthToken, access.oauthTokenSecret, temporary.oauthTokenSecret, oauthVerifier])
          expect(`${key} ${value}`).not.toContain(secret);
      }
    });
  });

  describe('refusals carry their oauth_problem, status and challenge across gRPC', () => {
    it('a malformed request is INVALID_ARGUMENT: parameter_absent naming what is missing, parameter_rejected, signature_method_rejected, version_rejected', async () => {
      const absent = await failure(a.oAuth1RequestToken({ request: signed('/oauth1/request_token') }));
      expect(absent).toMatchObject({
        status: GrpcStatus.INVALID_ARGUMENT,
        code: 'parameter_absent',
        message: expect.stringContaining('oauth_parameters_absent=oauth_callback'),
      });
      expect(absent.challenge).toBeUndefined();

      const twice = signed('/oauth1/request_token', { extra: { oauth_callback: CALLBACK } });
      twice.params.push({ name: 'oauth_nonce', value: 'again' });
      expect(await failure(a.oAuth1RequestToken({ request: twice }))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'parameter_rejected' });

      const rsa = signed('/oauth1/request_token', { extra: { oauth_callback: CALLBACK } });
      rsa.authorization = rsa.authorization.replace('HMAC-SHA1', 'RSA-SHA1');
      expect(await failure(a.oAuth1RequestToken({ request: rsa }))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'signature_method_rejected' });

      const version = signed('/oauth1/request_token', { extra: { oauth_callback: CALLBACK } });
      version.authorization = version.authorization.replace('oauth_version="1.0"', 'oauth_version="1.1"');
      expect(await failure(a.oAuth1RequestToken({ request: version }))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'version_rejected' });

      const noToken = await failure(b.oAuth1Authorize({ oauthToken: '' }));
      expect(noToken).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'parameter_absent' });
    });

    it('an unknown consumer key is consumer_key_unknown; a wrong consumer secret is signature_invalid with the base string, never the secret or the expected signature', async () => {
      expectProblem(await failure(leg1(a, { by: { ...app, key: 'app_unknown0000000000000' } })), 'consumer_key_unknown');
      const wrong = await failure(leg1(b, { consumerSecret: 'ak_not-the-key' }));
      expectProblem(wrong, 'signature_invalid');
      const base = `POST&${encodeURIComponent(`${PUBLIC}/oauth1/request_token`)}&oauth_callback%3D`;
      expect(wrong.message).toContain(base);
      const built = wrong.message.slice(wrong.message.indexOf(base));
      const expected = createHmac('sha1', `${app.secret}&`).update(built).digest('base64');
      for (const secret of [app.secret, expected, encodeURIComponent(expected)]) expect(wrong.message).not.toContain(secret);
    });

    it('a bad signature on a long request still arrives whole across gRPC, its base string cut after 4000 characters', async () => {
      const error = await failure(leg1(a, { consumerSecret: 'ak_not-the-key', data: { big: '%&='.repeat(5_000) } }));
      expectProblem(error, 'signature_invalid');
      expect(error.message).toMatch(/\.\.\. \(\d+ more characters\)$/);
    });

    it('a timestamp more than 5 minutes off is timestamp_refused, saying the server time', async () => {
      const request = signed('/oauth1/request_token', { extra: { oauth_callback: CALLBACK } });
      const stale = Math.floor(clock() / 1000) - 301;
      request.authorization = request.authorization.replace(/oauth_timestamp="\d+"/, `oauth_timestamp="${stale}"`);
      const error = await failure(a.oAuth1RequestToken({ request }));
      expectProblem(error, 'timestamp_refused');
      expect(error.message).toMatch(/seconds behind the server's time, \d+ \(\d{4}-/);
    });

    it('an unknown temporary token is token_rejected at legs 2 and 3; the verifier of another token is verifier_invalid and does not use the token up', async () => {
      const made = { oauthToken: `o1rt_${randomBytes(32).toString('base64url')}`, oauthTokenSecret: 'x' };
      expectProblem(await failure(leg2(made.oauthToken)), 'token_rejected');
      expectProblem(await failure(leg3(made, 'whatever')), 'token_rejected');

      const first = await leg1(a);
      const second = await leg1(b);
      const { oauthVerifier: secondVerifier } = await leg2(second.oauthToken, a);
      const { oauthVerifier } = await leg2(first.oauthToken, b);
      expectProblem(await failure(leg3(first, secondVerifier, b)), 'verifier_invalid');
      await expect(leg3(first, oauthVerifier, a)).resolves.toMatchObject({ oauthToken: expect.stringMatching(/^o1at_/) });
    });
  });

  describe('single use and replay, across replicas', () => {
    it('two leg 3 requests with one temporary token at replicas A and B at once: exactly one gets an access token, the other token_used; later ones too', async () => {
      const temporary = await leg1(a);
      const { oauthVerifier } = await leg2(temporary.oauthToken, b);
      const results = await Promise.allSettled([leg3(temporary, oauthVerifier, a), leg3(temporary, oauthVerifier, b)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
      expectProblem(lost.reason as AppError, 'token_used');
      expectProblem(await failure(leg3(temporary, oauthVerifier, b)), 'token_used');
      expectProblem(await failure(leg2(temporary.oauthToken, a)), 'token_rejected');
    });

    it('one signed request sent to replicas A and B at once: exactly one is accepted, the other refused as nonce_used', async () => {
      const access = await threeLegs();
      const request = protectedRequest(access);
      const checks = await Promise.all([a.oAuth1Verify({ request }), b.oAuth1Verify({ request })]);
      expect(checks.filter((c) => c.check!.ok)).toHaveLength(1);
      expect(checks.find((c) => !c.check!.ok)!.check!.reason).toMatch(/^oauth_problem=nonce_used: /);
    });

    it('a replayed leg 1 is refused as nonce_used', async () => {
      const request = signed('/oauth1/request_token', { extra: { oauth_callback: CALLBACK } });
      await a.oAuth1RequestToken({ request });
      expectProblem(await failure(b.oAuth1RequestToken({ request })), 'nonce_used');
    });
  });

  describe('verification', () => {
    it('before a successful leg 3 it is refused, saying to complete the three legs first', async () => {
      const noToken = await a.oAuth1Verify({ request: signed('/playground/auth/oauth1', { method: 'GET' }) });
      expect(noToken.check).toEqual({
        ok: false,
        reason: expect.stringContaining('complete the three legs first: request_token, authorize, access_token'),
        principal: undefined,
      });
      const temporary = await leg1(a);
      expect((await verify(temporary, b)).reason).toMatch(/temporary token of leg 1, not an access token: complete the three legs first/);
    });

    it('a bad signature is ok=false with signature_invalid and the base string; a malformed request is an INVALID_ARGUMENT error', async () => {
      const access = await threeLegs();
      const check = await verify({ ...access, oauthTokenSecret: 'wrong' }, a);
      expect(check).toMatchObject({
        ok: false,
        reason: expect.stringMatching(
          /^oauth_problem=signature_invalid: .*GET&http%3A%2F%2F127\.0\.0\.1%3A8080%2Fplayground%2Fauth%2Foauth1&oauth_consumer_key/,
        ),
      });
      expect(check.reason).not.toContain(access.oauthTokenSecret);
      const request = protectedRequest(access);
      request.authorization += ', oauth_token="again"';
      expect(await failure(a.oAuth1Verify({ request }))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'parameter_rejected' });
    });

    it('after the API key is rotated, signatures made with the old one are refused', async () => {
      const rotating = await newApp();
      const access = await threeLegs(rotating);
      const { issued } = await idp.rotateCredentials({ ownerId: owner, id: rotating.id, apiKey: true });
      const renewed = { ...rotating, secret: issued!.apiKey! };
      await eventually(
        () => verify(access, a, { by: rotating }),
        (check) => !check.ok,
        5_000,
      );
      expect(await verify(access, b, { by: renewed })).toMatchObject({ ok: true });
    });

    it('when the app is revoked, then within a second its access token is refused at both replicas, and so is leg 1; a deleted app is unknown', async () => {
      const doomed = await newApp();
      const access = await threeLegs(doomed);
      expect((await verify(access, a, { by: doomed })).ok).toBe(true);
      await idp.deleteApp({ ownerId: owner, id: doomed.id, revoke: true });
      // Each replica remembers an app for at most 500 ms (and identity too): every replica refuses within a second.
      for (const replica of [a, b]) {
        const { value, elapsedMs } = await eventually(
          () => verify(access, replica, { by: doomed }),
          (check) => !check.ok,
          5_000,
          25,
        );
        expect(elapsedMs).toBeLessThan(1_500);
        expect(value.reason).toMatch(/^oauth_problem=consumer_key_rejected: .*revoked/);
      }
      expectProblem(await failure(leg1(a, { by: doomed })), 'consumer_key_rejected');

      const gone = await newApp();
      const goneAccess = await threeLegs(gone);
      await idp.deleteApp({ ownerId: owner, id: gone.id, revoke: false });
      const deleted = await eventually(
        () => verify(goneAccess, a, { by: gone }),
        (check) => !check.ok,
        5_000,
        25,
      );
      expect(deleted.value.reason).toMatch(/^oauth_problem=consumer_key_unknown: /);
    });
  });

  describe('expiry, by the injected clock', () => {
    it('10 minutes after leg 1 the temporary token is refused at leg 2 and expired at leg 3; 24 hours after leg 3 the access token is expired', async () => {
      const temporary = await leg1(a);
      const { oauthVerifier } = await leg2(temporary.oauthToken, b);
      const access = await threeLegs();
      letTimePass(10 * 60_000 + 1_000);
      const atLeg2 = await failure(leg2(temporary.oauthToken, a));
      expectProblem(atLeg2, 'token_rejected');
      expect(atLeg2.message).toMatch(/expired at/);
      expectProblem(await failure(leg3(temporary, oauthVerifier, b)), 'token_expired');
      expect((await verify(access, a)).ok).toBe(true);
      letTimePass(24 * 3600_000);
      expect((await verify(access, b)).reason).toMatch(/^oauth_problem=token_expired: The access token expired at/);
    });
  });
});

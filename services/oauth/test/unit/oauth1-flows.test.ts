import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import type OAuth from 'oauth-1.0a';
import type { oauth } from '@sandbox/contracts';
import { GrpcStatus, type AppError } from '@sandbox/runtime';
import { accessToken, authorize, requestToken, verify, type OAuth1Deps } from '../../src/domain/oauth1';
import { percentEncode } from '../../src/domain/oauth1/encoding';
import { oauth1Signer, type SignatureMethod as Method } from '../support/oauth1-client';
import { appErrorOf as refusal } from '../support/refusals';
import { memoryDeps, StandInApps } from '../support/unit-deps';

const URL_BASE = 'https://sandbox.example';
const CALLBACK = 'https://client.example/cb?keep=1';

/** A stand-in app as an OAuth 1.0a client holds it: consumer key (App ID) and consumer secret (API key). */
const consumerOf = ({ appId, apiKey, app }: ReturnType<StandInApps['add']>) => ({ key: appId, secret: apiKey, app });
type Consumer = ReturnType<typeof consumerOf>;

describe('OAuth 1.0a three legs (domain rules, memory store, a clock the test moves)', () => {
  const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  let now: number;
  let deps: OAuth1Deps;
  let apps: StandInApps;
  let consumer: Consumer;

  beforeEach(() => {
    now = Date.UTC(2030, 0, 1, 12);
    apps = new StandInApps();
    consumer = consumerOf(apps.add());
    deps = memoryDeps(() => now, apps, { privateKey });
  });
  afterEach(async () => deps.store.close());

  /**
   * A request signed by the oauth-1.0a library (not our code): protocol
   * parameters in the Authorization header (or the query), other parameters
   * as query or form parameters, as the gateway hands them over.
   */
  function signed(
    options: {
      method?: string;
      path?: string;
      token?: { key: string; secret: string };
      extra?: Record<string, string>;
      data?: Record<string, string>;
      place?: 'header' | 'query';
      signatureMethod?: Method;
      at?: number;
      nonce?: string;
      by?: Consumer;
      consumerSecret?: string;
      /** The URL the client signs (default: the sandbox's URL of `path`). */
      url?: string;
      /** The URL the gateway hands over (default: the one signed). */
      sentUrl?: string;
    } = {},
  ): oauth.SignedRequest {
    const by = options.by ?? consumer;
    const method = options.signatureMethod ?? 'HMAC-SHA1';
    const signer = oauth1Signer(
      { key: by.key, secret: options.consumerSecret ?? by.secret },
      method,
      () => options.at ?? Math.floor(now / 1000),
      options.nonce,
    );
    const url = options.url ?? `${URL_BASE}${options.path ?? '/playground/auth/oauth1'}`;
    const data = { ...options.data, ...options.extra };
    const signedData = signer.authorize({ url, method: options.method ?? 'POST', data: { ...data } }, options.token);
    const protocol = Object.fromEntries(Object.entries(signedData).filter(([name]) => name.startsWith('oauth_'))) as OAuth.Authorization;
    const plain = Object.entries(options.data ?? {}).map(([name, value]) => ({ name, value }));
    if (options.place === 'query') {
      return {
        method: options.method ?? 'POST',
        baseUrl: options.sentUrl ?? url,
        params: [...Object.entries(protocol).map(([name, value]) => ({ name, value: String(value) })), ...plain],
        authorization: '',
      };
    }
    return { method: options.method ?? 'POST', baseUrl: options.sentUrl ?? url, params: plain, authorization: signer.toHeader(protocol).Authorization };
  }

  const leg1 = (options: Parameters<typeof signed>[0] = {}) =>
    requestToken(deps, signed({ path: '/oauth1/request_token', extra: { oauth_callback: CALLBACK }, ...options }));
  const leg3 = (temporary: { oauthToken: string; oauthTokenSecret: string }, verifier: string, options: Parameters<typeof signed>[0] = {}) =>
    accessToken(
      deps,
      signed({
        path: '/oauth1/access_token',
        token: { key: temporary.oauthToken, secret: temporary.oauthTokenSecret },
        extra: { oauth_verifier: verifier },
        ...options,
      }),
    );
  const threeLegs = async (options: Parameters<typeof signed>[0] = {}) => {
    const temporary = await leg1(options);
    const { oauthVerifier } = await authorize(deps, temporary.oauthToken);
    return leg3(temporary, oauthVerifier, options);
  };
  const call = (access: { oauthToken: string; oauthTokenSecret: string }, options: Parameters<typeof signed>[0] = {}) =>
    verify(deps, signed({ method: 'GET', token: { key: access.oauthToken, secret: access.oauthTokenSecret }, ...options }));

  describe('the happy path', () => {
    it('when the three legs are run with HMAC-SHA1, then the access token signs a protected request and the app is the principal', async () => {
      const temporary = await leg1();
      expect(temporary).toEqual({
        oauthToken: expect.stringMatching(/^o1rt_[A-Za-z0-9_-]{43}$/),
        oauthTokenSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        oauthCallbackConfirmed: true,
      });
      const approved = await authorize(deps, temporary.oauthToken);
      expect(approved).toEqual({
        oauthToken: temporary.oauthToken,
        oauthVerifier: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        callback: `${CALLBACK}&oauth_token=${temporary.oauthToken}&oauth_verifier=${approved.oauthVerifier}`,
      });
      const access = await leg3(temporary, approved.oauthVerifier);
      expect(access).toEqual({ oauthToken: expect.stringMatching(/^o1at_/), oauthTokenSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      expect(await call(access, { data: { q: 'a b+c', 'x[]': "!*'()" } })).toEqual({ ok: true, reason: '', principal: consumer.app.principal });
    });

    it.each<[Method, 'header' | 'query']>([
      ['HMAC-SHA256', 'header'],
      ['HMAC-SHA1', 'query'],
      ['PLAINTEXT', 'header'],
    ])('when signed with %s, protocol parameters in the %s, then every leg accepts it', async (signatureMethod, place) => {
      const access = await threeLegs({ signatureMethod, place });
      expect((await call(access, { signatureMethod, place })).ok).toBe(true);
    });

    it('when PLAINTEXT leaves out oauth_timestamp and oauth_nonce (RFC 5849 3.1 allows it), then it is accepted', async () => {
      const access = await threeLegs();
      const signature = `${percentEncode(consumer.secret)}&${percentEncode(access.oauthTokenSecret)}`; // RFC 5849 3.4.4, then encoded for the header
      const header = `OAuth oauth_consumer_key="${consumer.key}", oauth_token="${access.oauthToken}", oauth_signature_method="PLAINTEXT", oauth_signature="${percentEncode(signature)}"`;
      expect(await verify(deps, { method: 'GET', baseUrl: `${URL_BASE}/p`, params: [], authorization: header })).toMatchObject({ ok: true });
    });

    it('when the client signed the normalised URL and the gateway saw it with upper case and a default port, then it verifies', async () => {
      const access = await threeLegs();
      expect((await call(access, { sentUrl: 'HTTPS://SANDBOX.example:443/playground/auth/oauth1' })).ok).toBe(true);
    });

    it('when the callback is oob, then leg 2 answers no callback URL; a URL callback keeps its query and fragment', async () => {
      const oob = await leg1({ extra: { oauth_callback: 'oob' } });
      expect((await authorize(deps, oob.oauthToken)).callback).toBe('');
      const withFragment = await leg1({ extra: { oauth_callback: 'http://127.0.0.1:9/cb?a=%20b&c#top' } });
      const approved = await authorize(deps, withFragment.oauthToken);
      expect(approved.callback).toBe(`http://127.0.0.1:9/cb?a=%20b&c&oauth_token=${withFragment.oauthToken}&oauth_verifier=${approved.oauthVerifier}#top`);
    });

    it('when leg 2 is asked twice, then it answers the same verifier (bound to the token) and writes nothing', async () => {
      const temporary = await leg1();
      const first = await authorize(deps, temporary.oauthToken);
      const second = await authorize(deps, temporary.oauthToken);
      expect(second.oauthVerifier).toBe(first.oauthVerifier);
    });
  });

  describe('refusals of a malformed request (400, no challenge)', () => {
    it('when protocol parameters are missing, then parameter_absent naming each', async () => {
      const error = await refusal(requestToken(deps, { method: 'POST', baseUrl: `${URL_BASE}/oauth1/request_token`, params: [], authorization: '' }));
      expect(error).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'parameter_absent' });
      expect(error.message).toContain(
        'oauth_parameters_absent=oauth_consumer_key&oauth_signature_method&oauth_signature&oauth_timestamp&oauth_nonce&oauth_callback',
      );
      expect(error.challenge).toBeUndefined();
      expect((await refusal(requestToken(deps, signed({ path: '/oauth1/request_token' })))).message).toMatch(
        /^Missing or empty protocol parameters: oauth_callback /,
      );
      const noVerifier = await refusal(accessToken(deps, signed({ token: { key: 'o1rt_x', secret: 's' } })));
      expect(noVerifier).toMatchObject({ code: 'parameter_absent', message: expect.stringContaining('oauth_parameters_absent=oauth_verifier') });
    });

    it('when the Authorization header is of another scheme, then the refusal says it was not read', async () => {
      const error = await refusal(verify(deps, { method: 'GET', baseUrl: `${URL_BASE}/p`, params: [], authorization: 'Bearer abc' }));
      expect(error.message).toMatch(/not of the OAuth scheme/);
    });

    it('when a protocol parameter is sent twice, then parameter_rejected', async () => {
      const request = signed({ extra: { oauth_callback: CALLBACK } });
      request.params.push({ name: 'oauth_callback', value: CALLBACK });
      expect(await refusal(requestToken(deps, request))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'parameter_rejected' });
    });

    it('when the signature method is RSA-SHA1 or unknown, then signature_method_rejected listing the supported ones', async () => {
      const request = signed({ path: '/oauth1/request_token', extra: { oauth_callback: 'oob' } });
      request.authorization = request.authorization.replace('oauth_signature_method="HMAC-SHA1"', 'oauth_signature_method="RSA-SHA1"');
      const error = await refusal(requestToken(deps, request));
      expect(error).toMatchObject({
        status: GrpcStatus.INVALID_ARGUMENT,
        code: 'signature_method_rejected',
        message: expect.stringContaining('HMAC-SHA1, HMAC-SHA256, PLAINTEXT'),
      });
      request.authorization = request.authorization.replace('RSA-SHA1', 'hmac-sha1');
      expect((await refusal(requestToken(deps, request))).message).toMatch(/case-sensitive/);
    });

    it("when oauth_version is not '1.0', then version_rejected", async () => {
      const request = signed({ path: '/oauth1/request_token', extra: { oauth_callback: 'oob' } });
      request.authorization = request.authorization.replace('oauth_version="1.0"', 'oauth_version="2.0"');
      expect(await refusal(requestToken(deps, request))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'version_rejected' });
    });

    it.each(['', 'not a url', '/relative', 'ftp://x.example/', 'javascript:alert(1)', 'OOB'])(
      'when oauth_callback is %p, then it is refused at leg 1',
      async (callback) => {
        const error = await refusal(leg1({ extra: { oauth_callback: callback } }));
        expect(error.code).toBe(callback === '' ? 'parameter_absent' : 'parameter_rejected');
      },
    );

    it('when oauth_timestamp is not a whole number of seconds, then parameter_rejected', async () => {
      const request = signed();
      request.authorization = request.authorization.replace(/oauth_timestamp="\d+"/, 'oauth_timestamp="12.5"');
      expect(await refusal(verify(deps, request))).toMatchObject({ code: 'parameter_rejected', message: expect.stringMatching(/whole number of seconds/) });
    });

    it('when leg 2 gets no oauth_token, then parameter_absent', async () => {
      expect(await refusal(authorize(deps, ''))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'parameter_absent' });
    });
  });

  describe('refused credentials (401 with an OAuth challenge naming the problem)', () => {
    const expectProblem = (error: AppError, code: string) => {
      expect(error).toMatchObject({ status: GrpcStatus.UNAUTHENTICATED, code, challenge: `OAuth realm="training-sandbox", oauth_problem="${code}"` });
    };

    it('when the consumer key is unknown, then consumer_key_unknown', async () => {
      const stranger = { key: 'app_nobody', secret: 'ak_x', app: consumer.app };
      expectProblem(await refusal(leg1({ by: stranger })), 'consumer_key_unknown');
    });

    it('when the app is revoked, then consumer_key_rejected saying so, at every leg and at verification', async () => {
      const temporary = await leg1();
      const access = await threeLegs();
      consumer.app.active = false;
      const error = await refusal(leg1());
      expectProblem(error, 'consumer_key_rejected');
      expect(error.message).toMatch(/revoked/);
      expect((await refusal(authorize(deps, temporary.oauthToken))).message).toMatch(/revoked/);
      expect(await call(access)).toEqual({ ok: false, reason: expect.stringMatching(/^oauth_problem=consumer_key_rejected: .*revoked/), principal: undefined });
    });

    it('when the signature is wrong, then signature_invalid with the base string built, and neither the secret nor the expected signature', async () => {
      const request = signed({ path: '/oauth1/request_token', extra: { oauth_callback: CALLBACK }, consumerSecret: 'not-the-api-key' });
      const error = await refusal(requestToken(deps, request));
      expectProblem(error, 'signature_invalid');
      const expectedBase = `POST&${percentEncode(`${URL_BASE}/oauth1/request_token`)}&`;
      expect(error.message).toContain(expectedBase);
      expect(error.message).toMatch(/oauth_callback%3Dhttps%253A%252F%252Fclient.example%252Fcb%253Fkeep%253D1%26oauth_consumer_key/);
      const base = error.message.slice(error.message.indexOf(expectedBase));
      const expected = createHmac('sha1', `${percentEncode(consumer.secret)}&`)
        .update(base)
        .digest('base64');
      for (const secret of [consumer.secret, expected, percentEncode(expected)]) expect(error.message).not.toContain(secret);
    });

    it('when leg 3 is keyed without the token secret, then the refusal says so', async () => {
      const temporary = await leg1();
      const { oauthVerifier } = await authorize(deps, temporary.oauthToken);
      const error = await refusal(leg3({ ...temporary, oauthTokenSecret: '' }, oauthVerifier));
      expectProblem(error, 'signature_invalid');
      expect(error.message).toMatch(/keyed without the token secret/);
    });

    it('when the client signed without its query parameters, or the URL unnormalised, then the refusal says so', async () => {
      const access = await threeLegs();
      const token = { key: access.oauthToken, secret: access.oauthTokenSecret };
      const request = signed({ method: 'GET', token });
      request.params.push({ name: 'page', value: '2' });
      expect((await verify(deps, request)).reason).toMatch(/without the query and form parameters/);
      const unnormalised = await verify(deps, signed({ method: 'GET', token, url: 'HTTPS://Sandbox.Example:443/p' }));
      expect(unnormalised.reason).toMatch(
        /matches the URL as written, 'HTTPS:\/\/Sandbox.Example:443\/p': the base string URI has its scheme and host in lowercase/,
      );
    });

    it('when the temporary token is unknown, forged or of another app, then token_rejected; at leg 2 too', async () => {
      const temporary = await leg1();
      const { oauthVerifier } = await authorize(deps, temporary.oauthToken);
      const unknown = { oauthToken: `o1rt_${randomBytes(32).toString('base64url')}`, oauthTokenSecret: 'x' };
      expectProblem(await refusal(leg3(unknown, oauthVerifier)), 'token_rejected');
      expectProblem(await refusal(leg3({ ...temporary, oauthToken: 'made-up' }, oauthVerifier)), 'token_rejected');
      expectProblem(await refusal(authorize(deps, unknown.oauthToken)), 'token_rejected');
      expectProblem(await refusal(authorize(deps, 'made-up')), 'token_rejected');
      const other = consumerOf(apps.add());
      const error = await refusal(leg3(temporary, oauthVerifier, { by: other }));
      expectProblem(error, 'token_rejected');
      expect(error.message).toMatch(/another consumer key/);
    });

    it('when the verifier is not the one of this token, then verifier_invalid, and the token still works with the right one', async () => {
      const first = await leg1();
      const second = await leg1();
      const { oauthVerifier: secondVerifier } = await authorize(deps, second.oauthToken);
      const { oauthVerifier } = await authorize(deps, first.oauthToken);
      expectProblem(await refusal(leg3(first, secondVerifier)), 'verifier_invalid');
      expect((await leg3(first, oauthVerifier)).oauthToken).toMatch(/^o1at_/);
    });

    it('when leg 3 is repeated, then token_used; leg 2 then refuses the token too', async () => {
      const temporary = await leg1();
      const { oauthVerifier } = await authorize(deps, temporary.oauthToken);
      await leg3(temporary, oauthVerifier);
      expectProblem(await refusal(leg3(temporary, oauthVerifier)), 'token_used');
      expect((await refusal(authorize(deps, temporary.oauthToken))).message).toMatch(/already exchanged/);
    });

    it('when two leg 3 requests race with one token, then exactly one gets an access token and the other token_used', async () => {
      const temporary = await leg1();
      const { oauthVerifier } = await authorize(deps, temporary.oauthToken);
      const results = await Promise.allSettled([leg3(temporary, oauthVerifier), leg3(temporary, oauthVerifier)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toMatchObject({ code: 'token_used' });
    });

    it('when 10 minutes have passed since leg 1, then leg 2 refuses the token and leg 3 answers token_expired', async () => {
      const temporary = await leg1();
      const { oauthVerifier } = await authorize(deps, temporary.oauthToken);
      now += 10 * 60_000 - 1000;
      await authorize(deps, temporary.oauthToken);
      now += 1000;
      expect(await refusal(authorize(deps, temporary.oauthToken))).toMatchObject({ code: 'token_rejected', message: expect.stringMatching(/expired at/) });
      expectProblem(await refusal(leg3(temporary, oauthVerifier)), 'token_expired');
    });

    it('when the access token is 24 hours old, then verification refuses it as token_expired; a second before, it passes', async () => {
      const access = await threeLegs();
      now += 24 * 3600_000 - 1000;
      expect((await call(access)).ok).toBe(true);
      now += 1000;
      expect((await call(access)).reason).toMatch(/^oauth_problem=token_expired: The access token expired at/);
    });

    it('when the timestamp is 300 s off either way, then it passes; at 301 s, then timestamp_refused saying the server time', async () => {
      const nowSeconds = Math.floor(now / 1000);
      await leg1({ at: nowSeconds - 300 });
      await leg1({ at: nowSeconds + 300 });
      for (const at of [nowSeconds - 301, nowSeconds + 301]) {
        const error = await refusal(leg1({ at }));
        expectProblem(error, 'timestamp_refused');
        expect(error.message).toContain(`the server's time, ${nowSeconds} (2030-01-01T12:00:00.000Z)`);
      }
      expect((await refusal(leg1({ at: nowSeconds * 1000 }))).message).toMatch(/milliseconds/);
    });

    it('when a nonce is used twice by one consumer key, then nonce_used; another app may use the same nonce', async () => {
      await leg1({ nonce: 'same-nonce' });
      expectProblem(await refusal(leg1({ nonce: 'same-nonce' })), 'nonce_used');
      await leg1({ nonce: 'same-nonce', by: consumerOf(apps.add()) });
    });

    it('when a request is replayed as it was, then nonce_used', async () => {
      const access = await threeLegs();
      const request = signed({ method: 'GET', token: { key: access.oauthToken, secret: access.oauthTokenSecret } });
      expect((await verify(deps, request)).ok).toBe(true);
      expect((await verify(deps, request)).reason).toMatch(/^oauth_problem=nonce_used: /);
    });

    it('when a request with a bad signature used a nonce, then the nonce is not remembered (only signed requests write)', async () => {
      await refusal(leg1({ nonce: 'n-1', consumerSecret: 'wrong' }));
      await expect(leg1({ nonce: 'n-1' })).resolves.toMatchObject({ oauthCallbackConfirmed: true });
    });

    it('when the nonce memory outlives the timestamp window, then the same nonce with a fresh timestamp passes again', async () => {
      await leg1({ nonce: 'n-2' });
      now += 11 * 60_000;
      await expect(leg1({ nonce: 'n-2' })).resolves.toMatchObject({ oauthCallbackConfirmed: true });
    });
  });

  describe('verification before the three legs are complete', () => {
    it('when no oauth_token is sent, or the temporary token is, then ok=false saying to complete the three legs first', async () => {
      const noToken = await verify(deps, signed({ method: 'GET' }));
      expect(noToken).toEqual({
        ok: false,
        reason: expect.stringContaining('complete the three legs first: request_token, authorize, access_token'),
        principal: undefined,
      });
      const temporary = await leg1();
      const withTemporary = await call(temporary);
      expect(withTemporary.reason).toMatch(/temporary token of leg 1, not an access token: complete the three legs first/);
    });

    it('when the access token was forged or belongs to another app, then ok=false, token_rejected', async () => {
      const access = await threeLegs();
      const [body, mac] = access.oauthToken.slice('o1at_'.length).split('.');
      const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
      const forged = `o1at_${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url')}.${mac}`;
      expect((await call({ ...access, oauthToken: forged })).reason).toMatch(/^oauth_problem=token_rejected: .*not an access token this sandbox issued/);
      const other = consumerOf(apps.add());
      expect((await call(access, { by: other })).reason).toMatch(/another consumer key/);
    });

    it('when the request is malformed, then verification fails with 400 rather than answering ok=false', async () => {
      const error = await refusal(verify(deps, { method: 'GET', baseUrl: `${URL_BASE}/p`, params: [], authorization: 'OAuth oauth_token=' + '"x' }));
      expect(error).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'parameter_rejected' });
    });
  });
});

import type Redis from 'ioredis';
import { decodeJwt, importJWK, jwtVerify } from 'jose';
import type { identity, oauth } from '@sandbox/contracts';
import { GrpcStatus, type AppError } from '@sandbox/runtime';
import { eventually, refusalOf } from '@sandbox/testing';
import { newVerifier, s256, tokenRequestOf } from '../support/oauth2-client';
import { movableClock, REDIS_PREFIX, sha256hex, startOAuthSystem, type IdentityClient, type OAuthClient, type OAuthSystem } from '../support/oauth-harness';
import { appErrorOf as failure } from '../support/refusals';

jest.setTimeout(60_000);

const ISSUER = 'http://127.0.0.1:8080';
const REDIRECT = 'http://127.0.0.1:9/callback';

/**
 * OAuth 2.0 at the gRPC boundary: the real identity service (memory stores),
 * two oauth replicas sharing the real Redis and one signing key, each with a
 * clock the test moves (expiry without sleeping), called through grpc-js.
 */
describe('oauth service: OAuth 2.0 over gRPC (real identity, real Redis, two replicas)', () => {
  /** Both replicas' clock. */
  const { clock, letTimePass } = movableClock();
  let system: OAuthSystem;
  let idp: IdentityClient;
  let a: OAuthClient; // replica A
  let b: OAuthClient; // replica B, same Redis and key
  let redis: Redis;
  let owner: string;
  const newApp = async (fields: Partial<identity.CreateAppRequest> = {}) => {
    const { app, issued } = await idp.createApp({ ownerId: owner, name: 'OAuth practice', description: '', redirectUris: [REDIRECT], ...fields });
    return { id: app!.id, appId: app!.appId, secret: issued!.appSecret!, ownerId: owner };
  };
  type App = Awaited<ReturnType<typeof newApp>>;
  let app: App;

  const basic = (c: App = app): oauth.ClientAuthentication => ({ clientId: c.appId, clientSecret: c.secret, method: 'basic' });
  const tokenRequest = (fields: Partial<oauth.TokenRequest>) => tokenRequestOf({ client: basic(), issuer: ISSUER, ...fields });
  const authorizeRequest = (fields: Partial<oauth.AuthorizeRequest> = {}): oauth.AuthorizeRequest => ({
    responseType: 'code',
    clientId: app.appId,
    redirectUri: REDIRECT,
    scope: '',
    state: '',
    codeChallenge: '',
    codeChallengeMethod: '',
    issuer: ISSUER,
    present: ['response_type', 'client_id', 'redirect_uri'],
    repeated: [],
    ...fields,
  });
  const redirectParams = async (fields: Partial<oauth.AuthorizeRequest> = {}, via: OAuthClient = a) => {
    const { location } = await via.authorize(authorizeRequest(fields));
    expect(location.startsWith(`${REDIRECT}?`)).toBe(true);
    return new URL(location).searchParams;
  };
  const codeWithPkce = async (fields: Partial<oauth.AuthorizeRequest> = {}) => {
    const verifier = newVerifier();
    const params = await redirectParams({ codeChallenge: s256(verifier), codeChallengeMethod: 'S256', ...fields });
    return { code: params.get('code')!, verifier };
  };
  const redeem = (code: string, verifier?: string, fields: Partial<oauth.TokenRequest> = {}, via: OAuthClient = a) =>
    via.token(
      tokenRequest({ grantType: 'authorization_code', code, redirectUri: REDIRECT, ...(verifier === undefined ? {} : { codeVerifier: verifier }), ...fields }),
    );
  const codeFlow = async (scope = '') => {
    const { code, verifier } = await codeWithPkce({ scope });
    return redeem(code, verifier);
  };
  const refreshWith = (refreshToken: string, fields: Partial<oauth.TokenRequest> = {}, via: OAuthClient = a) =>
    via.token(tokenRequest({ grantType: 'refresh_token', refreshToken, ...fields }));
  const verify = async (accessToken: string, via: OAuthClient = a) => (await via.verifyAccessToken({ token: accessToken })).check!;
  const introspect = (tokenValue: string, client?: oauth.ClientAuthentication, via: OAuthClient = a) =>
    via.introspect({ token: tokenValue, tokenTypeHint: '', client });
  const revoke = (tokenValue: string, client: oauth.ClientAuthentication = basic(), via: OAuthClient = a) =>
    via.revoke({ token: tokenValue, tokenTypeHint: '', client });
  const INACTIVE = { active: false, sub: '', clientId: '', scope: '', exp: 0, iat: 0, tokenType: '', iss: '', jti: '', aud: '' };

  beforeAll(async () => {
    system = await startOAuthSystem({ clock, label: 'oauth' });
    ({ idp, redis, owner } = system);
    [a, b] = system.replicas;
    app = await newApp({ scopes: { scopes: ['stocks:read', 'hr:read'] } });
  });

  afterAll(() => system?.stop());

  describe('client credentials', () => {
    it('with Basic or body credentials and no grant_type: a Bearer token for every app scope, no refresh token', async () => {
      for (const client of [basic(), { ...basic(), method: 'body' }]) {
        const answer = await a.token(tokenRequest({ client }));
        expect(answer).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 3600, refreshToken: '', scope: 'stocks:read hr:read' });
      }
    });

    it('the token is an RFC 9068 JWT that verifies with the key GetJwtPublicKey publishes, on either replica', async () => {
      const { accessToken } = await a.token(tokenRequest({ scope: 'hr:read' }));
      const published = await b.getJwtPublicKey({});
      // jwk_json: the RSA key (playground RS256 JWTs); jwks_json: every access-token key, the ES256 one (the default) first.
      const rsa = JSON.parse(published.jwkJson);
      expect(rsa).toMatchObject({ kty: 'RSA', kid: published.kid, alg: 'RS256', use: 'sig' });
      const { keys } = JSON.parse(published.jwksJson);
      expect(keys).toEqual([{ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: expect.any(String), alg: 'ES256', use: 'sig' }, rsa]);
      const jwk = keys[0];
      for (const key of keys) expect(key.d).toBeUndefined();
      expect(published.pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      const { payload, protectedHeader } = await jwtVerify(accessToken, await importJWK(jwk, 'ES256'), {
        issuer: ISSUER,
        audience: `${ISSUER}/playground`,
        typ: 'at+jwt',
        currentDate: new Date(clock()),
      });
      expect(protectedHeader).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid });
      expect(payload).toEqual({
        iss: ISSUER,
        sub: app.appId,
        aud: `${ISSUER}/playground`,
        client_id: app.appId,
        scope: 'hr:read',
        jti: expect.any(String),
        iat: expect.any(Number),
        exp: payload.iat! + 3600,
      });
      expect(await verify(accessToken, b)).toEqual({ ok: true, reason: '', principal: { id: app.id, appId: app.appId, ownerId: owner, scopes: ['hr:read'] } });
    });

    it('a wrong secret is UNAUTHENTICATED invalid_client with the Basic challenge for a Basic client', async () => {
      const viaBasic = await failure(a.token(tokenRequest({ client: { ...basic(), clientSecret: `as_${'x'.repeat(43)}` } })));
      expect(viaBasic).toMatchObject({
        status: GrpcStatus.UNAUTHENTICATED,
        code: 'invalid_client',
        challenge: 'Basic realm="training-sandbox", charset="UTF-8"',
      });
      const viaBody = await failure(a.token(tokenRequest({ client: { ...basic(), clientSecret: 'as_wrong', method: 'body' } })));
      expect(viaBody).toMatchObject({ status: GrpcStatus.UNAUTHENTICATED, code: 'invalid_client' });
      expect(viaBody.challenge).toBeUndefined();
    });

    it('refuses an unsupported grant, a repeated parameter and a scope the app does not hold, each INVALID_ARGUMENT with its RFC 6749 code', async () => {
      expect(await refusalOf(a.token(tokenRequest({ grantType: 'password' })))).toMatchObject({
        status: GrpcStatus.INVALID_ARGUMENT,
        code: 'unsupported_grant_type',
      });
      expect(await refusalOf(a.token(tokenRequest({ repeated: ['scope'] })))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_request' });
      const scope = await refusalOf(a.token(tokenRequest({ scope: 'fpa:read' })));
      expect(scope).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_scope', message: expect.stringContaining('(stocks:read hr:read)') });
    });

    it('issuing writes nothing to Redis: no key names the token', async () => {
      const { accessToken } = await a.token(tokenRequest({}));
      const { jti } = decodeJwt(accessToken);
      expect(await redis.keys(`${REDIS_PREFIX}oauth2:*${jti}*`)).toEqual([]);
    });
  });

  describe('authorize', () => {
    it('approves at once: a redirect with code, state and iss; the code is kept in Redis under its hash, for at most 120 s', async () => {
      const params = await redirectParams({ state: 'st-1', present: ['response_type', 'client_id', 'redirect_uri', 'state'] });
      expect(Object.fromEntries(params)).toEqual({ code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), state: 'st-1', iss: ISSUER });
      const code = params.get('code')!;
      expect(await redis.exists(`${REDIS_PREFIX}oauth2:code:${code}`)).toBe(0);
      const pttl = await redis.pttl(`${REDIS_PREFIX}oauth2:code:${sha256hex(code)}`);
      expect(pttl).toBeGreaterThan(0);
      expect(pttl).toBeLessThanOrEqual(120_000);
    });

    it('an unknown client, an unregistered redirect URI or a revoked app is an error, never a redirect', async () => {
      expect(await refusalOf(a.authorize(authorizeRequest({ clientId: 'app_nobody' })))).toMatchObject({
        status: GrpcStatus.INVALID_ARGUMENT,
        code: 'invalid_request',
      });
      const elsewhere = await refusalOf(a.authorize(authorizeRequest({ redirectUri: 'http://127.0.0.1:9/Callback' })));
      expect(elsewhere).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_request' });
      expect(elsewhere.message).toMatch(/\(1 registered; .*letter case of the path/);
      const revoked = await newApp();
      await idp.deleteApp({ ownerId: owner, id: revoked.id, revoke: true });
      await eventually(
        () => refusalOf(a.authorize(authorizeRequest({ clientId: revoked.appId }))).catch(() => undefined),
        (r) => r?.code === 'unauthorized_client',
        10_000,
      );
    });

    it('other refusals redirect with error, error_description, state and iss', async () => {
      const params = await redirectParams({ state: 'keep-me', codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'plain' });
      expect(Object.fromEntries(params)).toEqual({
        error: 'invalid_request',
        error_description: expect.stringMatching(/plain/),
        state: 'keep-me',
        iss: ISSUER,
      });
      expect((await redirectParams({ responseType: 'token' })).get('error')).toBe('unsupported_response_type');
      expect((await redirectParams({ scope: 'cricket:read' })).get('error')).toBe('invalid_scope');
    });
  });

  describe('authorization code with PKCE', () => {
    it('a code issued by one replica is redeemed at the other: tokens for the owner, with a refresh token', async () => {
      const { code, verifier } = await codeWithPkce({ scope: 'hr:read' });
      const answer = await redeem(code, verifier, {}, b);
      expect(answer).toEqual({
        accessToken: expect.any(String),
        tokenType: 'Bearer',
        expiresIn: 3600,
        refreshToken: expect.stringMatching(/^rt_/),
        scope: 'hr:read',
      });
      expect(decodeJwt(answer.accessToken)).toMatchObject({ sub: owner, client_id: app.appId, scope: 'hr:read' });
      expect((await verify(answer.accessToken)).ok).toBe(true);
    });

    it('a wrong verifier is invalid_grant giving the S256 of the verifier received and the stored challenge', async () => {
      const { code, verifier } = await codeWithPkce();
      const wrong = newVerifier();
      const refused = await refusalOf(redeem(code, wrong));
      expect(refused).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_grant' });
      expect(refused.message).toContain(s256(wrong));
      expect(refused.message).toContain(s256(verifier));
    });

    it('a missing verifier, or one sent for a code issued without a challenge, is invalid_grant', async () => {
      const { code } = await codeWithPkce();
      expect((await refusalOf(redeem(code, undefined))).message).toMatch(/code_verifier is required/);
      const plainCode = (await redirectParams()).get('code')!;
      expect(await refusalOf(redeem(plainCode, newVerifier()))).toMatchObject({
        code: 'invalid_grant',
        message: expect.stringMatching(/had no code_challenge/),
      });
      await expect(redeem(plainCode)).resolves.toMatchObject({ tokenType: 'Bearer', refreshToken: expect.stringMatching(/^rt_/) });
    });

    it('a code has expired once 60 s have passed on the clock', async () => {
      const { code, verifier } = await codeWithPkce();
      letTimePass(60_000);
      expect(await refusalOf(redeem(code, verifier))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/expired at .*codes live 60 s/) });
    });

    it('a second redemption, at either replica, is invalid_grant and revokes the tokens of the first', async () => {
      const { code, verifier } = await codeWithPkce();
      const first = await redeem(code, verifier, {}, a);
      expect(await refusalOf(redeem(code, verifier, {}, b))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/already redeemed/) });
      expect(await verify(first.accessToken, a)).toMatchObject({ ok: false, reason: expect.stringMatching(/grant was revoked/) });
      expect(await introspect(first.accessToken)).toEqual(INACTIVE);
      expect((await refusalOf(refreshWith(first.refreshToken))).code).toBe('invalid_grant');
    });
  });

  describe('refresh tokens', () => {
    it('rotate on every use; a used one is invalid_grant and revokes the whole grant at every replica', async () => {
      const first = await codeFlow();
      const second = await refreshWith(first.refreshToken, {}, b);
      expect(second.refreshToken).not.toBe(first.refreshToken);
      expect((await verify(second.accessToken)).ok).toBe(true);
      expect(await refusalOf(refreshWith(first.refreshToken, {}, a))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/already used/) });
      expect((await refusalOf(refreshWith(second.refreshToken, {}, b))).message).toMatch(/grant was revoked/);
      for (const access of [first.accessToken, second.accessToken]) expect((await verify(access, b)).ok).toBe(false);
    });

    it('are kept hashed, with a lifetime, in Redis', async () => {
      const { refreshToken } = await codeFlow();
      expect(await redis.exists(`${REDIS_PREFIX}oauth2:rt:${refreshToken}`)).toBe(0);
      const pttl = await redis.pttl(`${REDIS_PREFIX}oauth2:rt:${sha256hex(refreshToken)}`);
      expect(pttl).toBeGreaterThan(86_400_000 - 30_000);
      expect(pttl).toBeLessThanOrEqual(86_460_000);
    });

    it('may narrow the scope, never widen it', async () => {
      const first = await codeFlow('hr:read');
      expect(await refusalOf(refreshWith(first.refreshToken, { scope: 'hr:read stocks:read' }))).toMatchObject({ code: 'invalid_scope' });
      expect((await refreshWith(first.refreshToken, { scope: 'hr:read' })).scope).toBe('hr:read');
    });
  });

  describe('access token lifetime and revocation', () => {
    it('an access token expires with the clock', async () => {
      const { accessToken } = await a.token(tokenRequest({}));
      const { exp } = decodeJwt(accessToken);
      letTimePass(exp! * 1000 - clock());
      expect(await verify(accessToken, b)).toMatchObject({ ok: false, reason: expect.stringMatching(/expired at/) });
      expect(await introspect(accessToken)).toEqual(INACTIVE);
    });

    it('revoking an access token keeps its jti in Redis until it expires; the token fails everywhere', async () => {
      const { accessToken } = await a.token(tokenRequest({}));
      await revoke(accessToken, basic(), b);
      expect(await verify(accessToken, a)).toMatchObject({ ok: false, reason: expect.stringMatching(/revoked/) });
      const pttl = await redis.pttl(`${REDIS_PREFIX}oauth2:revoked-jti:${decodeJwt(accessToken).jti}`);
      expect(pttl).toBeGreaterThan(0);
      expect(pttl).toBeLessThanOrEqual(3600_000 + 60_000);
    });

    it('revoking a refresh token ends its grant: refresh and access tokens', async () => {
      const first = await codeFlow();
      await revoke(first.refreshToken);
      expect((await refusalOf(refreshWith(first.refreshToken))).message).toMatch(/the client revoked it/);
      expect((await verify(first.accessToken)).ok).toBe(false);
    });

    it('revocation needs client authentication; another client revoking, or a made-up token, is success with no effect', async () => {
      const { accessToken } = await a.token(tokenRequest({}));
      expect(await refusalOf(revoke(accessToken, { clientId: app.appId, clientSecret: '', method: '' }))).toMatchObject({
        status: GrpcStatus.UNAUTHENTICATED,
        code: 'invalid_client',
      });
      const other = await newApp();
      await expect(revoke(accessToken, basic(other))).resolves.toEqual({});
      await expect(revoke('made-up', basic(other))).resolves.toEqual({});
      expect((await verify(accessToken)).ok).toBe(true);
    });
  });

  describe('the app behind the tokens', () => {
    it('revoking the app through identity ends its tokens within a second (polled)', async () => {
      const doomed = await newApp();
      const { accessToken } = await a.token(tokenRequest({ client: basic(doomed) }));
      expect((await verify(accessToken)).ok).toBe(true);
      await idp.deleteApp({ ownerId: owner, id: doomed.id, revoke: true });
      const { value } = await eventually(
        () => verify(accessToken, b),
        (check) => !check.ok,
        10_000,
      );
      expect(value.reason).toBe('The app this access token was issued to is revoked.');
      // Replica A may remember the app as active for up to 500 ms more.
      await eventually(
        () => introspect(accessToken, undefined, a),
        (answer) => !answer.active,
        10_000,
      );
      expect(await introspect(accessToken, undefined, a)).toEqual(INACTIVE);
      expect(await refusalOf(a.token(tokenRequest({ client: basic(doomed) })))).toMatchObject({
        code: 'invalid_client',
        message: expect.stringMatching(/revoked/),
      });
    });

    it('deleting the app ends its tokens too', async () => {
      const doomed = await newApp();
      const { accessToken } = await a.token(tokenRequest({ client: basic(doomed) }));
      await idp.deleteApp({ ownerId: owner, id: doomed.id, revoke: false });
      const { value } = await eventually(
        () => verify(accessToken),
        (check) => !check.ok,
        10_000,
      );
      expect(value.reason).toMatch(/deleted/);
    });

    it('regenerating the App Secret does not end issued tokens; a refresh then needs the new secret', async () => {
      const rotating = await newApp();
      const { code, verifier } = await codeWithPkce({ clientId: rotating.appId });
      const first = await redeem(code, verifier, { client: basic(rotating) });
      const { issued } = await idp.regenerateSecret({ ownerId: owner, id: rotating.id });
      const renewed = { ...rotating, secret: issued!.appSecret! };
      await eventually(
        () =>
          a.token(tokenRequest({ client: basic(rotating) })).then(
            () => 'old secret works',
            (e: AppError) => e.code,
          ),
        (r) => r === 'invalid_client',
        10_000,
      );
      expect((await verify(first.accessToken)).ok).toBe(true);
      await expect(refreshWith(first.refreshToken, { client: basic(renewed) })).resolves.toMatchObject({ tokenType: 'Bearer' });
    });

    it('a scope the app no longer holds drops out of its live tokens', async () => {
      const narrowing = await newApp({ scopes: { scopes: ['stocks:read', 'hr:read'] } });
      const { accessToken } = await a.token(tokenRequest({ client: basic(narrowing) }));
      await idp.setScopes({ ownerId: owner, id: narrowing.id, scopes: ['hr:read'] });
      const { value } = await eventually(
        () => verify(accessToken),
        (check) => check.principal?.scopes.length === 1,
        10_000,
      );
      expect(value.principal!.scopes).toEqual(['hr:read']);
    });
  });

  describe('introspection', () => {
    it('anyone may introspect; a live token answers its RFC 7662 fields', async () => {
      const { accessToken } = await a.token(tokenRequest({ scope: 'hr:read' }));
      const claims = decodeJwt(accessToken);
      expect(await introspect(accessToken, undefined, b)).toEqual({
        active: true,
        sub: app.appId,
        clientId: app.appId,
        scope: 'hr:read',
        exp: claims.exp,
        iat: claims.iat,
        tokenType: 'Bearer',
        iss: ISSUER,
        jti: claims.jti,
        aud: `${ISSUER}/playground`,
      });
    });

    it('a caller authenticated as another client reads another client token as inactive; a wrong secret is invalid_client', async () => {
      const { accessToken } = await a.token(tokenRequest({}));
      const other = await newApp();
      expect(await introspect(accessToken, basic(other))).toEqual(INACTIVE);
      expect((await introspect(accessToken, basic())).active).toBe(true);
      expect(await refusalOf(introspect(accessToken, { ...basic(), clientSecret: 'as_wrong' }))).toMatchObject({
        status: GrpcStatus.UNAUTHENTICATED,
        code: 'invalid_client',
      });
    });

    it('a refresh token reads active (token_type refresh_token) until used; a made-up token reads exactly inactive; no token is invalid_request', async () => {
      const first = await codeFlow();
      expect(await introspect(first.refreshToken)).toMatchObject({ active: true, tokenType: 'refresh_token', clientId: app.appId, sub: owner });
      await refreshWith(first.refreshToken);
      expect(await introspect(first.refreshToken)).toEqual(INACTIVE);
      expect(await introspect('eyJhbGciOiJub25lIn0.e30.')).toEqual(INACTIVE);
      expect(await refusalOf(introspect(''))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_request' });
    });
  });

  it('VerifyAccessToken answers a refusal (ok=false with the rule), never an error', async () => {
    await expect(verify('eyJhbGciOiJub25lIn0.e30.')).resolves.toMatchObject({ ok: false, reason: expect.stringMatching(/ES256 or RS256 and no other/) });
    await expect(verify('garbage')).resolves.toMatchObject({ ok: false, reason: expect.stringMatching(/not an access token issued by this sandbox/) });
  });
});

/**
 * A rolling upgrade from RS256 access tokens to ES256 (or a change of
 * OAUTH_ACCESS_TOKEN_ALG): for a while replicas with the same JWT_SIGNING_KEY
 * sign differently. Each must accept the other's tokens, and both publish
 * the same keys.
 */
describe('oauth service: replicas signing RS256 and ES256 side by side (same JWT_SIGNING_KEY)', () => {
  const { clock } = movableClock();
  let system: OAuthSystem;
  let rs256: OAuthClient; // not yet upgraded: OAUTH_ACCESS_TOKEN_ALG=RS256
  let es256: OAuthClient; // upgraded: the default
  let client: oauth.ClientAuthentication;

  beforeAll(async () => {
    system = await startOAuthSystem({ clock, label: 'oauth-algs', replicaEnv: [{ OAUTH_ACCESS_TOKEN_ALG: 'RS256' }, {}] });
    [rs256, es256] = system.replicas;
    const { app, issued } = await system.idp.createApp({ ownerId: system.owner, name: 'Rolling upgrade', description: '', redirectUris: [REDIRECT] });
    client = { clientId: app!.appId, clientSecret: issued!.appSecret!, method: 'basic' };
  });
  afterAll(() => system?.stop());

  it.each([
    ['RS256', 'ES256'],
    ['ES256', 'RS256'],
  ])('a token signed %s by one replica is live on the other (VerifyAccessToken and introspection)', async (alg) => {
    const [issuer, checker] = alg === 'RS256' ? [rs256, es256] : [es256, rs256];
    const { accessToken } = await issuer.token(tokenRequestOf({ client, issuer: ISSUER }));
    expect(JSON.parse(Buffer.from(accessToken.split('.')[0], 'base64url').toString())).toMatchObject({ alg, typ: 'at+jwt' });
    expect((await checker.verifyAccessToken({ token: accessToken })).check).toMatchObject({ ok: true, principal: { appId: client.clientId } });
    expect(await checker.introspect({ token: accessToken, tokenTypeHint: '', client })).toMatchObject({ active: true, clientId: client.clientId });
  });

  it('both publish the same two keys, each listing its own signing key first', async () => {
    const [old, upgraded] = await Promise.all([rs256, es256].map(async (replica) => JSON.parse((await replica.getJwtPublicKey({})).jwksJson).keys));
    expect(old.map((key: { alg: string }) => key.alg)).toEqual(['RS256', 'ES256']);
    expect(upgraded).toEqual([old[1], old[0]]);
  });
});

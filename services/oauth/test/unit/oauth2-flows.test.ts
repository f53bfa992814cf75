import { createHash, generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import type { identity, oauth } from '@sandbox/contracts';
import { GrpcStatus } from '@sandbox/runtime';
import { AppDirectory } from '../../src/domain/app-directory';
import { authorize, introspect, revoke, token, verifyAccessToken, type OAuth2Deps } from '../../src/domain/oauth2';
import { BASIC_CHALLENGE } from '../../src/domain/oauth2/errors';
import { loadSigningKey, type SigningKey } from '../../src/domain/signing-key';
import type { EphemeralStore } from '../../src/stores/ephemeral-store';
import { newVerifier, s256, tokenRequestOf } from '../support/oauth2-client';
import { appErrorOf as refusal } from '../support/refusals';
import { memoryDeps, StandInApps } from '../support/unit-deps';

const ISSUER = 'https://sandbox.example/prefix';
const REDIRECT = 'http://127.0.0.1:9/callback';
const SCOPES = ['stocks:read', 'hr:read'];
const CONFIG: OAuth2Deps['config'] = { accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 86_400 };

let signingKey: SigningKey;
beforeAll(async () => {
  signingKey = await loadSigningKey(undefined);
});

describe('OAuth 2.0 flows (memory store, a clock the test moves)', () => {
  let now: number;
  let store: EphemeralStore;
  let apps: StandInApps;
  let deps: OAuth2Deps;
  let client: ReturnType<StandInApps['add']>;

  beforeEach(() => {
    now = Date.UTC(2030, 0, 1, 10, 0, 0);
    apps = new StandInApps({ scopes: SCOPES, redirectUris: [REDIRECT] });
    deps = { config: CONFIG, ...memoryDeps(() => now, apps, signingKey) };
    ({ store } = deps);
    client = apps.add();
  });
  afterEach(async () => store.close());

  const basic = (c: { appId: string; secret: string } = client): oauth.ClientAuthentication => ({ clientId: c.appId, clientSecret: c.secret, method: 'basic' });
  const authorizeRequest = (fields: Partial<oauth.AuthorizeRequest> = {}): oauth.AuthorizeRequest => {
    const request = {
      responseType: 'code',
      clientId: client.appId,
      redirectUri: REDIRECT,
      scope: '',
      state: '',
      codeChallenge: '',
      codeChallengeMethod: '',
      issuer: ISSUER,
      repeated: [],
      ...fields,
    };
    const present = Object.entries({
      response_type: request.responseType,
      client_id: request.clientId,
      redirect_uri: request.redirectUri,
      scope: request.scope,
      state: request.state,
    })
      .filter(([, value]) => value !== '')
      .map(([name]) => name);
    return { present, ...request };
  };
  const tokenRequest = (fields: Partial<oauth.TokenRequest> = {}) =>
    tokenRequestOf({ grantType: 'client_credentials', client: basic(), issuer: ISSUER, ...fields });
  const redirectOf = async (fields: Partial<oauth.AuthorizeRequest> = {}) => {
    const { location } = await authorize(deps, authorizeRequest(fields));
    expect(location.startsWith(fields.redirectUri ?? REDIRECT)).toBe(true);
    return new URL(location).searchParams;
  };
  const codeWithPkce = async (fields: Partial<oauth.AuthorizeRequest> = {}) => {
    const verifier = newVerifier();
    const params = await redirectOf({ codeChallenge: s256(verifier), codeChallengeMethod: 'S256', ...fields });
    return { code: params.get('code')!, verifier };
  };
  const redeem = (code: string, verifier: string | undefined, fields: Partial<oauth.TokenRequest> = {}) =>
    token(
      deps,
      tokenRequest({ grantType: 'authorization_code', code, redirectUri: REDIRECT, ...(verifier === undefined ? {} : { codeVerifier: verifier }), ...fields }),
    );
  const codeFlow = async (scope = '') => {
    const { code, verifier } = await codeWithPkce({ scope });
    return redeem(code, verifier);
  };
  const refreshWith = (refreshToken: string, fields: Partial<oauth.TokenRequest> = {}) =>
    token(deps, tokenRequest({ grantType: 'refresh_token', refreshToken, ...fields }));
  const verify = (accessToken: string) => verifyAccessToken(deps, accessToken);

  describe('authorize', () => {
    it('when everything is right, then it redirects with code, state and iss, and the code is kept only as its hash for 60 s', async () => {
      const params = await redirectOf({ state: 'xyz', scope: 'hr:read' });
      expect([...params.keys()]).toEqual(['code', 'state', 'iss']);
      expect(params.get('state')).toBe('xyz');
      expect(params.get('iss')).toBe(ISSUER);
      const code = params.get('code')!;
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await store.get(`oauth2:code:${code}`)).toBeUndefined();
      const kept = JSON.parse((await store.get(`oauth2:code:${createHash('sha256').update(code).digest('hex')}`))!);
      expect(kept).toMatchObject({ clientId: client.appId, redirectUri: REDIRECT, scope: ['hr:read'], challenge: '', expiresAt: now + 60_000 });
    });

    it('when state is absent, then none comes back; when it was sent empty, then it comes back empty', async () => {
      expect((await redirectOf()).has('state')).toBe(false);
      const { location } = await authorize(deps, { ...authorizeRequest(), present: ['response_type', 'client_id', 'redirect_uri', 'state'] });
      expect(new URL(location).searchParams.get('state')).toBe('');
    });

    it('when the registered redirect URI has a query, then it is kept and the parameters are added to it', async () => {
      client = apps.add({ redirectUris: ['http://127.0.0.1:9/cb?tenant=a b'] });
      const { location } = await authorize(deps, authorizeRequest({ redirectUri: 'http://127.0.0.1:9/cb?tenant=a b', state: 's' }));
      expect(location).toMatch(/^http:\/\/127\.0\.0\.1:9\/cb\?tenant=a b&code=[^&]+&state=s&iss=/);
    });

    it('when no scope is asked for, then the code carries all of the app scopes', async () => {
      const { code, verifier } = await codeWithPkce();
      expect((await redeem(code, verifier)).scope).toBe('stocks:read hr:read');
    });

    it('when client_id is unknown, missing or repeated, then an error that never redirects', async () => {
      expect(await refusal(authorize(deps, authorizeRequest({ clientId: 'app_nobody' })))).toMatchObject({
        status: GrpcStatus.INVALID_ARGUMENT,
        code: 'invalid_request',
      });
      expect((await refusal(authorize(deps, authorizeRequest({ clientId: '' })))).message).toMatch(/client_id is required/);
      expect((await refusal(authorize(deps, authorizeRequest({ repeated: ['client_id'] })))).code).toBe('invalid_request');
    });

    it('when the redirect URI is not registered, then an error that never redirects says how it differs and how many are registered', async () => {
      const error = await refusal(authorize(deps, authorizeRequest({ redirectUri: `${REDIRECT}/` })));
      expect(error).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_request' });
      expect(error.message).toMatch(/1 registered/);
      expect(error.message).toMatch(/trailing slash/);
      expect(error.message.replace(`'${REDIRECT}/'`, '')).not.toContain(REDIRECT);
    });

    it('when the app has no registered redirect URI, then the error says to register one', async () => {
      client = apps.add({ redirectUris: [] });
      expect((await refusal(authorize(deps, authorizeRequest()))).message).toMatch(/no registered redirect URI/);
      expect((await refusal(authorize(deps, authorizeRequest({ redirectUri: '' })))).message).toMatch(/no registered redirect URI/);
    });

    it('when redirect_uri is left out, then the one registered URI is used; with several registered it is required', async () => {
      const { location } = await authorize(deps, authorizeRequest({ redirectUri: '' }));
      expect(location.startsWith(`${REDIRECT}?code=`)).toBe(true);
      client = apps.add({ redirectUris: [REDIRECT, 'https://app.example/cb'] });
      expect((await refusal(authorize(deps, authorizeRequest({ redirectUri: '' })))).message).toMatch(/has 2 registered/);
    });

    it('when the app is revoked, then unauthorized_client without a redirect', async () => {
      client.app.active = false;
      expect(await refusal(authorize(deps, authorizeRequest()))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'unauthorized_client' });
    });

    it.each([
      ['response_type is not code', { responseType: 'token' }, 'unsupported_response_type', /authorization code flow only/],
      ['response_type is missing', { responseType: '' }, 'invalid_request', /response_type is required/],
      ['a parameter is repeated', { repeated: ['scope'] }, 'invalid_request', /scope was sent more than once/],
      ['the method is plain', { codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'plain' }, 'invalid_request', /plain is not accepted/],
      ['a challenge comes without a method', { codeChallenge: s256('v'.repeat(43)) }, 'invalid_request', /means plain/],
      ['a method comes without a challenge', { codeChallengeMethod: 'S256' }, 'invalid_request', /without a code_challenge/],
      ['the method is unknown', { codeChallenge: s256('v'.repeat(43)), codeChallengeMethod: 'S512' }, 'invalid_request', /S512.*use S256/],
      ['the challenge is padded', { codeChallenge: `${s256('v'.repeat(43))}=`, codeChallengeMethod: 'S256' }, 'invalid_request', /without padding/],
      ['a scope is not held by the app', { scope: 'hr:read cricket:read' }, 'invalid_scope', /'cricket:read' is not among the scopes the app holds/],
    ])('when %s, then it redirects with that error, the state and iss', async (_name, fields, error, description) => {
      const params = await redirectOf({ state: 'keep-me', ...fields });
      expect(Object.fromEntries(params)).toEqual({ error, error_description: expect.stringMatching(description), state: 'keep-me', iss: ISSUER });
    });
  });

  describe('client credentials', () => {
    it('when grant_type is left out, then client credentials: a Bearer token for all the app scopes and no refresh token', async () => {
      const answer = await token(deps, tokenRequest({ grantType: '' }));
      expect(answer).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 3600, refreshToken: '', scope: 'stocks:read hr:read' });
    });

    it('the access token is an RFC 9068 JWT whose subject is the App ID', async () => {
      const { accessToken } = await token(deps, tokenRequest({ scope: 'hr:read' }));
      expect(decodeProtectedHeader(accessToken)).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: signingKey.accessTokens.signing.kid });
      const claims = decodeJwt(accessToken);
      expect(claims).toEqual({
        iss: ISSUER,
        sub: client.appId,
        aud: `${ISSUER}/playground`,
        client_id: client.appId,
        scope: 'hr:read',
        jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        iat: now / 1000,
        exp: now / 1000 + 3600,
      });
    });

    it('issuing writes nothing to the store (a load test cannot grow it)', async () => {
      const put = jest.spyOn(store, 'put');
      await token(deps, tokenRequest());
      expect(put).not.toHaveBeenCalled();
    });

    it('when the secret is wrong, then 401 invalid_client, challenging Basic for a Basic client only', async () => {
      const viaBasic = await refusal(token(deps, tokenRequest({ client: { ...basic(), clientSecret: 'as_wrong' } })));
      expect(viaBasic).toMatchObject({ status: GrpcStatus.UNAUTHENTICATED, code: 'invalid_client', challenge: BASIC_CHALLENGE });
      expect(viaBasic.message).toMatch(/Basic header.*not valid/);
      const viaBody = await refusal(token(deps, tokenRequest({ client: { ...basic(), clientSecret: 'as_wrong', method: 'body' } })));
      expect(viaBody).toMatchObject({ status: GrpcStatus.UNAUTHENTICATED, code: 'invalid_client' });
      expect(viaBody.challenge).toBeUndefined();
    });

    it('when the client sends no secret, then invalid_client explains how to authenticate', async () => {
      const idOnly = await refusal(token(deps, tokenRequest({ client: { clientId: client.appId, clientSecret: '', method: '' } })));
      expect(idOnly).toMatchObject({ code: 'invalid_client', message: expect.stringMatching(/client_id alone/), challenge: BASIC_CHALLENGE });
      expect((await refusal(token(deps, tokenRequest({ client: undefined })))).message).toMatch(/did not authenticate/);
    });

    it('when the app is revoked, then invalid_client', async () => {
      client.app.active = false;
      expect((await refusal(token(deps, tokenRequest()))).message).toMatch(/revoked/);
    });

    it('when grant_type is unsupported, a parameter repeated or a scope not held, then the RFC 6749 5.2 error', async () => {
      expect((await refusal(token(deps, tokenRequest({ grantType: 'password' })))).code).toBe('unsupported_grant_type');
      expect(await refusal(token(deps, tokenRequest({ repeated: ['scope'] })))).toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/scope was sent more than once/),
      });
      expect(await refusal(token(deps, tokenRequest({ scope: 'fpa:read' })))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_scope' });
    });
  });

  describe('authorization code with PKCE', () => {
    it('when redeemed with its verifier, then a Bearer token for the owner, and a refresh token', async () => {
      const answer = await codeFlow('hr:read');
      expect(answer).toEqual({
        accessToken: expect.any(String),
        tokenType: 'Bearer',
        expiresIn: 3600,
        refreshToken: expect.stringMatching(/^rt_[A-Za-z0-9_-]{43}$/),
        scope: 'hr:read',
      });
      expect(decodeJwt(answer.accessToken)).toMatchObject({
        sub: client.principal.ownerId,
        client_id: client.appId,
        scope: 'hr:read',
        grant_id: expect.any(String),
      });
    });

    it('when the verifier does not match, then invalid_grant giving S256 of the verifier received beside the stored challenge', async () => {
      const { code, verifier } = await codeWithPkce();
      const wrong = newVerifier();
      const error = await refusal(redeem(code, wrong));
      expect(error.code).toBe('invalid_grant');
      expect(error.message).toContain(s256(wrong));
      expect(error.message).toContain(s256(verifier));
      expect(error.message).not.toContain(verifier);
    });

    it('when a refused attempt came first, then the code still works for the right request (only a success consumes it)', async () => {
      const { code, verifier } = await codeWithPkce();
      await refusal(redeem(code, newVerifier()));
      await expect(redeem(code, verifier)).resolves.toMatchObject({ tokenType: 'Bearer' });
    });

    it('when the verifier is missing, malformed, or sent for a code issued without a challenge, then refused', async () => {
      const { code } = await codeWithPkce();
      expect(await refusal(redeem(code, undefined))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/code_verifier is required/) });
      expect(await refusal(redeem(code, 'short'))).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/43 to 128/) });
      const plain = (await redirectOf()).get('code')!;
      expect(await refusal(redeem(plain, newVerifier()))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/had no code_challenge/) });
      expect(await refusal(redeem(plain, ''))).toMatchObject({ code: 'invalid_grant' });
      await expect(redeem(plain, undefined)).resolves.toMatchObject({ tokenType: 'Bearer' });
    });

    it('when redirect_uri differs from the authorization request or is left out, then refused', async () => {
      const { code, verifier } = await codeWithPkce();
      expect(await refusal(redeem(code, verifier, { redirectUri: `${REDIRECT}/` }))).toMatchObject({
        code: 'invalid_grant',
        message: expect.stringMatching(/trailing slash/),
      });
      expect(await refusal(redeem(code, verifier, { redirectUri: '' }))).toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/RFC 6749 4.1.3/),
      });
    });

    it('when the authorization request left redirect_uri out, then the token request may too', async () => {
      const verifier = newVerifier();
      const { location } = await authorize(deps, authorizeRequest({ redirectUri: '', codeChallenge: s256(verifier), codeChallengeMethod: 'S256' }));
      const code = new URL(location).searchParams.get('code')!;
      await expect(redeem(code, verifier, { redirectUri: '' })).resolves.toMatchObject({ tokenType: 'Bearer' });
    });

    it('when another client presents the code, then invalid_grant and the code still works for its client', async () => {
      const { code, verifier } = await codeWithPkce();
      const other = apps.add();
      expect(await refusal(redeem(code, verifier, { client: basic(other) }))).toMatchObject({
        code: 'invalid_grant',
        message: expect.stringMatching(/not issued to this client/),
      });
      await expect(redeem(code, verifier)).resolves.toMatchObject({ tokenType: 'Bearer' });
    });

    it('when 60 s have passed, then the code has expired; 1 ms before, it works', async () => {
      const first = await codeWithPkce();
      const second = await codeWithPkce();
      now += 59_999;
      await expect(redeem(first.code, first.verifier)).resolves.toMatchObject({ tokenType: 'Bearer' });
      now += 1;
      expect(await refusal(redeem(second.code, second.verifier))).toMatchObject({
        code: 'invalid_grant',
        message: expect.stringMatching(/expired at 2030-01-01T10:01:00.000Z/),
      });
    });

    it('when a code is unknown, then invalid_grant', async () => {
      expect(await refusal(redeem('made-up', newVerifier()))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/not known/) });
      expect((await refusal(redeem('', undefined))).code).toBe('invalid_request');
    });

    it('when a code is redeemed a second time, then invalid_grant and the tokens of the first redemption are revoked', async () => {
      const { code, verifier } = await codeWithPkce();
      const first = await redeem(code, verifier);
      expect((await verify(first.accessToken)).ok).toBe(true);
      expect(await refusal(redeem(code, verifier))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/already redeemed.*revoked/) });
      expect(await verify(first.accessToken)).toMatchObject({ ok: false, reason: expect.stringMatching(/grant was revoked.*presented again/) });
      expect(await refusal(refreshWith(first.refreshToken))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/grant was revoked/) });
    });

    it('when two redemptions race, then exactly one gets tokens, and those are revoked', async () => {
      const { code, verifier } = await codeWithPkce();
      const results = await Promise.allSettled([redeem(code, verifier), redeem(code, verifier)]);
      const won = results.filter((r): r is PromiseFulfilledResult<oauth.TokenResponse> => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect([won.length, lost.length]).toEqual([1, 1]);
      expect(lost[0].reason).toMatchObject({ code: 'invalid_grant' });
      expect((await verify(won[0].value.accessToken)).ok).toBe(false);
    });
  });

  describe('refresh tokens', () => {
    it('when used, then it rotates: a new refresh token and access token of the same grant, and the old one no longer works', async () => {
      const first = await codeFlow();
      const second = await refreshWith(first.refreshToken);
      expect(second.refreshToken).toMatch(/^rt_/);
      expect(second.refreshToken).not.toBe(first.refreshToken);
      expect(second.accessToken).not.toBe(first.accessToken);
      expect(decodeJwt(second.accessToken).grant_id).toBe(decodeJwt(first.accessToken).grant_id);
      const third = await refreshWith(second.refreshToken);
      expect((await verify(third.accessToken)).ok).toBe(true);
    });

    it('when a used refresh token is presented again, then invalid_grant and the whole grant is revoked: later refresh tokens and its access tokens too', async () => {
      const first = await codeFlow();
      const second = await refreshWith(first.refreshToken);
      expect(await refusal(refreshWith(first.refreshToken))).toMatchObject({
        code: 'invalid_grant',
        message: expect.stringMatching(/already used at .*whole grant is now revoked/),
      });
      expect(await refusal(refreshWith(second.refreshToken))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/grant was revoked/) });
      for (const access of [first.accessToken, second.accessToken]) expect((await verify(access)).ok).toBe(false);
    });

    it('when the store fails as a rotation is written, then nothing of it was: the same refresh token works on retry, as does the code', async () => {
      // A store outage (redisCall's 503) at the one write that marks the token used and saves its successor.
      const failOnce = () => {
        const claimAndPut = store.claimAndPut.bind(store);
        store.claimAndPut = async () => {
          store.claimAndPut = claimAndPut;
          throw new Error('Redis is unavailable');
        };
      };
      const { code, verifier } = await codeWithPkce();
      failOnce();
      await expect(redeem(code, verifier)).rejects.toThrow(/Redis is unavailable/);
      const first = await redeem(code, verifier);
      failOnce();
      await expect(refreshWith(first.refreshToken)).rejects.toThrow(/Redis is unavailable/);
      const second = await refreshWith(first.refreshToken);
      expect((await verify(second.accessToken)).ok).toBe(true);
    });

    it('when two refreshes with one token race, then one wins and the grant is revoked', async () => {
      const first = await codeFlow();
      const results = await Promise.allSettled([refreshWith(first.refreshToken), refreshWith(first.refreshToken)]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const won = results.find((r): r is PromiseFulfilledResult<oauth.TokenResponse> => r.status === 'fulfilled')!;
      expect((await refusal(refreshWith(won.value.refreshToken))).message).toMatch(/grant was revoked/);
    });

    it('a refresh may narrow the scope, never widen it; left out, it is the original grant', async () => {
      const first = await codeFlow('hr:read stocks:read');
      const narrowed = await refreshWith(first.refreshToken, { scope: 'hr:read' });
      expect(narrowed.scope).toBe('hr:read');
      expect(await refusal(refreshWith(narrowed.refreshToken, { scope: 'hr:read fpa:read' }))).toMatchObject({
        code: 'invalid_scope',
        message: expect.stringMatching(/never widen/),
      });
      expect((await refreshWith(narrowed.refreshToken)).scope).toBe('stocks:read hr:read');
    });

    it('when the app no longer holds a granted scope, then a refresh gets what it still holds', async () => {
      const first = await codeFlow('hr:read stocks:read');
      client.app.principal.scopes = ['stocks:read'];
      expect((await refreshWith(first.refreshToken)).scope).toBe('stocks:read');
    });

    it('when another client presents it, then invalid_grant and nothing changes for its own client', async () => {
      const first = await codeFlow();
      const other = apps.add();
      expect(await refusal(refreshWith(first.refreshToken, { client: basic(other) }))).toMatchObject({
        code: 'invalid_grant',
        message: expect.stringMatching(/not issued to this client/),
      });
      await expect(refreshWith(first.refreshToken)).resolves.toMatchObject({ tokenType: 'Bearer' });
    });

    it('when its lifetime has passed, then it has expired', async () => {
      const first = await codeFlow();
      now += 86_400_000;
      expect(await refusal(refreshWith(first.refreshToken))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/expired at/) });
    });

    it('when it is not one of ours, then invalid_grant', async () => {
      expect((await refusal(refreshWith('not-a-refresh-token'))).message).toMatch(/rt_ followed by 43/);
      expect((await refusal(refreshWith(`rt_${'a'.repeat(43)}`))).message).toMatch(/not known/);
      expect((await refusal(refreshWith(''))).code).toBe('invalid_request');
    });
  });

  describe('VerifyAccessToken', () => {
    it('when live, then ok with the app principal, its scopes the token scopes the app still holds', async () => {
      const { accessToken } = await token(deps, tokenRequest({ scope: 'hr:read stocks:read' }));
      expect(await verify(accessToken)).toEqual({ ok: true, reason: '', principal: { ...client.principal, scopes: ['stocks:read', 'hr:read'] } });
      client.app.principal.scopes = ['hr:read', 'fpa:read'];
      expect((await verify(accessToken)).principal!.scopes).toEqual(['hr:read']);
    });

    it('when its lifetime has passed on the clock, then refused as expired; 1 s before, accepted', async () => {
      const { accessToken } = await token(deps, tokenRequest());
      now += 3_599_000;
      expect((await verify(accessToken)).ok).toBe(true);
      now += 1000;
      expect(await verify(accessToken)).toMatchObject({
        ok: false,
        reason: 'The access token expired at 2030-01-01T11:00:00.000Z; get a new one from the token endpoint.',
      });
    });

    it('when altered, signed by another key, unsigned, or not an access token, then refused saying which rule failed', async () => {
      const { accessToken } = await token(deps, tokenRequest());
      const [header, payload] = accessToken.split('.');
      const claims = decodeJwt(accessToken);
      const altered = `${header}.${Buffer.from(JSON.stringify({ ...claims, scope: 'fpa:read' })).toString('base64url')}.${accessToken.split('.')[2]}`;
      expect((await verify(altered)).reason).toMatch(/signature does not verify/);
      const { kid } = signingKey.accessTokens.signing;
      const elsewhere = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
        .sign(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
      expect((await verify(elsewhere)).reason).toMatch(/signature does not verify/);
      const unnamed = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' })
        .sign(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
      expect((await verify(unnamed)).reason).toMatch(/kid and alg do not name one of the keys published at \/\.well-known\/jwks\.json/);
      expect((await verify(`${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`)).reason).toMatch(/ES256 or RS256 and no other/);
      // As POST /playground/auth/jwt/issue makes it: RS256 and the RSA key's kid, typ JWT.
      const playgroundJwt = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: signingKey.kid }).sign(signingKey.privateKey);
      expect((await verify(playgroundJwt)).reason).toMatch(/typ header is not at\+jwt/);
      expect((await verify('bt_not_a_jwt')).reason).toMatch(/three base64url parts/);
      expect((await verify('')).reason).toBe('No access token was given.');
    });

    it('when its app is revoked or deleted, then refused saying so', async () => {
      const { accessToken } = await token(deps, tokenRequest());
      client.app.active = false;
      expect(await verify(accessToken)).toMatchObject({ ok: false, reason: 'The app this access token was issued to is revoked.' });
      apps.apps.delete(client.appId);
      expect(await verify(accessToken)).toMatchObject({ ok: false, reason: 'The app this access token was issued to has been deleted.' });
    });

    it('when the app is revoked in identity, then its tokens fail within the 500 ms the directory may remember it', async () => {
      let active = true;
      const identityClient = {
        lookupApp: async (): Promise<identity.LookupAppResponse> => ({ found: true, active, principal: client.principal, redirectUris: [] }),
        getSigningKey: async () => ({ found: false, active: false, principal: undefined, apiKey: '' }),
        verifyBasic: async (request: identity.VerifyBasicRequest) => ({ check: await apps.verifySecret(request.appId, request.appSecret) }),
      };
      deps.apps = new AppDirectory(identityClient, () => now);
      const { accessToken } = await token(deps, tokenRequest());
      expect((await verify(accessToken)).ok).toBe(true);
      active = false;
      now += 499;
      expect((await verify(accessToken)).ok).toBe(true); // remembered
      now += 1;
      expect(await verify(accessToken)).toMatchObject({ ok: false, reason: expect.stringMatching(/revoked/) });
    });
  });

  describe('introspection (RFC 7662)', () => {
    const inactive = { active: false, sub: '', clientId: '', scope: '', exp: 0, iat: 0, tokenType: '', iss: '', jti: '', aud: '' };
    const ask = (tokenValue: string, client?: oauth.ClientAuthentication) => introspect(deps, { token: tokenValue, tokenTypeHint: '', client });

    it('when an access token is live, then anyone may read its RFC 7662 fields', async () => {
      const { accessToken } = await token(deps, tokenRequest({ scope: 'hr:read' }));
      const claims = decodeJwt(accessToken);
      expect(await ask(accessToken)).toEqual({
        active: true,
        sub: client.appId,
        clientId: client.appId,
        scope: 'hr:read',
        exp: claims.exp,
        iat: claims.iat,
        tokenType: 'Bearer',
        iss: ISSUER,
        jti: claims.jti,
        aud: `${ISSUER}/playground`,
      });
      expect((await ask(accessToken, basic())).active).toBe(true);
    });

    it('when the caller names or authenticates as another client, then the token reads inactive', async () => {
      const { accessToken } = await token(deps, tokenRequest());
      const other = apps.add();
      expect(await ask(accessToken, basic(other))).toEqual(inactive);
      expect(await ask(accessToken, { clientId: other.appId, clientSecret: '', method: '' })).toEqual(inactive);
    });

    it('when the caller sends a wrong secret, then 401 invalid_client', async () => {
      const { accessToken } = await token(deps, tokenRequest());
      expect(await refusal(ask(accessToken, { ...basic(), clientSecret: 'as_wrong' }))).toMatchObject({
        status: GrpcStatus.UNAUTHENTICATED,
        code: 'invalid_client',
      });
    });

    it('when the token is unknown, malformed, expired, revoked, or of a revoked or deleted app, then exactly active:false', async () => {
      expect(await ask('not-a-token')).toEqual(inactive);
      expect(await ask(`rt_${'a'.repeat(43)}`)).toEqual(inactive);
      const revokedOne = (await token(deps, tokenRequest())).accessToken;
      await revoke(deps, { token: revokedOne, tokenTypeHint: '', client: basic() });
      expect(await ask(revokedOne)).toEqual(inactive);
      const { accessToken } = await token(deps, tokenRequest());
      client.app.active = false;
      expect(await ask(accessToken)).toEqual(inactive);
      client.app.active = true;
      apps.apps.delete(client.appId);
      expect(await ask(accessToken)).toEqual(inactive);
      apps.apps.set(client.appId, client.app);
      now += 3600_000;
      expect(await ask(accessToken)).toEqual(inactive);
    });

    it('when a refresh token is live, then it reads active with token_type refresh_token; once used, inactive', async () => {
      const first = await codeFlow('hr:read');
      expect(await ask(first.refreshToken)).toEqual({
        ...inactive,
        active: true,
        sub: client.principal.ownerId,
        clientId: client.appId,
        scope: 'hr:read',
        exp: now / 1000 + 86_400,
        iat: now / 1000,
        tokenType: 'refresh_token',
        iss: ISSUER,
      });
      await refreshWith(first.refreshToken);
      expect(await ask(first.refreshToken)).toEqual(inactive);
    });

    it('when token is missing, then invalid_request', async () => {
      expect((await refusal(ask(''))).code).toBe('invalid_request');
    });
  });

  describe('revocation (RFC 7009)', () => {
    const revokeAs = (tokenValue: string, c: oauth.ClientAuthentication | undefined = basic(), hint = '') =>
      revoke(deps, { token: tokenValue, tokenTypeHint: hint, client: c });

    it('when an access token is revoked, then it fails verification; the hint does not matter', async () => {
      const { accessToken } = await token(deps, tokenRequest());
      await revokeAs(accessToken, basic(), 'refresh_token');
      expect(await verify(accessToken)).toMatchObject({ ok: false, reason: expect.stringMatching(/revoked at .*the client revoked it/) });
    });

    it('the revocation is kept until the token would have expired anyway, then dropped', async () => {
      const { accessToken } = await token(deps, tokenRequest());
      await revokeAs(accessToken);
      const key = `oauth2:revoked-jti:${decodeJwt(accessToken).jti}`;
      expect(await store.get(key)).toBeDefined();
      now += 3600_000 + 60_000;
      expect(await store.get(key)).toBeUndefined();
    });

    it('when a refresh token is revoked, then its grant ends: its refresh tokens and its access tokens', async () => {
      const first = await codeFlow();
      const second = await refreshWith(first.refreshToken);
      await revokeAs(second.refreshToken);
      expect(await refusal(refreshWith(second.refreshToken))).toMatchObject({ code: 'invalid_grant', message: expect.stringMatching(/the client revoked it/) });
      for (const access of [first.accessToken, second.accessToken]) expect((await verify(access)).ok).toBe(false);
    });

    it('when the token is unknown, made up or another client, then success with no effect and nothing stored', async () => {
      const { accessToken } = await token(deps, tokenRequest());
      const { refreshToken } = await codeFlow();
      const other = apps.add();
      const put = jest.spyOn(store, 'put');
      await revokeAs(accessToken, basic(other));
      await revokeAs(refreshToken, basic(other));
      await revokeAs('made-up');
      await revokeAs(`rt_${'b'.repeat(43)}`);
      expect(put).not.toHaveBeenCalled();
      expect((await verify(accessToken)).ok).toBe(true);
      await expect(refreshWith(refreshToken)).resolves.toMatchObject({ tokenType: 'Bearer' });
    });

    it('when the client does not authenticate, then 401 invalid_client; a missing token is invalid_request', async () => {
      const { accessToken } = await token(deps, tokenRequest());
      expect((await refusal(revokeAs(accessToken, { clientId: '', clientSecret: '', method: '' }))).code).toBe('invalid_client');
      expect((await refusal(revokeAs(accessToken, { ...basic(), clientSecret: 'as_wrong' }))).code).toBe('invalid_client');
      expect((await refusal(revokeAs('', basic()))).code).toBe('invalid_request');
    });
  });
});

describe('what the store holds is bounded', () => {
  it('every key OAuth 2.0 writes has a lifetime (spied on the memory store)', async () => {
    let now = Date.UTC(2030, 0, 1);
    const apps = new StandInApps({ scopes: SCOPES, redirectUris: [REDIRECT] });
    const c = apps.add();
    const deps: OAuth2Deps = { config: CONFIG, ...memoryDeps(() => now, apps, signingKey) };
    const store: EphemeralStore = deps.store;
    const ttls: Record<string, number> = {};
    const seen = (key: string, ttlMs: number) => (ttls[key.replace(/:[^:]+$/, ':*')] = ttlMs);
    const put = store.put.bind(store);
    store.put = async (key, value, ttlMs, options) => {
      seen(key, ttlMs);
      return put(key, value, ttlMs, options);
    };
    const claimAndPut = store.claimAndPut.bind(store);
    store.claimAndPut = async (claim, then) => {
      seen(claim.key, claim.ttlMs);
      seen(then.key, then.ttlMs);
      return claimAndPut(claim, then);
    };
    const verifier = newVerifier();
    const auth = { clientId: c.appId, clientSecret: c.secret, method: 'basic' };
    const { location } = await authorize(deps, {
      responseType: 'code',
      clientId: c.appId,
      redirectUri: REDIRECT,
      scope: '',
      state: '',
      codeChallenge: s256(verifier),
      codeChallengeMethod: 'S256',
      issuer: ISSUER,
      present: [],
      repeated: [],
    });
    const base = {
      scope: '',
      redirectUri: REDIRECT,
      issuer: ISSUER,
      repeated: [],
      hasScope: false,
      hasCodeVerifier: true,
      client: auth,
      code: '',
      codeVerifier: '',
      refreshToken: '',
    };
    const first = await token(deps, { ...base, grantType: 'authorization_code', code: new URL(location).searchParams.get('code')!, codeVerifier: verifier });
    await token(deps, { ...base, grantType: 'refresh_token', refreshToken: first.refreshToken });
    await revoke(deps, { token: first.accessToken, tokenTypeHint: '', client: auth });
    await token(deps, { ...base, grantType: 'refresh_token', refreshToken: first.refreshToken }).catch(() => undefined);
    expect(ttls).toEqual({
      'oauth2:code:*': 120_000,
      'oauth2:code-used:*': 3600_000,
      'oauth2:rt:*': 86_460_000,
      'oauth2:rt-used:*': 86_460_000,
      'oauth2:revoked-jti:*': 3660_000,
      'oauth2:revoked-grant:*': 86_460_000,
    });
    now += 1;
    await store.close();
  });
});

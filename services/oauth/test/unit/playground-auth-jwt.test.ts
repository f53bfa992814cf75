import { createHmac, generateKeyPairSync } from 'node:crypto';
import { AppError, GrpcStatus } from '@sandbox/runtime';
import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { loadSigningKey, type SigningKey } from '../../src/domain/signing-key';
import { issueJwt, JWT_LIFETIME_SECONDS, PLAYGROUND_AUDIENCE, verifyJwt, type PlaygroundAuthDeps } from '../../src/domain/playground-auth';
import { memoryDeps, StandInApps } from '../support/unit-deps';

const APP_ID = 'app_jwt_practice';
const API_KEY = `ak_${'J'.repeat(43)}`;
const SCOPES = ['fpa:read', 'stocks:read', 'hr:read'];
const ISSUER = 'https://sandbox.example';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('playground JWTs (HS256 with the API key, RS256 with the sandbox key)', () => {
  let signingKey: SigningKey;
  let now: number;
  let apps: StandInApps;
  let deps: PlaygroundAuthDeps;

  beforeAll(async () => {
    signingKey = await loadSigningKey(undefined);
  });
  beforeEach(() => {
    now = Date.UTC(2030, 0, 1, 12, 0, 0);
    apps = new StandInApps();
    apps.add({ appId: APP_ID, apiKey: API_KEY, scopes: SCOPES });
    deps = memoryDeps(() => now, apps, signingKey);
  });
  afterEach(async () => deps.store.close());

  const issue = () => issueJwt(deps, { appId: APP_ID, issuer: ISSUER });
  const claims = (extra: JWTPayload = {}): JWTPayload => ({
    iss: ISSUER,
    sub: APP_ID,
    aud: PLAYGROUND_AUDIENCE,
    iat: Math.floor(now / 1000),
    exp: Math.floor(now / 1000) + 600,
    scope: SCOPES.join(' '),
    ...extra,
  });
  /** A token a learner signs themselves with their API key. */
  const selfSigned = (payload: JWTPayload, alg = 'HS256', key: Uint8Array = utf8(API_KEY)) =>
    new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(key);
  const reasonFor = async (token: string) => {
    const { check } = await verifyJwt(deps, token);
    expect(check!.ok).toBe(false);
    expect(check!.principal).toBeUndefined();
    expect(check!.reason).not.toContain(API_KEY);
    return check!.reason;
  };

  describe('issuing', () => {
    it('when an app asks, then an HS256 and an RS256 token with the same documented claims, lasting one hour', async () => {
      const issued = await issue();
      expect(issued).toMatchObject({ expiresIn: 3600, audience: 'urn:training-sandbox:playground', issuer: ISSUER });
      const hs = decodeJwt(issued.hs256);
      const rs = decodeJwt(issued.rs256);
      const iat = Math.floor(now / 1000);
      expect(hs).toEqual({
        iss: ISSUER,
        sub: APP_ID,
        aud: PLAYGROUND_AUDIENCE,
        iat,
        exp: iat + JWT_LIFETIME_SECONDS,
        jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        scope: 'fpa:read stocks:read hr:read',
      });
      expect(rs).toEqual(hs);
      expect(decodeProtectedHeader(issued.hs256)).toEqual({ alg: 'HS256', typ: 'JWT' });
      expect(decodeProtectedHeader(issued.rs256)).toEqual({ alg: 'RS256', typ: 'JWT', kid: signingKey.kid });
    });

    it('when checked by an independent verifier, then HS256 verifies with the API key and RS256 with the public key', async () => {
      const issued = await issue();
      const options = { audience: PLAYGROUND_AUDIENCE, issuer: ISSUER, currentDate: new Date(now) };
      await expect(jwtVerify(issued.hs256, utf8(API_KEY), { ...options, algorithms: ['HS256'] })).resolves.toBeDefined();
      await expect(jwtVerify(issued.rs256, signingKey.publicKey, { ...options, algorithms: ['RS256'] })).resolves.toBeDefined();
    });

    it('when the app has been revoked or deleted since the Basic check, then UNAUTHENTICATED naming it', async () => {
      apps.apps.get(APP_ID)!.active = false;
      await expect(issue()).rejects.toMatchObject({ status: GrpcStatus.UNAUTHENTICATED, code: 'app_revoked' });
      await expect(issueJwt(deps, { appId: 'nobody', issuer: ISSUER })).rejects.toMatchObject({ code: 'app_not_found' });
      await expect(issueJwt(deps, { appId: APP_ID, issuer: '' })).rejects.toBeInstanceOf(AppError);
    });
  });

  describe('verifying', () => {
    it('when either issued token is presented, then it is accepted as the app, with the algorithm named', async () => {
      const issued = await issue();
      for (const [token, algorithm] of [
        [issued.hs256, 'HS256'],
        [issued.rs256, 'RS256'],
      ]) {
        await expect(verifyJwt(deps, token)).resolves.toEqual({ check: { ok: true, reason: '', principal: apps.apps.get(APP_ID)!.principal }, algorithm });
      }
    });

    it("when the token's scope is narrower than the app's, then the principal holds only the token's scope; scopes the app lost are gone too", async () => {
      const token = await selfSigned(claims({ scope: 'hr:read marketing:read' }));
      expect((await verifyJwt(deps, token)).check!.principal!.scopes).toEqual(['hr:read']);
      apps.apps.get(APP_ID)!.principal.scopes = ['fpa:read'];
      const issued = await issue();
      apps.apps.get(APP_ID)!.principal.scopes = ['stocks:read'];
      expect((await verifyJwt(deps, issued.rs256)).check!.principal!.scopes).toEqual([]);
      expect((await verifyJwt(deps, await selfSigned(claims({ scope: undefined })))).check!.principal!.scopes).toEqual([]);
    });

    it('when the clock passes exp, then refused saying when it expired and the server time; a second earlier it passes', async () => {
      const issued = await issue();
      now += JWT_LIFETIME_SECONDS * 1000 - 1000;
      expect((await verifyJwt(deps, issued.hs256)).check!.ok).toBe(true);
      now += 1000;
      const reason = await reasonFor(issued.rs256);
      const exp = new Date(now).toISOString();
      expect(reason).toContain(`The token expired at ${exp}`);
      expect(reason).toContain(`server time is ${exp}`);
      expect(reason).toContain('POST /playground/auth/jwt/issue');
    });

    it('when aud is another value or missing, then refused saying what was expected and what was received', async () => {
      expect(await reasonFor(await selfSigned(claims({ aud: 'https://api.example.com' })))).toBe(
        `Wrong aud: expected "${PLAYGROUND_AUDIENCE}", received "https://api.example.com".`,
      );
      expect(await reasonFor(await selfSigned(claims({ aud: ['a', 'b'] })))).toBe(`Wrong aud: expected "${PLAYGROUND_AUDIENCE}", received ["a","b"].`);
      expect(await reasonFor(await selfSigned(claims({ aud: undefined })))).toMatch(/no aud claim/);
      expect(await reasonFor(await selfSigned(claims({ exp: undefined })))).toMatch(/no exp claim/);
      expect(await reasonFor(await selfSigned(claims({ nbf: Math.floor(now / 1000) + 60 })))).toMatch(/not valid before .* server time is/);
    });

    it('when alg is none, then refused whatever the payload says', async () => {
      const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`;
      expect(await reasonFor(token)).toMatch(/^alg "none" is refused/);
      expect(await reasonFor(`${b64({ alg: 'NONE' })}.${b64(claims())}.`)).toMatch(/^alg "none" is refused/);
      expect(await reasonFor(`${b64({ typ: 'JWT' })}.${b64(claims())}.c2ln`)).toMatch(/no alg/);
    });

    it('when alg is another one, even signed with the right key, then refused as unsupported; a lowercase name gets a hint', async () => {
      const hs512 = await selfSigned(claims(), 'HS512');
      expect(await reasonFor(hs512)).toMatch(/alg 'HS512' is not supported: this endpoint accepts HS256 .* and RS256/);
      const [, payload, signature] = (await selfSigned(claims())).split('.');
      expect(await reasonFor(`${b64({ alg: 'hs256' })}.${payload}.${signature}`)).toMatch(/case-sensitive: write "HS256"/);
    });

    it('when an RS256 token is re-signed as HS256 with the public key (alg confusion), then refused and the attack named', async () => {
      const issued = await issue();
      const payload = decodeJwt(issued.rs256);
      for (const secret of [signingKey.publicPem, signingKey.publicPem.trimEnd()]) {
        const forged = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: signingKey.kid }).sign(utf8(secret));
        const { check } = await verifyJwt(deps, forged);
        expect(check).toEqual({ ok: false, reason: expect.stringContaining('algorithm-confusion attack'), principal: undefined });
        expect(check!.reason).toContain('never with the public key');
      }
    });

    it('when the payload is altered or the key is another, then "signature does not match", naming the key that checks it', async () => {
      const issued = await issue();
      const [h, , s] = issued.hs256.split('.');
      const widened = `${h}.${b64({ ...decodeJwt(issued.hs256), scope: 'fpa:read stocks:read marketing:read hr:read cricket:read' })}.${s}`;
      expect(await reasonFor(widened)).toMatch(/^The signature does not match: HS256 tokens are checked with your app's API key/);
      expect(await reasonFor(await selfSigned(claims(), 'HS256', utf8(`as_${'S'.repeat(43)}`)))).toMatch(/not the App Secret/);
      const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const elsewhere = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: 'someone-else' }).sign(otherKey);
      const reason = await reasonFor(elsewhere);
      expect(reason).toMatch(/^The signature does not match the sandbox's RS256 public key/);
      expect(reason).toContain(`kid 'someone-else' is not the sandbox's key (kid ${signingKey.kid})`);
    });

    it('when the app is revoked, then its tokens of both kinds are refused saying so; an unknown sub is refused too', async () => {
      const issued = await issue();
      apps.apps.get(APP_ID)!.active = false;
      expect(await reasonFor(issued.hs256)).toBe(`The app '${APP_ID}' is revoked: its tokens are refused.`);
      expect(await reasonFor(issued.rs256)).toBe(`The app '${APP_ID}' is revoked: its tokens are refused.`);
      apps.apps.delete(APP_ID);
      expect(await reasonFor(issued.rs256)).toMatch(/is not the App ID of any app here/);
      expect(await reasonFor(issued.hs256)).toMatch(/is not the App ID of any app here/);
    });

    it('when the value is not a JWT at all, then refused saying what a JWT looks like', async () => {
      expect(await reasonFor('')).toMatch(/No token was given/);
      expect(await reasonFor('bt_notajwt')).toMatch(/three base64url parts .* this has 1/);
      expect(await reasonFor('a.b.c.d.e')).toMatch(/encrypted JWT \(JWE/);
      expect(await reasonFor('e30.e30.')).toMatch(/no alg/);
      expect(await reasonFor('!!.e30.c2ln')).toMatch(/header is not base64url/);
      expect(await reasonFor(`${b64({ alg: 'HS256' })}.${b64([1])}.c2ln`)).toMatch(/payload is not a base64url-encoded JSON object/);
      expect(await reasonFor(await selfSigned(claims({ sub: undefined })))).toMatch(/no sub claim/);
    });

    it('when an OAuth 2.0 access token (typ at+jwt) is presented, then refused pointing to the oauth2 endpoint', async () => {
      const accessToken = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: signingKey.kid }).sign(signingKey.privateKey);
      expect(await reasonFor(accessToken)).toMatch(/OAuth 2.0 access token .* \/playground\/auth\/oauth2/);
    });

    it('when a refusal explains a signature, then it never carries the expected signature', async () => {
      const token = await selfSigned(claims());
      const [h, p] = token.split('.');
      const expected = createHmac('sha256', API_KEY).update(`${h}.${p}`).digest('base64url');
      const reason = await reasonFor(`${h}.${p}.${'A'.repeat(43)}`);
      expect(reason).not.toContain(expected);
    });
  });
});

import type Redis from 'ioredis';
import type { identity, oauth } from '@sandbox/contracts';
import { GrpcStatus } from '@sandbox/runtime';
import { refusalOf } from '@sandbox/testing';
import { newVerifier, s256, tokenRequestOf } from '../support/oauth2-client';
import { movableClock, REDIS_PREFIX, startOAuthSystem, type IdentityClient, type OAuthClient, type OAuthSystem } from '../support/oauth-harness';

jest.setTimeout(60_000);

const ISSUER = 'http://127.0.0.1:8080';
const REDIRECT = 'http://127.0.0.1:9/callback';

/**
 * ForgetApps, for an operator deleting a user (docs/operators.md): through
 * one replica, the other replica (same Redis) no longer knows the app's
 * codes and refresh tokens; another app's stay usable.
 */
describe('oauth service: ForgetApps (real identity, real Redis, two replicas)', () => {
  const { clock } = movableClock();
  let system: OAuthSystem;
  let idp: IdentityClient;
  let a: OAuthClient;
  let b: OAuthClient;
  let redis: Redis;

  const newApp = async () => {
    const { app, issued } = await idp.createApp({
      ownerId: system.owner,
      name: 'Forget me',
      description: '',
      redirectUris: [REDIRECT],
    } as identity.CreateAppRequest);
    return { appId: app!.appId, secret: issued!.appSecret! };
  };
  type App = Awaited<ReturnType<typeof newApp>>;
  const client = (app: App): oauth.ClientAuthentication => ({ clientId: app.appId, clientSecret: app.secret, method: 'basic' });
  const code = async (app: App) => {
    const verifier = newVerifier();
    const { location } = await a.authorize({
      responseType: 'code',
      clientId: app.appId,
      redirectUri: REDIRECT,
      scope: '',
      state: '',
      codeChallenge: s256(verifier),
      codeChallengeMethod: 'S256',
      issuer: ISSUER,
      present: ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method'],
      repeated: [],
    });
    return { code: new URL(location).searchParams.get('code')!, verifier };
  };
  const redeem = (app: App, given: { code: string; verifier: string }, via: OAuthClient) =>
    via.token(
      tokenRequestOf({
        client: client(app),
        issuer: ISSUER,
        grantType: 'authorization_code',
        code: given.code,
        redirectUri: REDIRECT,
        codeVerifier: given.verifier,
      }),
    );
  const refresh = (app: App, refreshToken: string, via: OAuthClient) =>
    via.token(tokenRequestOf({ client: client(app), issuer: ISSUER, grantType: 'refresh_token', refreshToken }));
  /** How many keys of the replicas' Redis name the app, in the key or the value. */
  const keysNaming = async (appId: string) => {
    let count = 0;
    for await (const keys of redis.scanStream({ match: `${REDIS_PREFIX}oauth*`, count: 500 }))
      for (const key of keys as string[]) if (key.includes(appId) || ((await redis.get(key)) ?? '').includes(appId)) count++;
    return count;
  };

  beforeAll(async () => {
    system = await startOAuthSystem({ clock, label: 'forget' });
    ({ idp, redis } = system);
    [a, b] = system.replicas;
  });
  afterAll(async () => system?.stop());

  it('when an app is forgotten through one replica, then its refresh token and an unredeemed code are unknown at the other; another app keeps its own', async () => {
    const [gone, kept] = [await newApp(), await newApp()];
    const goneTokens = await redeem(gone, await code(gone), a);
    const pending = await code(gone);
    const keptTokens = await redeem(kept, await code(kept), a);
    expect(await keysNaming(gone.appId)).toBeGreaterThanOrEqual(3); // the refresh token, the code's redeemed-mark, the pending code

    const { forgotten } = await a.forgetApps({ appIds: [gone.appId] });
    expect(forgotten).toBeGreaterThanOrEqual(3);
    expect(await keysNaming(gone.appId)).toBe(0);

    expect(await refusalOf(refresh(gone, goneTokens.refreshToken, b))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_grant' });
    expect(await refusalOf(redeem(gone, pending, b))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_grant' });
    expect((await refresh(kept, keptTokens.refreshToken, b)).refreshToken).toEqual(expect.any(String));
    expect(await b.forgetApps({ appIds: [gone.appId] })).toEqual({ forgotten: 0 });
  });

  it('when a value that is not an App ID is given, then INVALID_ARGUMENT and nothing is forgotten', async () => {
    const app = await newApp();
    const tokens = await redeem(app, await code(app), a);
    for (const wrong of ['', 'app_', 'app_short', `${app.appId}x`]) {
      expect(await refusalOf(a.forgetApps({ appIds: [app.appId, wrong] }))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_app_id' });
    }
    expect((await refresh(app, tokens.refreshToken, b)).refreshToken).toEqual(expect.any(String));
  });
});

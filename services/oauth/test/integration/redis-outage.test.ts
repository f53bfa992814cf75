import Redis from 'ioredis';
import type { oauth } from '@sandbox/contracts';
import { GrpcStatus } from '@sandbox/runtime';
import { eventually, refusalOf } from '@sandbox/testing';
import { ownRedis, type OwnedStore } from '../../../../test/support/owned-store';
import { RedisEphemeralStore } from '../../src/stores/redis-ephemeral-store';
import { newVerifier, s256, tokenRequestOf } from '../support/oauth2-client';
import { movableClock, startOAuthSystem, type OAuthClient, type OAuthSystem } from '../support/oauth-harness';

jest.setTimeout(60_000);

const ISSUER = 'http://127.0.0.1:8080';
const REDIRECT = 'http://127.0.0.1:9/callback';

/**
 * Redis crashes under a running oauth service (a Redis of the test's own,
 * killed and started again on its port with its data): a call that needs it
 * is refused at once with UNAVAILABLE naming Redis (503 at the gateway, with
 * Retry-After), and once Redis is back the same call works, with what was
 * written before. A full Redis (noeviction) is answered the same way.
 */
describe('oauth service: Redis stopped and started again, or full', () => {
  let redis: OwnedStore;
  let system: OAuthSystem;
  let oauthClient: OAuthClient;
  let client: oauth.ClientAuthentication;
  let refreshToken: string;

  const refresh = (token: string) => oauthClient.token(tokenRequestOf({ grantType: 'refresh_token', refreshToken: token, client, issuer: ISSUER }));

  beforeAll(async () => {
    redis = await ownRedis();
    system = await startOAuthSystem({ clock: movableClock().clock, label: 'redis-outage', replicas: 1, redisUrl: redis.url });
    [oauthClient] = system.replicas;
    const { app, issued } = await system.idp.createApp({ ownerId: system.owner, name: 'Outage', description: '', redirectUris: [REDIRECT] });
    client = { clientId: app!.appId, clientSecret: issued!.appSecret!, method: 'basic' };
    const verifier = newVerifier();
    const { location } = await oauthClient.authorize({
      responseType: 'code',
      clientId: app!.appId,
      redirectUri: REDIRECT,
      scope: '',
      state: '',
      codeChallenge: s256(verifier),
      codeChallengeMethod: 'S256',
      issuer: ISSUER,
      present: ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method'],
      repeated: [],
    });
    const code = new URL(location).searchParams.get('code')!;
    ({ refreshToken } = await oauthClient.token(
      tokenRequestOf({ grantType: 'authorization_code', code, redirectUri: REDIRECT, codeVerifier: verifier, client, issuer: ISSUER }),
    ));
  });

  afterAll(async () => {
    await system?.stop();
    await redis?.remove();
  });

  it('when Redis is killed, then a call that needs it is refused within a second with UNAVAILABLE naming Redis; when it is back, the refresh token from before works within 2 s', async () => {
    await redis.kill();
    const started = Date.now();
    expect(await refusalOf(refresh(refreshToken))).toEqual({
      status: GrpcStatus.UNAVAILABLE,
      code: 'redis_unavailable',
      message: 'Redis is unavailable; the routes that do not need it keep working. Try again shortly.',
      retryAfterSeconds: 2,
    });
    expect(Date.now() - started).toBeLessThan(1000);

    await redis.start();
    const back = Date.now();
    const refreshed = await eventually(
      () => refresh(refreshToken).catch((error: unknown) => error),
      (answer) => typeof answer === 'object' && answer !== null && 'refreshToken' in answer,
      2000,
      50,
    );
    expect(Date.now() - back).toBeLessThan(2000);
    expect(refreshed.value).toMatchObject({ refreshToken: expect.stringMatching(/^rt_/) });
  });

  it('when Redis is full (noeviction refuses writes), then a write is refused with UNAVAILABLE naming Redis, not an internal error', async () => {
    const admin = new Redis(redis.url);
    const store = new RedisEphemeralStore(redis.url);
    try {
      await store.connect();
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', '1');
      expect(await refusalOf(store.put('full', 'value', 60_000))).toMatchObject({ status: GrpcStatus.UNAVAILABLE, code: 'redis_unavailable' });
    } finally {
      await admin.config('SET', 'maxmemory', '0');
      admin.disconnect();
      await store.close();
    }
  });
});

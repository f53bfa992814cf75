import { createHash, createHmac, randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { decodeJwt } from 'jose';
import type { oauth } from '@sandbox/contracts';
import { GrpcStatus } from '@sandbox/runtime';
import { eventually, refusalOf } from '@sandbox/testing';
import { movableClock, REDIS_PREFIX, sha256hex, startOAuthSystem, type IdentityClient, type OAuthClient, type OAuthSystem } from '../support/oauth-harness';

jest.setTimeout(60_000);

const ISSUER = 'http://127.0.0.1:8080';
const REALM = 'training-sandbox';

/** A Digest client written from RFC 7616 3.4.1, independent of the service's code. */
function digestHeader(
  challenge: string,
  fields: { username: string; password: string; method: string; uri: string; nc: string; algorithm?: 'SHA-256' | 'MD5' },
): string {
  const value = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(challenge)![1];
  const algorithm = fields.algorithm ?? (/algorithm=([A-Za-z0-9-]+)/.exec(challenge)![1] as 'SHA-256' | 'MD5');
  const H = (text: string) =>
    createHash(algorithm === 'MD5' ? 'md5' : 'sha256')
      .update(text)
      .digest('hex');
  const [realm, nonce, opaque] = [value('realm'), value('nonce'), value('opaque')];
  const cnonce = randomBytes(8).toString('hex');
  const response = H(`${H(`${fields.username}:${realm}:${fields.password}`)}:${nonce}:${fields.nc}:${cnonce}:auth:${H(`${fields.method}:${fields.uri}`)}`);
  return `Digest username="${fields.username}", realm="${realm}", nonce="${nonce}", uri="${fields.uri}", algorithm=${algorithm}, response="${response}", opaque="${opaque}", qop=auth, nc=${fields.nc}, cnonce="${cnonce}"`;
}

/**
 * The playground's JWT, HMAC and Digest checks at the gRPC boundary: the real
 * identity service, two oauth replicas sharing the real Redis and one signing
 * key, each with a clock the test moves, called through grpc-js.
 */
describe('oauth service: playground JWT, HMAC and Digest over gRPC (real identity, real Redis, two replicas)', () => {
  const { clock, letTimePass, resetClock } = movableClock();
  let system: OAuthSystem;
  let idp: IdentityClient;
  let a: OAuthClient; // replica A
  let b: OAuthClient; // replica B, same Redis and key
  let redis: Redis;
  let owner: string;

  const newApp = async (scopes = ['stocks:read', 'hr:read']) => {
    const { app, issued } = await idp.createApp({ ownerId: owner, name: 'Playground practice', description: '', redirectUris: [], scopes: { scopes } });
    return { id: app!.id, appId: app!.appId, apiKey: issued!.apiKey!, scopes: app!.scopes };
  };
  type App = Awaited<ReturnType<typeof newApp>>;

  const hmacRequest = (app: App, path = '/playground/auth/hmac'): oauth.VerifyHmacRequest => {
    const timestamp = String(Math.floor(clock() / 1000));
    const signature = createHmac('sha256', app.apiKey).update(`${timestamp}.POST.${path}`).digest('hex');
    return { appId: app.appId, timestamp, signature, method: 'POST', path, rawQuery: '' };
  };
  const digestRequest = async (app: App, nc = '00000001', via: OAuthClient = a): Promise<oauth.DigestVerifyRequest> => {
    const [challenge] = (await via.digestChallenge({ realm: REALM })).wwwAuthenticate;
    const uri = '/playground/auth/digest';
    return { method: 'GET', uri, authorization: digestHeader(challenge, { username: app.appId, password: app.apiKey, method: 'GET', uri, nc }) };
  };

  beforeAll(async () => {
    system = await startOAuthSystem({ clock, label: 'playground' });
    ({ idp, redis, owner } = system);
    [a, b] = system.replicas;
  });

  afterEach(resetClock);

  afterAll(() => system?.stop());

  describe('JWT', () => {
    it('when replica A issues both tokens, then replica B accepts each as the app with its scopes', async () => {
      const app = await newApp();
      const issued = await a.issueJwt({ appId: app.appId, issuer: ISSUER });
      expect(issued).toMatchObject({ expiresIn: 3600, audience: 'urn:training-sandbox:playground', issuer: ISSUER });
      expect(decodeJwt(issued.rs256)).toMatchObject({ sub: app.appId, iss: ISSUER, scope: 'stocks:read hr:read' });
      for (const [token, algorithm] of [
        [issued.hs256, 'HS256'],
        [issued.rs256, 'RS256'],
      ]) {
        const answer = await b.verifyJwt({ token });
        expect(answer).toEqual({ algorithm, check: { ok: true, reason: '', principal: { id: app.id, appId: app.appId, ownerId: owner, scopes: app.scopes } } });
      }
    });

    it("when the replicas' clock passes exp, then refused as expired; alg none refused", async () => {
      const app = await newApp();
      const { rs256 } = await a.issueJwt({ appId: app.appId, issuer: ISSUER });
      letTimePass(3600_000);
      expect((await b.verifyJwt({ token: rs256 })).check).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^The token expired at .* server time is/),
      });
      const [, payload] = rs256.split('.');
      const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
      expect((await a.verifyJwt({ token: none })).check!.reason).toMatch(/^alg "none" is refused/);
    });

    it('when a revoked app asks for tokens, then UNAUTHENTICATED app_revoked crosses gRPC', async () => {
      const app = await newApp();
      await idp.deleteApp({ ownerId: owner, id: app.id, revoke: true });
      await eventually(
        () => refusalOf(a.issueJwt({ appId: app.appId, issuer: ISSUER })).catch(() => undefined),
        (refusal) => refusal?.code === 'app_revoked',
        10_000,
        100,
      );
      expect(await refusalOf(a.issueJwt({ appId: app.appId, issuer: ISSUER }))).toMatchObject({ status: GrpcStatus.UNAUTHENTICATED, code: 'app_revoked' });
    });
  });

  describe('HMAC', () => {
    it('when a signature is accepted by A, then B refuses it as replayed; Redis remembers it under its hash for at most 11 minutes and a second', async () => {
      const app = await newApp();
      const request = hmacRequest(app);
      expect((await a.verifyHmac(request)).check).toMatchObject({ ok: true, principal: { appId: app.appId } });
      expect((await b.verifyHmac(request)).check!.reason).toMatch(/^Replayed/);
      const key = `${REDIS_PREFIX}playground:hmac:seen:${sha256hex(`${app.appId}\n${request.signature}`)}`;
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(5 * 60_000);
      expect(ttl).toBeLessThanOrEqual(11 * 60_000 + 1000);
    });

    it('when two replicas check one signature at the same moment, then exactly one accepts it', async () => {
      const app = await newApp();
      for (let round = 0; round < 5; round++) {
        const request = { ...hmacRequest(app, `/playground/auth/hmac/${round}`) };
        const checks = await Promise.all([a.verifyHmac(request), b.verifyHmac(request)]);
        expect(checks.filter(({ check }) => check!.ok)).toHaveLength(1);
      }
    });

    it("when the timestamp is 6 minutes old by the replicas' clock, then refused with the offset and the server time", async () => {
      const app = await newApp();
      const request = hmacRequest(app);
      letTimePass(6 * 60_000);
      expect((await a.verifyHmac(request)).check!.reason).toMatch(/is 360 s behind server time.* Server time is /);
    });
  });

  describe('Digest', () => {
    it("when A issues the challenge and B checks the answer, then accepted; the count is kept in Redis for the nonce's life plus a minute at most", async () => {
      const app = await newApp();
      const request = await digestRequest(app, '00000001', a);
      expect((await b.digestVerify(request)).check).toMatchObject({ ok: true, principal: { appId: app.appId } });
      const nonce = /nonce="([^"]*)"/.exec(request.authorization)![1];
      const key = `${REDIS_PREFIX}playground:digest:nc:${sha256hex(nonce)}`;
      expect(await redis.get(key)).toBe('1');
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(4 * 60_000);
      expect(ttl).toBeLessThanOrEqual(6 * 60_000);
      expect((await a.digestVerify(request)).check!.reason).toMatch(/^nc 00000001 does not increase/);
    });

    it('when two replicas check the same nonce count at the same moment, then exactly one accepts it', async () => {
      const app = await newApp();
      for (let round = 0; round < 5; round++) {
        const request = await digestRequest(app);
        const checks = await Promise.all([a.digestVerify(request), b.digestVerify(request)]);
        expect(checks.filter(({ check }) => check!.ok)).toHaveLength(1);
        expect(checks.map(({ check }) => check!.reason).filter(Boolean)).toEqual([expect.stringMatching(/^nc 00000001 does not increase/)]);
      }
    });

    it("when the nonce is older than 5 minutes by the replicas' clock, then fresh challenges with stale=true travel back, and they work", async () => {
      const app = await newApp();
      const request = await digestRequest(app);
      letTimePass(5 * 60_000 + 1000);
      const stale = await b.digestVerify(request);
      expect(stale.check).toMatchObject({ ok: false, reason: expect.stringMatching(/^nonce: stale/) });
      expect(stale.wwwAuthenticate).toEqual([expect.stringMatching(/algorithm=SHA-256.*stale=true$/), expect.stringMatching(/algorithm=MD5.*stale=true$/)]);
      const answer = digestHeader(stale.wwwAuthenticate[1], { username: app.appId, password: app.apiKey, method: 'GET', uri: request.uri, nc: '00000001' });
      expect((await a.digestVerify({ ...request, authorization: answer })).check!.ok).toBe(true);
    });

    it('when the gateway asks for a challenge with a realm that would break the header, then INVALID_ARGUMENT', async () => {
      expect(await refusalOf(a.digestChallenge({ realm: 'a"b' }))).toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_request' });
    });
  });

  it('when an app is revoked through identity, then its JWTs, HMAC signatures and Digest answers are refused within 10 s, saying so', async () => {
    const app = await newApp();
    const { hs256, rs256 } = await a.issueJwt({ appId: app.appId, issuer: ISSUER });
    expect((await b.verifyJwt({ token: rs256 })).check!.ok).toBe(true);
    await idp.deleteApp({ ownerId: owner, id: app.id, revoke: true });
    let nc = 0;
    const reasons = async () => {
      const digest = await digestRequest(app, (++nc).toString(16).padStart(8, '0'));
      return [
        (await b.verifyJwt({ token: rs256 })).check!.reason,
        (await b.verifyJwt({ token: hs256 })).check!.reason,
        (await a.verifyHmac(hmacRequest(app, `/playground/auth/hmac/${nc}`))).check!.reason,
        (await a.digestVerify(digest)).check!.reason,
      ];
    };
    const { value } = await eventually(reasons, (all) => all.every((reason) => /is revoked/.test(reason)), 10_000, 100);
    expect(value).toEqual([
      `The app '${app.appId}' is revoked: its tokens are refused.`,
      `The app '${app.appId}' is revoked: its tokens are refused.`,
      `The app '${app.appId}' is revoked: its signatures are refused.`,
      `The app '${app.appId}' is revoked: its credentials are refused.`,
    ]);
  });
});

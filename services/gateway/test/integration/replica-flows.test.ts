import { createHash, createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import OAuth from 'oauth-1.0a';
import {
  apiRequest,
  createApp,
  eventually,
  isolatedMongoUrl,
  rawRequest,
  registerUser,
  requireStoreUrls,
  startSystem,
  type CreatedApp,
  type RawResponse,
  type RunningSystem,
} from '@sandbox/testing';

jest.setTimeout(180_000);

/*
 * Issue #21: every stateful rule of the OAuth and auth-playground flows holds
 * when consecutive requests of one flow reach different replicas of the
 * gateway and of the service. Round robin (replicas.test.ts, REPLICAS=2) only
 * makes that likely; here it is certain: two launchers, each a whole
 * one-replica sandbox, share the stores and every key, so gateway A reaches
 * only identity#1 and oauth#1 and gateway B only identity#2 and oauth#2, and
 * a flow that alternates A, B, A crosses both each time.
 */

/**
 * The one address clients use, as behind a load balancer in front of both
 * gateways. It must be the same on both: the issuer of tokens and the URL an
 * OAuth 1.0a signature covers (RFC 5849 3.4.1) come from it, so with each
 * gateway's own 127.0.0.1:<port> a request signed for A would fail at B by
 * design. Never dialled: requests go to each gateway's port.
 */
const PUBLIC = 'http://sandbox.replicas.test';
const REDIRECT = 'http://127.0.0.1:9/callback';
const REALM = 'training-sandbox';
/** A gateway remembers a credential's verdict at most 500 ms (CREDENTIAL_CACHE_MS); the rule is a second. */
const REVOCATION_RULE_MS = 1000;

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('one flow, consecutive requests on different replicas of the gateway and of the services', () => {
  let one: RunningSystem;
  let two: RunningSystem;
  /** Gateway A (reaching identity#1, oauth#1) and gateway B (identity#2, oauth#2). */
  let A: string;
  let B: string;
  let session: string;
  let app: CreatedApp;

  const basic = () => `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`;
  const post = (gateway: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    rawRequest(`${gateway}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  const token = (gateway: string, fields: Record<string, string>) => post(gateway, '/oauth/token', fields, { Authorization: basic() });
  const introspect = (gateway: string, value: string) => post(gateway, '/oauth/introspect', { token: value });
  const atResource = (gateway: string, access: string) => rawRequest(`${gateway}/playground/auth/oauth2`, { headers: { Authorization: `Bearer ${access}` } });

  /** RFC 6749 5.2: the status, the error, and a description saying which rule failed. */
  const expectOAuthError = (res: RawResponse, status: number, error: string, description: RegExp) => {
    expect({ status: res.status, error: res.json().error }).toEqual({ status, error });
    expect(res.json().error_description).toMatch(description);
  };
  /** The playground's 401 (docs/errors.md): the challenge of the style, and a message with the rule. */
  const expectRefused = (res: RawResponse, challenge: RegExp, message: RegExp) => {
    expect({ status: res.status, challenge: res.headers['www-authenticate'] }).toEqual({ status: 401, challenge: expect.stringMatching(challenge) });
    expect(res.json().error).toEqual(expect.objectContaining({ code: 'invalid_credentials', message: expect.stringMatching(message) }));
  };
  const expectTokenRefused = (res: RawResponse, message: RegExp) => expectRefused(res, /^Bearer realm="training-sandbox", error="invalid_token"/, message);

  /**
   * After a revocation answered at `since` (taken right after the answer), the
   * token is probed at the resource through `gateway` for 1.5 s: every probe
   * sent a second or more after the answer must be refused. Each probe counts
   * from when it was sent, not answered, so a slow answer on a busy machine
   * cannot fail a rule the server kept. (The refusal comes at about 500 ms,
   * the verdict cache's life; a failure shows when it came.)
   */
  const expectRefusedWithinTheRule = async (gateway: string, access: string, since: number, message: RegExp) => {
    const probes: { sentMs: number; status: number }[] = [];
    let last: RawResponse;
    do {
      const sentMs = Date.now() - since;
      last = await atResource(gateway, access);
      probes.push({ sentMs, status: last.status });
      await sleep(25);
    } while (Date.now() - since < REVOCATION_RULE_MS + 500 || !probes.some((p) => p.sentMs >= REVOCATION_RULE_MS));
    const late = probes.filter((p) => p.sentMs >= REVOCATION_RULE_MS);
    expect({ acceptedAfterTheRule: late.filter((p) => p.status !== 401), firstRefusalMs: probes.find((p) => p.status === 401)?.sentMs }).toEqual({
      acceptedAfterTheRule: [],
      firstRefusalMs: expect.any(Number),
    });
    expectTokenRefused(last, message);
  };

  /** The authorize step through one gateway (the 302 read by hand); resolves to the code. */
  const authorize = async (gateway: string, challenge: string) => {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.appId,
      redirect_uri: REDIRECT,
      scope: 'hr:read',
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const res = await rawRequest(`${gateway}/oauth/authorize?${query}`);
    expect(res.status).toBe(302);
    const params = new URL(res.headers.location as string).searchParams;
    expect({ state: params.get('state'), iss: params.get('iss'), code: params.get('code') }).toEqual({ state: 'st', iss: PUBLIC, code: expect.any(String) });
    return params.get('code')!;
  };
  /** Authorize through A; `redeem` sends the code with its verifier through any gateway. */
  const authorizeThroughA = async () => {
    const verifier = randomBytes(32).toString('base64url');
    const code = await authorize(A, s256(verifier));
    return (gateway: string) => token(gateway, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
  };
  /** Authorize through A, redeem through B. */
  const codeFlow = async () => {
    const redeem = await authorizeThroughA();
    const res = await redeem(B);
    expect(res.status).toBe(200);
    return { tokens: res.json() as { access_token: string; refresh_token: string; scope: string }, redeem };
  };

  /** Calls one process has answered for one RPC, from its /metrics (sandbox_grpc_server_calls_total, docs/metrics.md). */
  const served = async (system: RunningSystem, service: 'identity' | 'oauth', method: string) => {
    const text = (await rawRequest(system.metricsUrls![service])).body;
    return text
      .split('\n')
      .filter((line) => line.startsWith('sandbox_grpc_server_calls_total{') && line.includes(`method="${method}"`))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  };

  beforeAll(async () => {
    const { redisUrl } = requireStoreUrls();
    // startSystem makes fresh keys per system; here both get the same stores and keys, as replicas do.
    const shared: NodeJS.ProcessEnv = {
      MONGO_URL: isolatedMongoUrl('replica_flows'),
      REDIS_URL: redisUrl,
      PUBLIC_BASE_URL: PUBLIC,
      CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      SESSION_SIGNING_KEY: randomBytes(32).toString('base64url'),
      PAGE_TOKEN_KEY: randomBytes(32).toString('base64url'),
      JWT_SIGNING_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    // One after the other: ten processes starting at once on a busy 2-core machine only risk the start-up timeout.
    one = await startSystem(shared, { metrics: true, timeoutMs: 90_000 });
    two = await startSystem(shared, { metrics: true, timeoutMs: 90_000 });
    [A, B] = [one.baseUrl, two.baseUrl];
    session = await registerUser(A);
    app = await createApp(B, session, { scopes: ['hr:read'] });
    expect((await apiRequest(A, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token: session, body: { redirectUris: [REDIRECT] } })).status).toBe(200);
  }, 240_000);
  afterAll(async () => Promise.all([one?.stop(), two?.stop()]));

  it('the two systems share stores and keys, and each gateway reaches only its own services', async () => {
    // Each system's processes trust their own launcher's CA only (GRPC_TLS_RUN_DIR): a gateway cannot even talk to the other's services.
    const apart = (name: string) => name === 'PORT' || name === 'RESPONSE_RECORD_FILE' || name === 'GRPC_TLS_RUN_DIR' || /_GRPC_PORT$|METRICS_PORT$/.test(name);
    const names = [...new Set([...Object.keys(one.env), ...Object.keys(two.env)])];
    expect(names.filter((name) => !apart(name) && one.env[name] !== two.env[name])).toEqual([]);
    expect(names.filter(apart).filter((name) => one.env[name] === two.env[name])).toEqual([]);
    // No address lists: each caller finds a service at 127.0.0.1:<its system's port>.
    expect(names.filter((name) => name.endsWith('_GRPC_ADDR'))).toEqual([]);
    expect(Object.values(one.pids).filter((pid) => Object.values(two.pids).includes(pid))).toEqual([]);

    // And in fact: what comes through A is served by A's processes only, and through B by B's.
    const before = await Promise.all([
      served(one, 'identity', 'Register'),
      served(two, 'identity', 'Register'),
      served(one, 'oauth', 'Token'),
      served(two, 'oauth', 'Token'),
    ]);
    const user = await registerUser(A);
    expect((await token(B, { grant_type: 'client_credentials' })).status).toBe(200);
    const after = await Promise.all([
      served(one, 'identity', 'Register'),
      served(two, 'identity', 'Register'),
      served(one, 'oauth', 'Token'),
      served(two, 'oauth', 'Token'),
    ]);
    expect(after.map((n, i) => n - before[i])).toEqual([1, 0, 0, 1]);
    // A session made on identity#1 is good on identity#2 (MongoDB, SESSION_SIGNING_KEY).
    expect((await apiRequest(B, 'GET', '/api/apps', { token: user })).status).toBe(200);
  });

  describe('OAuth 2.0', () => {
    it('a code made through A is redeemed through B; presented again through A it is invalid_grant, and the tokens of the first redemption are revoked on every replica', async () => {
      const counts = () =>
        Promise.all([served(one, 'oauth', 'Authorize'), served(two, 'oauth', 'Authorize'), served(one, 'oauth', 'Token'), served(two, 'oauth', 'Token')]);
      const before = await counts();
      const { tokens, redeem } = await codeFlow();
      // Authorize answered by oauth#1, the redemption by oauth#2.
      expect((await counts()).map((n, i) => n - before[i])).toEqual([1, 0, 0, 1]);
      expect(tokens.scope).toBe('hr:read');
      expect((await atResource(A, tokens.access_token)).status).toBe(200);

      const replay = await redeem(A);
      const replayedAt = Date.now();
      expectOAuthError(replay, 400, 'invalid_grant', /already redeemed.*tokens issued for it are now revoked/);
      // RFC 6819 4.4.1.1 (docs/oauth.md, invalid_grant): the grant of the first redemption ends, its refresh token and access token alike.
      expectOAuthError(await token(B, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }), 400, 'invalid_grant', /grant was revoked/);
      await expectRefusedWithinTheRule(A, tokens.access_token, replayedAt, /grant was revoked/);
      expect((await introspect(B, tokens.access_token)).json()).toEqual({ active: false });
      expect((await introspect(B, tokens.refresh_token)).json()).toEqual({ active: false });
    });

    it('one code redeemed through A and through B at once: exactly one gets tokens, and the other, a replay, ends them', async () => {
      const redeem = await authorizeThroughA();
      const both = await Promise.all([redeem(A), redeem(B)]);
      expect(both.map((res) => res.status).sort()).toEqual([200, 400]);
      const won = both.find((res) => res.status === 200)!.json();
      expectOAuthError(
        both.find((res) => res.status === 400)!,
        400,
        'invalid_grant',
        /already redeemed/,
      );
      expect((await introspect(A, won.refresh_token)).json()).toEqual({ active: false });
      expect((await introspect(B, won.access_token)).json()).toEqual({ active: false });
    });

    it('a refresh through B rotates the token; the old one presented through A is invalid_grant and ends the family, the new one from B included', async () => {
      const { tokens } = await codeFlow();
      const rotated = await token(B, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      expect(rotated.status).toBe(200);
      const next = rotated.json();
      expect(next.refresh_token).not.toBe(tokens.refresh_token);
      // Both gateways now remember the new access token as valid (at most 500 ms).
      expect([(await atResource(A, next.access_token)).status, (await atResource(B, next.access_token)).status]).toEqual([200, 200]);

      const reuse = await token(A, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      const reusedAt = Date.now();
      expectOAuthError(reuse, 400, 'invalid_grant', /already used.*whole grant is now revoked/);
      expectOAuthError(await token(B, { grant_type: 'refresh_token', refresh_token: next.refresh_token }), 400, 'invalid_grant', /grant was revoked/);
      await expectRefusedWithinTheRule(B, next.access_token, reusedAt, /grant was revoked/);
      expect((await introspect(A, next.access_token)).json()).toEqual({ active: false });
    });

    it('an access token revoked through A is refused through B within a second, though B had just accepted it', async () => {
      const issued = await token(A, { grant_type: 'client_credentials', scope: 'hr:read' });
      const access = issued.json().access_token as string;
      // B now remembers "valid" for up to 500 ms: the slowest case for the revocation to reach it.
      expect((await atResource(B, access)).status).toBe(200);
      const revoke = await post(A, '/oauth/revoke', { token: access }, { Authorization: basic() });
      const revokedAt = Date.now();
      expect(revoke.status).toBe(200);
      await expectRefusedWithinTheRule(B, access, revokedAt, /access token was revoked/);
      expect((await introspect(B, access)).json()).toEqual({ active: false });
    });
  });

  describe('OAuth 1.0a', () => {
    /** What a client of the public address signs (the oauth-1.0a library, not our code), once: one nonce, sendable through either gateway. */
    const signed = (method: 'GET' | 'POST', path: string, data: Record<string, string> = {}, token?: OAuth.Token) => {
      const signer = new OAuth({
        consumer: { key: app.appId, secret: app.apiKey },
        signature_method: 'HMAC-SHA1',
        hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
      });
      const authorization = signer.toHeader(signer.authorize({ url: `${PUBLIC}${path}`, method, data }, token)).Authorization;
      return (gateway: string) => rawRequest(`${gateway}${path}`, { method, headers: { Authorization: authorization } });
    };
    /** docs/oauth.md: the oauth_problem as the error's code, the rule in its message, and a 401 says it in WWW-Authenticate. */
    const expectProblem = (res: RawResponse, problem: string, message: RegExp) => {
      expect({ status: res.status, code: res.json().error.code, challenge: res.headers['www-authenticate'] }).toEqual({
        status: 401,
        code: problem,
        challenge: `OAuth realm="training-sandbox", oauth_problem="${problem}"`,
      });
      expect(res.json().error.message).toMatch(message);
    };
    const verifierThrough = async (gateway: string, temporary: string) => {
      const res = await rawRequest(`${gateway}/oauth1/authorize?oauth_token=${encodeURIComponent(temporary)}`);
      expect(res.status).toBe(200);
      return res.json().oauth_verifier as string;
    };

    it('request token through A, verifier through B, access token through A; the temporary token is not exchanged again through B, and a used nonce is refused through the other gateway', async () => {
      const leg1 = signed('POST', '/oauth1/request_token', { oauth_callback: 'oob' });
      const first = await leg1(A);
      expect(first.status).toBe(200);
      expectProblem(await leg1(B), 'nonce_used', /nonce/);
      const temporary = { key: first.json().oauth_token, secret: first.json().oauth_token_secret };
      const verifier = await verifierThrough(B, temporary.key);
      // Derived with the shared key, nothing stored: leg 2 again, elsewhere, answers the same.
      expect(await verifierThrough(A, temporary.key)).toBe(verifier);

      const leg3 = await signed('POST', '/oauth1/access_token', { oauth_verifier: verifier }, temporary)(A);
      expect(leg3.status).toBe(200);
      // A new signature (a new nonce), so the refusal is the token's own rule.
      expectProblem(await signed('POST', '/oauth1/access_token', { oauth_verifier: verifier }, temporary)(B), 'token_used', /already exchanged/);

      const access = { key: leg3.json().oauth_token, secret: leg3.json().oauth_token_secret };
      const call = signed('GET', '/playground/auth/oauth1', {}, access);
      expect((await call(A)).json()).toMatchObject({ authenticated: true, style: 'oauth1', app: { appId: app.appId } });
      expectProblem(await call(B), 'nonce_used', /nonce/);
      // The access token oauth#1 made is good at oauth#2, signed anew.
      expect((await signed('GET', '/playground/auth/oauth1', {}, access)(B)).status).toBe(200);
    });

    it('one temporary token exchanged through A and through B at once: exactly one gets an access token', async () => {
      const first = await signed('POST', '/oauth1/request_token', { oauth_callback: 'oob' })(B);
      const temporary = { key: first.json().oauth_token, secret: first.json().oauth_token_secret };
      const verifier = await verifierThrough(A, temporary.key);
      const both = await Promise.all([A, B].map((gateway) => signed('POST', '/oauth1/access_token', { oauth_verifier: verifier }, temporary)(gateway)));
      expect(both.map((res) => res.status).sort()).toEqual([200, 401]);
      // Which words depends on which request read the token first; the rule, and its problem, are the same.
      expectProblem(
        both.find((res) => res.status === 401)!,
        'token_used',
        /a temporary token works once/,
      );
    });
  });

  describe('the auth playground', () => {
    const hmacThrough = (gateway: string, timestamp: number) =>
      rawRequest(`${gateway}/playground/auth/hmac`, {
        headers: {
          'x-app-id': app.appId,
          'x-timestamp': String(timestamp),
          'x-signature': createHmac('sha256', app.apiKey).update(`${timestamp}.GET./playground/auth/hmac`).digest('hex'),
        },
      });

    // replicas.test.ts checks the replay with REPLICAS=2, where round robin may keep both uses on one oauth replica; here they cannot be.
    it('HMAC: a signature accepted through A is a replay through B; sent through both at once, it is accepted once', async () => {
      const now = Math.floor(Date.now() / 1000);
      expect((await hmacThrough(A, now - 3)).json()).toMatchObject({ authenticated: true, style: 'hmac' });
      expectRefused(await hmacThrough(B, now - 3), /^HMAC /, /^Replayed: this exact signature .* was already used/);
      const both = await Promise.all([hmacThrough(A, now - 4), hmacThrough(B, now - 4)]);
      expect(both.map((res) => res.status).sort()).toEqual([200, 401]);
      expectRefused(
        both.find((res) => res.status === 401)!,
        /^HMAC /,
        /^Replayed/,
      );
    });

    it('Digest: a nonce from A answered through B with nc 1 is accepted; nc 1 again through A is refused; nc 2 through B is accepted', async () => {
      const uri = '/playground/auth/digest';
      const challenge = await rawRequest(`${A}${uri}`);
      expect(challenge.status).toBe(401);
      const offered = String(challenge.headers['www-authenticate']);
      const [nonce, opaque] = [/nonce="([^"]+)"/.exec(offered)![1], /opaque="([^"]+)"/.exec(offered)![1]];
      const cnonce = randomBytes(8).toString('hex');
      // RFC 7616 3.4.1 (SHA-256, qop=auth), computed as a client does: no client library lets a test choose nc and the replica.
      const answer = (nc: string) => {
        const response = sha256Hex(`${sha256Hex(`${app.appId}:${REALM}:${app.apiKey}`)}:${nonce}:${nc}:${cnonce}:auth:${sha256Hex(`GET:${uri}`)}`);
        return `Digest username="${app.appId}", realm="${REALM}", nonce="${nonce}", uri="${uri}", algorithm=SHA-256, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}", opaque="${opaque}"`;
      };
      const through = (gateway: string, nc: string) => rawRequest(`${gateway}${uri}`, { headers: { Authorization: answer(nc) } });

      expect((await through(B, '00000001')).json()).toMatchObject({ authenticated: true, style: 'digest' });
      expectRefused(await through(A, '00000001'), /^Digest realm="training-sandbox"/, /nc 00000001 does not increase/);
      expect((await through(B, '00000002')).status).toBe(200);
      expectRefused(await through(A, '00000002'), /^Digest realm="training-sandbox"/, /nc 00000002 does not increase/);
      expect((await through(A, '00000003')).status).toBe(200);
    });
  });

  it('JWKS and metadata are the same through A and B, and tokens made through A verify with the keys fetched through B (jose)', async () => {
    const [jwksA, jwksB] = await Promise.all([A, B].map((gateway) => rawRequest(`${gateway}/.well-known/jwks.json`)));
    expect(jwksA.status).toBe(200);
    expect(jwksB.json()).toEqual(jwksA.json());
    const [metaA, metaB] = await Promise.all([A, B].map((gateway) => rawRequest(`${gateway}/.well-known/oauth-authorization-server`)));
    expect(metaA.json()).toMatchObject({ issuer: PUBLIC, jwks_uri: `${PUBLIC}/.well-known/jwks.json` });
    expect(metaB.json()).toEqual(metaA.json());

    const keys = createLocalJWKSet(jwksB.json());
    const access = (await token(A, { grant_type: 'client_credentials' })).json().access_token;
    const { payload } = await jwtVerify(access, keys, { algorithms: ['ES256'], typ: 'at+jwt', issuer: PUBLIC, audience: `${PUBLIC}/playground` });
    expect(payload).toMatchObject({ client_id: app.appId, sub: app.appId });

    const issued = await rawRequest(`${A}/playground/auth/jwt/issue`, { method: 'POST', headers: { Authorization: basic() } });
    expect(issued.status).toBe(200);
    const { rs256, hs256 } = issued.json();
    expect((await jwtVerify(rs256, keys, { algorithms: ['RS256'], audience: 'urn:training-sandbox:playground' })).payload.sub).toBe(app.appId);
    for (const jwt of [rs256, hs256]) {
      expect((await rawRequest(`${B}/playground/auth/jwt`, { headers: { Authorization: `Bearer ${jwt}` } })).json()).toMatchObject({
        authenticated: true,
        style: 'jwt',
      });
    }
  });

  it('page tokens: a data page token from A continues through B, and a request-log page token from A through B', async () => {
    const paged = await createApp(A, session, { scopes: ['hr:read'] });
    const headers = { 'x-api-key': paged.apiKey };
    const first = await rawRequest(`${A}/playground/data/hr/employees?paginate=token&page_size=5`, { headers });
    expect(first.status).toBe(200);
    const next = `/playground/data/hr/employees?paginate=token&page_size=5&pageToken=${encodeURIComponent(first.json().nextPageToken)}`;
    const [viaB, viaA] = [await rawRequest(`${B}${next}`, { headers }), await rawRequest(`${A}${next}`, { headers })];
    expect([viaB.status, viaA.status]).toEqual([200, 200]);
    expect(viaB.json().data).toEqual(viaA.json().data);
    expect(viaB.json().data).not.toEqual(first.json().data);

    // Those three requests are the app's whole log (each gateway sends its entries within a second).
    const logs = (gateway: string, query: string) => apiRequest(gateway, 'GET', `/api/apps/${paged.id}/logs${query}`, { token: session });
    await eventually(
      async () => (await logs(A, '')).json().total as number,
      (total) => total >= 3,
      15_000,
    );
    const newest = await logs(A, '?page_size=1');
    expect(newest.json()).toMatchObject({ total: 3, nextPageToken: expect.any(String) });
    const older = await logs(B, `?page_size=1&pageToken=${encodeURIComponent(newest.json().nextPageToken)}`);
    expect(older.status).toBe(200);
    expect(older.json().entries).toHaveLength(1);
    expect(older.json().entries[0]).not.toEqual(newest.json().entries[0]);
  });
});

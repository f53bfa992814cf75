import * as oauth from 'oauth4webapi';
import { apiRequest, createApp, registerUser, requireStoreUrls, runPythonScript, startSystem, type CreatedApp, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(120_000);

const REDIRECT = 'http://127.0.0.1:9/callback';
/** The sandbox runs on http://127.0.0.1 in tests; oauth4webapi refuses plain HTTP unless told. */
const INSECURE = { [oauth.allowInsecureRequests]: true };

/**
 * Clients nobody here wrote, pointed at the sandbox as a learner would point
 * them: oauth4webapi (the library under openid-client) and Python's
 * requests-oauthlib. Each has its own idea of RFC 6749, 7636, 7662, 8414,
 * 9207 and RFC 5849; the sandbox must satisfy all of them.
 */
describe('OAuth with third-party clients', () => {
  let system: RunningSystem;
  let app: CreatedApp;

  beforeAll(async () => {
    system = await startSystem({ REDIS_URL: requireStoreUrls().redisUrl });
    const session = await registerUser(system.baseUrl);
    app = await createApp(system.baseUrl, session, { scopes: ['hr:read', 'stocks:read'] });
    expect((await apiRequest(system.baseUrl, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token: session, body: { redirectUris: [REDIRECT] } })).status).toBe(
      200,
    );
  });
  afterAll(async () => system?.stop());

  describe('oauth4webapi', () => {
    let as: oauth.AuthorizationServer;
    let client: oauth.Client;
    let clientAuth: oauth.ClientAuth;

    beforeAll(async () => {
      const issuer = new URL(system.baseUrl);
      as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE }));
      client = { client_id: app.appId };
      // ClientSecretBasic form-urlencodes the id and secret first (RFC 6749 2.3.1).
      clientAuth = oauth.ClientSecretBasic(app.appSecret);
    });

    it('discovers the server through RFC 8414 metadata', () => {
      expect(as.issuer).toBe(system.baseUrl);
      expect(as.code_challenge_methods_supported).toContain('S256');
    });

    it('client credentials', async () => {
      const response = await oauth.clientCredentialsGrantRequest(as, client, clientAuth, new URLSearchParams({ scope: 'hr:read' }), INSECURE);
      const result = await oauth.processClientCredentialsResponse(as, client, response);
      expect(result).toMatchObject({ token_type: 'bearer', scope: 'hr:read' });
      expect(result.refresh_token).toBeUndefined();
      // As a resource server would: RFC 9068 checks and the signature against the jwks_uri of the metadata, the key picked by kid.
      const request = new Request(`${system.baseUrl}/playground/auth/oauth2`, { headers: { Authorization: `Bearer ${result.access_token}` } });
      const claims = await oauth.validateJwtAccessToken(as, request, `${system.baseUrl}/playground`, { ...INSECURE, signingAlgorithms: ['ES256'] });
      expect(claims).toMatchObject({ iss: system.baseUrl, sub: app.appId, client_id: app.appId, scope: 'hr:read' });
    });

    it('authorization code with PKCE (the 302 followed by hand, iss checked), refresh, then introspection', async () => {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint!);
      for (const [name, value] of Object.entries({
        response_type: 'code',
        client_id: app.appId,
        redirect_uri: REDIRECT,
        scope: 'hr:read',
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }))
        url.searchParams.set(name, value);
      const redirect = await fetch(url, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
      const params = oauth.validateAuthResponse(as, client, new URL(redirect.headers.get('location')!), state);

      const codeResponse = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT, verifier, INSECURE);
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, codeResponse);
      expect(tokens.refresh_token).toEqual(expect.any(String));

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, INSECURE),
      );
      expect(refreshed.access_token).not.toBe(tokens.access_token);

      const introspection = await oauth.processIntrospectionResponse(
        as,
        client,
        await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, INSECURE),
      );
      expect(introspection).toMatchObject({ active: true, client_id: app.appId, scope: 'hr:read' });

      await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, refreshed.access_token, INSECURE));
      const after = await oauth.processIntrospectionResponse(
        as,
        client,
        await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, INSECURE),
      );
      expect(after.active).toBe(false);
    });
  });

  it('Python requests-oauthlib: OAuth 1.0a three legs with HMAC-SHA1 and a protected call; OAuth 2.0 client credentials (the ES256 token verified by PyJWT against the JWKS), code + PKCE and refresh', async () => {
    const result = await runPythonScript<Record<string, Record<string, unknown>>>('oauth_flows.py', [
      system.baseUrl,
      app.appId,
      app.appSecret,
      app.apiKey,
      REDIRECT,
    ]);
    expect(result.oauth1).toMatchObject({
      callback_confirmed: 'true',
      protected_status: 200,
      protected_body: { authenticated: true, style: 'oauth1', app: { appId: app.appId } },
      replayed_status: 401,
      replayed_body: { error: { code: 'nonce_used' } },
    });
    expect(result.client_credentials).toMatchObject({
      scope: ['hr:read'],
      data_status: 200,
      rows: 2,
      // PyJWT verified the access token (ES256, the default) with the JWKS key its kid names.
      verified: { alg: 'ES256', kid: expect.any(String), sub: app.appId, client_id: app.appId },
    });
    expect(result.client_credentials.token_fields).not.toContain('refresh_token');
    expect(result.authorization_code).toMatchObject({ redirect_status: 302, state_round_trip: true, access_token_changed: true, data_status: 200 });
    expect(result.authorization_code.token_fields).toContain('refresh_token');
  });
});

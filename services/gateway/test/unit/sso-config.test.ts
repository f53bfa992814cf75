import { randomBytes } from 'node:crypto';
import { loadGatewayConfig } from '../../src/config';

// Mutual TLS between services is on by default and needs a directory; what is checked here is elsewhere.
const TLS = { GRPC_TLS_DIR: '/run/sandbox-tls' };

/*
 * Single sign-on's configuration rules (sso/sso-config.ts): each mistake
 * stops the gateway with one line that names the variable.
 */
const ISSUER = 'https://login.campus.example';
const KEY = randomBytes(32).toString('base64url');
const refusal = (env: NodeJS.ProcessEnv) => {
  try {
    loadGatewayConfig({ ...TLS, ...env });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
};

describe('the single sign-on configuration', () => {
  it('when SSO_CLIENT_ID is unset, then single sign-on is off, whatever the issuer', () => {
    expect(loadGatewayConfig({ ...TLS }).sso).toBeUndefined();
    expect(loadGatewayConfig({ ...TLS, EXTERNAL_IDP_ISSUER: ISSUER }).sso).toBeUndefined();
  });

  it('when only the client id is set, then a public client with the default scopes, named after the issuer host, its cookie key made up for this process', () => {
    const sso = loadGatewayConfig({ ...TLS, EXTERNAL_IDP_ISSUER: ISSUER, SSO_CLIENT_ID: 'training-sandbox' }).sso!;
    expect(sso).toEqual({
      issuer: ISSUER,
      clientId: 'training-sandbox',
      clientSecret: undefined,
      providerName: 'login.campus.example',
      scopes: 'openid email profile',
      cookieKey: expect.any(Uint8Array),
      cookieKeyIsRandom: true,
      insecureIssuer: false,
    });
    expect(sso.cookieKey.byteLength).toBe(32);
  });

  it('when everything is set, then the secret, the name, the scopes (spaces tidied) and a key derived from SSO_COOKIE_KEY the same in every replica', () => {
    const env = {
      EXTERNAL_IDP_ISSUER: ISSUER,
      SSO_CLIENT_ID: 'training-sandbox',
      SSO_CLIENT_SECRET: 's3cret',
      SSO_PROVIDER_NAME: 'Campus login',
      SSO_SCOPES: ' openid  email groups ',
      SSO_COOKIE_KEY: KEY,
      GATEWAY_REPLICAS: '3',
    };
    const [one, two] = [loadGatewayConfig({ ...TLS, ...env }).sso!, loadGatewayConfig({ ...TLS, ...env }).sso!];
    expect(one).toMatchObject({ clientSecret: 's3cret', providerName: 'Campus login', scopes: 'openid email groups', cookieKeyIsRandom: false });
    expect(Buffer.from(one.cookieKey).equals(Buffer.from(two.cookieKey))).toBe(true);
    // Derived for this purpose, not the key as given.
    expect(Buffer.from(one.cookieKey).equals(Buffer.from(KEY, 'base64url'))).toBe(false);
  });

  it.each([
    ['SSO_CLIENT_ID without an issuer', { SSO_CLIENT_ID: 'x' }, /^invalid configuration: EXTERNAL_IDP_ISSUER: is required with SSO_CLIENT_ID/],
    [
      'an http issuer on the network',
      { SSO_CLIENT_ID: 'x', EXTERNAL_IDP_ISSUER: 'http://login.campus.example' },
      /^invalid configuration: EXTERNAL_IDP_ISSUER: must be an https URL for single sign-on \(http only on a loopback host/,
    ],
    [
      'an issuer with a query',
      { SSO_CLIENT_ID: 'x', EXTERNAL_IDP_ISSUER: `${ISSUER}/?tenant=a` },
      /EXTERNAL_IDP_ISSUER: must be an issuer identifier: no query/,
    ],
    ['scopes without openid', { SSO_CLIENT_ID: 'x', EXTERNAL_IDP_ISSUER: ISSUER, SSO_SCOPES: 'email profile' }, /SSO_SCOPES: must include openid/],
    [
      'a scope with a quote',
      { SSO_CLIENT_ID: 'x', EXTERNAL_IDP_ISSUER: ISSUER, SSO_SCOPES: 'openid "email"' },
      /SSO_SCOPES: must be scope names separated by spaces/,
    ],
    ['a client id with a space', { SSO_CLIENT_ID: 'my client', EXTERNAL_IDP_ISSUER: ISSUER }, /SSO_CLIENT_ID: must be 1 to 255 printable ASCII characters/],
    ['a short cookie key', { SSO_CLIENT_ID: 'x', EXTERNAL_IDP_ISSUER: ISSUER, SSO_COOKIE_KEY: 'c2hvcnQ' }, /SSO_COOKIE_KEY: must be at least 32 bytes/],
    [
      'a secret without the client id',
      { SSO_CLIENT_SECRET: 's', EXTERNAL_IDP_ISSUER: ISSUER },
      /^invalid configuration: SSO_CLIENT_ID: is required with SSO_CLIENT_SECRET: it turns single sign-on on/,
    ],
    [
      "identity's audience another than the client id",
      { SSO_CLIENT_ID: 'x', EXTERNAL_IDP_ISSUER: ISSUER, EXTERNAL_IDP_AUDIENCE: 'y' },
      /EXTERNAL_IDP_AUDIENCE: must equal SSO_CLIENT_ID \(x\)/,
    ],
    [
      'several gateways without a shared cookie key',
      { SSO_CLIENT_ID: 'x', EXTERNAL_IDP_ISSUER: ISSUER, GATEWAY_REPLICAS: '2' },
      /^invalid configuration: SSO_COOKIE_KEY: is required with 2 gateway replicas \(GATEWAY_REPLICAS=2\): without it each gateway replica seals the single sign-on cookies with a key of its own/,
    ],
  ])('when %s, then the gateway refuses to start, naming the variable', (_what, env, message) => {
    expect(refusal(env)).toMatch(message);
  });

  it('when the issuer is http on loopback (a provider on this machine), then it is accepted and requests to it may be plain http', () => {
    for (const issuer of ['http://127.0.0.1:9000', 'http://localhost:9000', 'http://[::1]:9000']) {
      expect(loadGatewayConfig({ ...TLS, SSO_CLIENT_ID: 'x', EXTERNAL_IDP_ISSUER: issuer }).sso?.insecureIssuer).toBe(true);
    }
  });

  it('when several gateways run without single sign-on, then no cookie key is needed', () => {
    expect(() => loadGatewayConfig({ ...TLS, GATEWAY_REPLICAS: '2', REPLICAS: '2' })).not.toThrow();
  });
});

import { ConfigError } from '@sandbox/runtime';
import { loadIdentityConfig } from '../../src/config';

// Mutual TLS between services is on by default and needs a directory; what is checked here is elsewhere.
const TLS = { GRPC_TLS_DIR: '/run/sandbox-tls' };

const KEY = Buffer.alloc(32, 7).toString('base64url');
const HEX_KEY = Buffer.alloc(32, 9).toString('hex');

function configError(env: NodeJS.ProcessEnv): string {
  try {
    loadIdentityConfig({ ...TLS, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a configuration error');
}

describe('identity configuration', () => {
  it('when nothing is set, then it is the embedded default: memory stores, no keys, port 50051', () => {
    const config = loadIdentityConfig({ ...TLS });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 50051, mongoUrl: undefined, sessionTtlSeconds: 3600, requestLogCapPerApp: 1000 });
    expect(config.credentialEncryptionKey).toBeUndefined();
    expect(config.externalIdp).toBeUndefined();
    expect(config.verificationCacheMs).toBe(500);
    expect(config.redisUrl).toBeUndefined();
  });

  it('when SIGNUP is set, then the policy follows; domain needs its domains, each checked and lower-cased', () => {
    expect(loadIdentityConfig({ ...TLS }).signUp).toEqual({ mode: 'open', localSignIn: true });
    expect(loadIdentityConfig({ ...TLS, SIGNUP: 'closed', LOCAL_SIGN_IN: 'false' }).signUp).toEqual({ mode: 'closed', localSignIn: false });
    expect(loadIdentityConfig({ ...TLS, SIGNUP: 'domain', SIGNUP_DOMAINS: ' Example.EDU, example.org ' }).signUp).toEqual({
      mode: 'domain',
      domains: ['example.edu', 'example.org'],
      localSignIn: true,
    });
    expect(configError({ SIGNUP: 'domain' })).toMatch(/^invalid configuration: SIGNUP_DOMAINS: is required with SIGNUP=domain/);
    expect(configError({ SIGNUP: 'domain', SIGNUP_DOMAINS: '@example.edu' })).toMatch(/SIGNUP_DOMAINS: must be email domains/);
    expect(configError({ SIGNUP: 'invite' })).toMatch(/SIGNUP: must be open, domain or closed/);
  });

  it('when operators are named, then emails are kept canonical (any case matches), groups as given, and the claim defaults to groups', () => {
    expect(loadIdentityConfig({ ...TLS }).operators).toEqual({ emails: new Set(), groups: new Set(), groupsClaim: 'groups' });
    const config = loadIdentityConfig({
      ...TLS,
      OPERATOR_EMAILS: ' Ops@Example.ORG ,lead@example.org,',
      OPERATOR_GROUPS: 'sandbox-operators, Platform Team ',
      OPERATOR_GROUPS_CLAIM: 'roles',
    });
    expect(config.operators).toEqual({
      emails: new Set(['ops@example.org', 'lead@example.org']),
      groups: new Set(['sandbox-operators', 'Platform Team']),
      groupsClaim: 'roles',
    });
    expect(configError({ OPERATOR_EMAILS: 'ops@example.org,not an email' })).toMatch(/OPERATOR_EMAILS: must be email addresses separated by commas/);
    expect(configError({ OPERATOR_GROUPS_CLAIM: '' })).toMatch(/OPERATOR_GROUPS_CLAIM/);
  });

  it('when REDIS_URL is set, then sign-in counts go to that Redis; an empty value is unset, another scheme refused', () => {
    expect(loadIdentityConfig({ ...TLS, REDIS_URL: 'redis://cache:6379' }).redisUrl).toBe('redis://cache:6379');
    expect(loadIdentityConfig({ ...TLS, REDIS_URL: 'rediss://cache:6380' }).redisUrl).toBe('rediss://cache:6380');
    expect(loadIdentityConfig({ ...TLS, REDIS_URL: '' }).redisUrl).toBeUndefined();
    expect(configError({ REDIS_URL: 'http://cache' })).toMatch(/REDIS_URL: must be a redis or rediss URL/);
  });

  it('when MONGO_URL is set without keys, then start-up fails naming the missing key', () => {
    expect(configError({ MONGO_URL: 'mongodb://db/x' })).toMatch(/CREDENTIAL_ENCRYPTION_KEY: is required when MONGO_URL is set/);
    expect(configError({ MONGO_URL: 'mongodb://db/x', CREDENTIAL_ENCRYPTION_KEY: KEY })).toMatch(/SESSION_SIGNING_KEY: is required/);
  });

  it('when MONGO_URL and both keys are set, then the keys are decoded from base64url or hex', () => {
    const config = loadIdentityConfig({ ...TLS, MONGO_URL: 'mongodb://db/x', CREDENTIAL_ENCRYPTION_KEY: KEY, SESSION_SIGNING_KEY: HEX_KEY });
    expect(config.credentialEncryptionKey).toEqual(Buffer.alloc(32, 7));
    expect(config.sessionSigningKey).toEqual(Buffer.alloc(32, 9));
  });

  it('when a key is shorter than 32 bytes, then start-up fails naming it', () => {
    expect(configError({ SESSION_SIGNING_KEY: 'c2hvcnQ' })).toMatch(/SESSION_SIGNING_KEY: must be at least 32 bytes/);
  });

  it('when only part of the external identity provider is configured, then start-up fails naming what is missing', () => {
    expect(configError({ EXTERNAL_IDP_ISSUER: 'https://idp.example' })).toMatch(/EXTERNAL_IDP_JWKS_URL: is required together/);
    const config = loadIdentityConfig({
      ...TLS,
      EXTERNAL_IDP_ISSUER: 'https://idp.example',
      EXTERNAL_IDP_JWKS_URL: 'https://idp.example/jwks',
      EXTERNAL_IDP_AUDIENCE: 'sandbox-portal',
    });
    expect(config.externalIdp).toEqual({ issuer: 'https://idp.example', jwksUrl: 'https://idp.example/jwks', audience: 'sandbox-portal' });
  });

  it('refuses a verification cache above 500 ms, which would break the one-second promise', () => {
    expect(configError({ VERIFICATION_CACHE_MS: '1000' })).toMatch(/VERIFICATION_CACHE_MS/);
  });

  it('refuses a MONGO_URL that is not a mongodb URL', () => {
    expect(configError({ MONGO_URL: 'postgres://db' })).toMatch(/MONGO_URL: must be a mongodb or mongodb\+srv URL/);
  });
});

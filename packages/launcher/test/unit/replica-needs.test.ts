import { planReplicas, ReplicaError } from '../../src/replicas';
import { loadDataConfig } from '../../../../services/data/src/config';
import { loadIdentityConfig } from '../../../../services/identity/src/config';
import { loadOAuthConfig } from '../../../../services/oauth/src/config';
import { loadGatewayConfig } from '../../../../services/gateway/src/config';

// Mutual TLS between services is on by default and needs a directory; what is checked here is elsewhere.
const TLS = { GRPC_TLS_DIR: '/run/sandbox-tls' };

/*
 * The rules of REPLICA_NEEDS (packages/runtime), as the launcher and each
 * service apply them. A service in memory mode, or with a key of its own, refuses to start as one
 * of several replicas, whoever started it (the launcher or a chart), with one
 * line naming the variable to set.
 */
describe('a service told it has replicas', () => {
  const key = 'k'.repeat(43);

  it('when oauth has no Redis and no signing key, then it refuses, naming REDIS_URL first and the count variable', () => {
    expect(() => loadOAuthConfig({ ...TLS, REPLICAS: '2' })).toThrow(
      /^invalid configuration: REDIS_URL: is required with 2 oauth replicas \(REPLICAS=2\): without it each oauth replica keeps its own codes, tokens, nonces and replay memories in memory \(it is not set\)$/,
    );
    expect(() => loadOAuthConfig({ ...TLS, OAUTH_REPLICAS: '3', REPLICAS: '1', REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(
      /JWT_SIGNING_KEY: is required with 3 oauth replicas \(OAUTH_REPLICAS=3\)/,
    );
  });

  it('when data has no page-token key, then it refuses; with one, it starts', () => {
    expect(() => loadDataConfig({ ...TLS, DATA_REPLICAS: '2' })).toThrow(
      /PAGE_TOKEN_KEY: is required with 2 data replicas \(DATA_REPLICAS=2\): without it each data replica seals page tokens with a key of its own/,
    );
    expect(loadDataConfig({ ...TLS, DATA_REPLICAS: '2', PAGE_TOKEN_KEY: key }).pageTokenKey).toBeDefined();
  });

  it('when identity has MongoDB but not Redis, then it refuses, naming REDIS_URL', () => {
    expect(() =>
      loadIdentityConfig({ ...TLS, REPLICAS: '2', MONGO_URL: 'mongodb://127.0.0.1/x', CREDENTIAL_ENCRYPTION_KEY: key, SESSION_SIGNING_KEY: key }),
    ).toThrow(/REDIS_URL: is required with 2 identity replicas/);
  });

  it('when one replica is asked for, or the own count overrides REPLICAS down to one, then memory mode is fine', () => {
    expect(() => loadOAuthConfig({ ...TLS })).not.toThrow();
    expect(() => loadOAuthConfig({ ...TLS, REPLICAS: '2', OAUTH_REPLICAS: '1' })).not.toThrow();
    expect(() => loadIdentityConfig({ ...TLS, IDENTITY_REPLICAS: '1' })).not.toThrow();
  });

  it('when the count is not a whole number, then it is refused by name', () => {
    expect(() => loadDataConfig({ ...TLS, DATA_REPLICAS: 'two' })).toThrow(/DATA_REPLICAS: must be a whole number, 1 or more/);
  });
});

describe('the launcher planning replicas', () => {
  const configured = {
    gatewayPort: 0,
    gatewayHost: '127.0.0.1',
    grpcPorts: { identity: 0, oauth: 0, data: 0, playground: 0 },
    grpcHost: () => '127.0.0.1',
  };
  const counts = (n: number) => ({ identity: n, oauth: n, data: n, playground: n, gateway: n });

  it('when a store a service needs is missing, then it refuses before starting anything, in the words the service would use', async () => {
    await expect(planReplicas(counts(2), { REPLICAS: '2' }, configured)).rejects.toThrow(
      new ReplicaError(
        'MONGO_URL is required with 2 identity replicas (REPLICAS=2): without it each identity replica keeps its own accounts, apps, credentials and request logs in memory.',
      ),
    );
    await expect(planReplicas({ ...counts(1), identity: 2 }, { IDENTITY_REPLICAS: '2', MONGO_URL: 'mongodb://x' }, configured)).rejects.toThrow(
      /REDIS_URL is required with 2 identity replicas \(IDENTITY_REPLICAS=2\)/,
    );
  });

  it('when a key replicas must share is missing, then one is made up for the run, shared, and named as made up', async () => {
    const plan = await planReplicas(counts(2), { REPLICAS: '2', MONGO_URL: 'mongodb://x', REDIS_URL: 'redis://x' }, configured);
    expect(plan.madeKeys.sort()).toEqual(['JWT_SIGNING_KEY', 'PAGE_TOKEN_KEY']);
    expect(plan.shared.PAGE_TOKEN_KEY).toMatch(/^[\w-]{43}$/);
    expect(plan.shared.JWT_SIGNING_KEY).toContain('BEGIN PRIVATE KEY');
    // What the launcher hands its processes satisfies every service's own rule.
    for (const load of [loadOAuthConfig, loadDataConfig])
      expect(() => load({ ...TLS, REPLICAS: '2', REDIS_URL: 'redis://127.0.0.1:6379', ...plan.shared })).not.toThrow();
    expect(plan.replicas.map((r) => r.label)).toContain('gateway#2');
  });

  it('when several gateways sign in through a provider without a cookie key, then one is made up for the run; without single sign-on, none is', async () => {
    const sso = { EXTERNAL_IDP_ISSUER: 'https://login.campus.example', SSO_CLIENT_ID: 'training-sandbox' };
    const plan = await planReplicas({ ...counts(1), gateway: 2 }, { GATEWAY_REPLICAS: '2', ...sso }, configured);
    expect(plan.madeKeys).toEqual(['SSO_COOKIE_KEY']);
    expect(plan.shared.SSO_COOKIE_KEY).toMatch(/^[\w-]{43}$/);
    expect(() => loadGatewayConfig({ ...TLS, GATEWAY_REPLICAS: '2', ...sso, ...plan.shared })).not.toThrow();
    expect((await planReplicas({ ...counts(1), gateway: 2 }, { GATEWAY_REPLICAS: '2' }, configured)).madeKeys).toEqual([]);
  });

  it("when single sign-on is on and identity's audience is not set, then identity is given the client id (the ID token's audience)", async () => {
    const plan = await planReplicas(counts(1), { SSO_CLIENT_ID: 'training-sandbox' }, configured);
    expect(plan.shared.EXTERNAL_IDP_AUDIENCE).toBe('training-sandbox');
    expect(plan.notes).toContain("EXTERNAL_IDP_AUDIENCE is not set: identity expects SSO_CLIENT_ID as the audience of the provider's tokens");
    expect(
      (await planReplicas(counts(1), { SSO_CLIENT_ID: 'training-sandbox', EXTERNAL_IDP_AUDIENCE: 'set' }, configured)).shared.EXTERNAL_IDP_AUDIENCE,
    ).toBeUndefined();
  });
});

import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { identity, oauth } from '@sandbox/contracts';
import { type PromiseClient, type RunningGrpcService } from '@sandbox/runtime';
import { clientAsAllowedCallers, requireStoreUrls, testTransport, tlsEnv } from '@sandbox/testing';
import { start as startIdentity } from '../../../identity/src/composition';
import { loadIdentityConfig } from '../../../identity/src/config';
import { start as startOAuth } from '../../src/composition';
import { loadOAuthConfig } from '../../src/config';
import type { Clock } from '../../src/domain/clock';

export type IdentityClient = PromiseClient<identity.IdentityServiceClient>;
export type OAuthClient = PromiseClient<oauth.OAuthServiceClient>;

/** Where the replicas' keys start in Redis: the Redis adapter's default prefix. */
export const REDIS_PREFIX = 'sandbox:oauth:';
/** How the replicas name a secret in a Redis key: its SHA-256, in hex. */
export const sha256hex = (value: string) => createHash('sha256').update(value).digest('hex');

/** Real time plus what the test has moved it on by: the replicas' clock (and a client's), so expiry is tested without sleeping. */
export function movableClock() {
  let offsetMs = 0;
  return {
    clock: (): number => Date.now() + offsetMs,
    letTimePass: (ms: number) => {
      offsetMs += ms;
    },
    resetClock: () => {
      offsetMs = 0;
    },
  };
}

/** The oauth service as its integration tests see it. */
export interface OAuthSystem {
  /** The real identity service, in-process with memory stores: users and apps are made through it. */
  idp: IdentityClient;
  /** One grpc-js client per oauth replica; the replicas share the real Redis, one signing key and the clock. */
  replicas: OAuthClient[];
  /** The replicas' Redis, to read what they keep. */
  redis: Redis;
  /** A user registered for this run, to own the apps the test makes. */
  owner: string;
  /** Closes the clients, then stops the replicas and identity. */
  stop(): Promise<void>;
}

/**
 * Starts identity and `replicas` oauth replicas in-process on port 0, each
 * with `clock`, and registers a user `<label>-<random>@example.com`. What was
 * started is stopped again if a later step fails. The replicas use REDIS_URL
 * unless `redisUrl` names another (a Redis the test stops). `replicaEnv[i]`
 * adds to replica i's environment (replicas configured differently, as
 * during a rolling upgrade).
 */
export async function startOAuthSystem(options: {
  clock: Clock;
  label: string;
  replicas?: number;
  redisUrl?: string;
  replicaEnv?: Array<Record<string, string>>;
}): Promise<OAuthSystem> {
  const services: RunningGrpcService[] = [];
  const clients: Array<{ close(): void }> = [];
  let redis: Redis | undefined;
  const stop = async () => {
    for (const client of clients) client.close();
    for (const service of [...services].reverse()) await service.stop();
    redis?.disconnect();
  };
  try {
    const redisUrl = options.redisUrl ?? requireStoreUrls().redisUrl;
    const identityService = await startIdentity(loadIdentityConfig({ IDENTITY_GRPC_PORT: '0', LOG_LEVEL: 'silent', ...(await tlsEnv('identity')) }));
    services.push(identityService);
    const idp = await clientAsAllowedCallers(
      identity.IdentityServiceClient,
      identity.IdentityServiceService,
      `127.0.0.1:${identityService.port}`,
      'identity',
      10_000,
      { transport: testTransport() },
    );
    clients.push(idp);
    const env = {
      OAUTH_GRPC_PORT: '0',
      REDIS_URL: redisUrl,
      IDENTITY_GRPC_ADDR: `127.0.0.1:${identityService.port}`,
      JWT_SIGNING_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      LOG_LEVEL: 'silent',
      GRPC_TRANSPORT: testTransport(),
      ...(await tlsEnv('oauth')),
    };
    const replicas: OAuthClient[] = [];
    for (let replica = 0; replica < (options.replicas ?? 2); replica++) {
      const service = await startOAuth(loadOAuthConfig({ ...env, ...options.replicaEnv?.[replica] }), { clock: options.clock });
      services.push(service);
      const client = await clientAsAllowedCallers(oauth.OAuthServiceClient, oauth.OAuthServiceService, `127.0.0.1:${service.port}`, 'oauth', 10_000, {
        transport: testTransport(),
      });
      clients.push(client);
      replicas.push(client);
    }
    redis = new Redis(redisUrl);
    const { user } = await idp.register({ email: `${options.label}-${randomBytes(5).toString('hex')}@example.com`, password: 'correct horse battery' });
    return { idp, replicas, redis, owner: user!.id, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

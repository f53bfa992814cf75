import { identity, oauth } from '@sandbox/contracts';
import {
  CHANGE_FEED_REDIS,
  createLogger,
  createMetricsRegistry,
  grpcClientMetrics,
  instrumentStore,
  localChangeFeed,
  promiseClient,
  openRedis,
  redisChangeFeed,
  startGrpcService,
  storeMetrics,
  unaryHandlers,
  type Registry,
  type RunningGrpcService,
} from '@sandbox/runtime';
import type { OAuthConfig } from './config';
import { AppDirectory } from './domain/app-directory';
import { systemClock, type Clock } from './domain/clock';
import type { OAuthDeps } from './domain/deps';
import { loadSigningKey } from './domain/signing-key';
import { adminHandlers } from './grpc/admin-handlers';
import { oauth1Handlers } from './grpc/oauth1-handlers';
import { oauth2Handlers } from './grpc/oauth2-handlers';
import { playgroundAuthHandlers } from './grpc/playground-auth-handlers';
import type { EphemeralStore } from './stores/ephemeral-store';
import { MemoryEphemeralStore } from './stores/memory-ephemeral-store';
import { memoryStoreMetrics } from './stores/memory-store-metrics';
import { RedisEphemeralStore } from './stores/redis-ephemeral-store';

async function openStore(config: OAuthConfig, clock: Clock, registry: Registry): Promise<EphemeralStore> {
  if (!config.redisUrl) {
    const memory = new MemoryEphemeralStore({ now: clock, maxEntries: config.memoryMaxEntries });
    memoryStoreMetrics(registry, memory);
    return memory;
  }
  const store = new RedisEphemeralStore(config.redisUrl);
  await store.connect();
  return store;
}

/** Builds the service from config; a test may pass its own clock (expiry without waiting). */
export async function start(config: OAuthConfig, options: { clock?: Clock } = {}): Promise<RunningGrpcService> {
  const logger = createLogger('oauth', config.logLevel);
  const clock = options.clock ?? systemClock;
  const registry = createMetricsRegistry();
  const store = instrumentStore(await openStore(config, clock, registry), config.redisUrl ? 'redis' : 'memory', storeMetrics(registry), {
    prefix: 'ephemeral.',
  });
  if (!config.signingKeyPem) logger.warn('JWT_SIGNING_KEY is not set: tokens are signed with a per-process key and do not survive a restart');
  const identityClient = promiseClient(
    identity.IdentityServiceClient,
    identity.IdentityServiceService,
    config.identityAddress,
    'identity',
    5000,
    { tls: config.grpcTls },
    {
      metrics: grpcClientMetrics(registry),
      transport: config.grpcTransport,
    },
  );
  // Identity's changes reach this process only through Redis; without it the directory remembers nothing (cacheMs 0).
  const redisUrl = config.redisUrl;
  const changes = redisUrl ? await redisChangeFeed({ open: () => openRedis(redisUrl, CHANGE_FEED_REDIS), publishes: true, logger }) : localChangeFeed();
  const apps = new AppDirectory(identityClient, clock, redisUrl ? 500 : 0);
  changes.subscribe(['apps'], () => apps.forget());
  const deps: OAuthDeps = {
    config,
    logger,
    clock,
    store,
    apps,
    signingKey: await loadSigningKey(config.signingKeyPem, config.accessTokenAlg),
    changes,
  };
  const implementation = unaryHandlers<oauth.OAuthServiceServer>(
    oauth.OAuthServiceService,
    { ...oauth2Handlers(deps), ...oauth1Handlers(deps), ...playgroundAuthHandlers(deps), ...adminHandlers(deps) },
    logger,
  );
  return startGrpcService({
    protoService: 'sandbox.oauth.v1.OAuthService',
    definition: oauth.OAuthServiceService,
    implementation,
    host: config.host,
    port: config.port,
    tls: config.grpcTls,
    healthPort: config.healthPort,
    logger,
    dependencies: config.redisUrl ? [{ name: 'redis', ping: () => store.ping() }] : [],
    shutdownGraceMs: config.shutdownGraceMs,
    metrics: { registry, service: 'oauth', listen: config.metrics },
    close: async () => {
      identityClient.close();
      await changes.close();
      await store.close();
    },
  });
}

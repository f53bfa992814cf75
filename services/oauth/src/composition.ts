import { oauth } from '@sandbox/contracts';
import { createLogger, startGrpcService, unaryHandlers, type RunningGrpcService } from '@sandbox/runtime';
import type { OAuthConfig } from './config';
import type { EphemeralStore } from './stores/ephemeral-store';
import { MemoryEphemeralStore } from './stores/memory-ephemeral-store';
import { RedisEphemeralStore } from './stores/redis-ephemeral-store';

async function openStore(config: OAuthConfig): Promise<EphemeralStore> {
  if (!config.redisUrl) return new MemoryEphemeralStore();
  const store = new RedisEphemeralStore(config.redisUrl);
  await store.connect();
  return store;
}

export async function start(config: OAuthConfig): Promise<RunningGrpcService> {
  const logger = createLogger('oauth', config.logLevel);
  const store = await openStore(config);
  // The OAuth 2.0/1.0a, JWT, HMAC and Digest RPCs arrive with their issue;
  // until then the contract answers UNIMPLEMENTED and health reflects Redis.
  const implementation = unaryHandlers<oauth.OAuthServiceServer>(oauth.OAuthServiceService, {}, logger);
  return startGrpcService({
    protoService: 'sandbox.oauth.v1.OAuthService',
    definition: oauth.OAuthServiceService,
    implementation,
    host: config.host,
    port: config.port,
    logger,
    dependencies: config.redisUrl ? [{ name: 'redis', ping: () => store.ping() }] : [],
    close: () => store.close(),
  });
}

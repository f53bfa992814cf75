import { existsSync } from 'node:fs';

/**
 * Integration tests run against a real Redis and a real MongoDB-wire server.
 * scripts/test.sh starts Redis and FerretDB and passes their URLs; where a
 * Docker engine exists and no URLs are given, testcontainers starts mongo:7 and
 * redis:7 instead. There is no in-memory fallback: without real stores, fail.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.MONGO_URL && process.env.REDIS_URL) return;
  const dockerSocket = process.env.DOCKER_HOST || existsSync('/var/run/docker.sock');
  if (!dockerSocket) {
    throw new Error(
      'Integration tests need MONGO_URL and REDIS_URL (a MongoDB-wire server and Redis). ' +
        'Run `npm test`, which provisions Redis and FerretDB, or set both, or provide a Docker engine.',
    );
  }
  const { GenericContainer } = await import('testcontainers');
  const mongo = await new GenericContainer('mongo:7').withExposedPorts(27017).start();
  const redis = await new GenericContainer('redis:7').withExposedPorts(6379).start();
  process.env.MONGO_URL = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}`;
  process.env.REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
  (globalThis as { __containers?: { stop(): Promise<unknown> }[] }).__containers = [mongo, redis];
}

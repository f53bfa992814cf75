import { randomBytes } from 'node:crypto';
import { health, identity } from '@sandbox/contracts';
import { GrpcStatus, promiseClient, type PromiseClient, type RunningGrpcService } from '@sandbox/runtime';
import { clientAsAllowedCallers, eventually, refusalOf, requireStoreUrls, testTransport, tlsAs, tlsEnv } from '@sandbox/testing';
import { ownFerretDb, type OwnedStore } from '../../../../test/support/owned-store';
import { start } from '../../src/composition';
import { loadIdentityConfig } from '../../src/config';

jest.setTimeout(60_000);

const { SERVING, NOT_SERVING } = health.HealthCheckResponse_ServingStatus;

/**
 * The database crashes under a running identity service (a FerretDB of the
 * test's own, killed and started again on its port with its data): a call
 * that needs it is refused within a second with UNAVAILABLE naming MongoDB
 * (503 at the gateway, with Retry-After) rather than waiting for it, health
 * says so, and once it is back the same call works, with what was written
 * before.
 */
describe('identity service: MongoDB stopped and started again', () => {
  let database: OwnedStore;
  let service: RunningGrpcService;
  let client: PromiseClient<identity.IdentityServiceClient>;
  let healthClient: PromiseClient<health.HealthClient>;
  let ownerId: string;
  let appId: string;

  const listApps = () => client.listApps({ ownerId });
  const mongodbHealth = () => healthClient.check({ service: 'mongodb' }).then((answer) => answer.status);

  beforeAll(async () => {
    database = await ownFerretDb();
    service = await start(
      loadIdentityConfig({
        MONGO_URL: `${database.url}/identity_outage`,
        REDIS_URL: requireStoreUrls().redisUrl,
        CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
        SESSION_SIGNING_KEY: randomBytes(32).toString('base64url'),
        IDENTITY_GRPC_PORT: '0',
        LOG_LEVEL: 'silent',
        ...(await tlsEnv('identity')),
      }),
    );
    const address = `127.0.0.1:${service.port}`;
    client = await clientAsAllowedCallers(identity.IdentityServiceClient, identity.IdentityServiceService, address, 'identity', 5000, {
      transport: testTransport(),
    });
    healthClient = promiseClient(health.HealthClient, health.HealthService, address, 'identity', 2000, await tlsAs('gateway'));
    const { user } = await client.register({ email: `outage-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery' });
    ownerId = user!.id;
    const { app } = await client.createApp({ ownerId, name: 'Outage', description: '', redirectUris: [] });
    appId = app!.appId;
  });

  afterAll(async () => {
    client?.close();
    healthClient?.close();
    await service?.stop();
    await database?.remove();
  });

  it('when the database is killed, then a call that needs it is refused within a second with UNAVAILABLE naming MongoDB, and health says so; when it is back, the app from before is listed within 2 s', async () => {
    await database.kill();
    const started = Date.now();
    expect(await refusalOf(listApps())).toEqual({
      status: GrpcStatus.UNAVAILABLE,
      code: 'database_unavailable',
      message: 'MongoDB is unavailable; the routes that do not need it keep working. Try again shortly.',
      retryAfterSeconds: 2,
    });
    expect(Date.now() - started).toBeLessThan(1000);
    await eventually(mongodbHealth, (status) => status === NOT_SERVING, 5000, 100);

    await database.start();
    const back = Date.now();
    const listed = await eventually(
      () => listApps().catch((error: unknown) => error),
      (answer) => typeof answer === 'object' && answer !== null && 'apps' in answer,
      2000,
      50,
    );
    expect(Date.now() - back).toBeLessThan(2000);
    expect(listed.value).toMatchObject({ apps: [expect.objectContaining({ appId })] });
    await eventually(mongodbHealth, (status) => status === SERVING, 5000, 100);
  });
});

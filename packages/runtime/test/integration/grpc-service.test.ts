import { data, health } from '@sandbox/contracts';
import {
  AppError,
  createLogger,
  GrpcStatus,
  invalidArgument,
  promiseClient,
  ServingStatus,
  startGrpcService,
  unaryHandlers,
  type RunningGrpcService,
} from '@sandbox/runtime';

/** The runtime's server and client halves, over a real loopback gRPC connection. */
describe('a service started with startGrpcService', () => {
  const logger = createLogger('test', 'silent');
  let storeUp = true;
  let service: RunningGrpcService;
  let client: ReturnType<typeof promiseClient<data.DataServiceClient>>;
  let healthClient: ReturnType<typeof promiseClient<health.HealthClient>>;

  beforeAll(async () => {
    const implementation = unaryHandlers<data.DataServiceServer>(
      data.DataServiceService,
      {
        getCatalog: async (request, context) => ({ bodyJson: Buffer.from(JSON.stringify({ base: request.baseUrl, id: context.requestId })) }),
        describePack: async (request) => {
          if (request.pack === 'boom') throw new Error('secret internal detail');
          throw invalidArgument('bad_pack', `Pack ${request.pack} is not allowed.`);
        },
      },
      logger,
    );
    service = await startGrpcService({
      protoService: 'sandbox.data.v1.DataService',
      definition: data.DataServiceService,
      implementation,
      host: '127.0.0.1',
      port: 0,
      logger,
      dependencies: [{ name: 'fakestore', ping: async () => (storeUp ? undefined : Promise.reject(new Error('down'))) }],
      dependencyCheckIntervalMs: 50,
    });
    const address = `127.0.0.1:${service.port}`;
    client = promiseClient(data.DataServiceClient, data.DataServiceService, address, 'data', 2000);
    healthClient = promiseClient(health.HealthClient, health.HealthService, address, 'data', 2000);
  });

  afterAll(async () => {
    client.close();
    healthClient.close();
    await service.stop();
  });

  it('when a handler answers, then the client gets it and the request id travelled', async () => {
    const response = await client.getCatalog({ baseUrl: 'http://x' }, { requestId: 'req-123' });
    expect(JSON.parse(Buffer.from(response.bodyJson).toString())).toEqual({ base: 'http://x', id: 'req-123' });
  });

  it('when a handler throws a domain error, then the client gets its status, code and message', async () => {
    await expect(client.describePack({ pack: 'x', baseUrl: '' })).rejects.toMatchObject({
      status: GrpcStatus.INVALID_ARGUMENT,
      code: 'bad_pack',
      message: 'Pack x is not allowed.',
    });
  });

  it('when a handler fails unexpectedly, then the client gets INTERNAL without the detail', async () => {
    const error: AppError = await client.describePack({ pack: 'boom', baseUrl: '' }).catch((e) => e);
    expect(error.status).toBe(GrpcStatus.INTERNAL);
    expect(error.message).not.toContain('secret');
  });

  it('when a method has no handler, then the client gets UNIMPLEMENTED', async () => {
    await expect(client.getPage({ pack: 'a', entity: 'b', grantedScopes: [], baseUrl: '', passthroughQuery: {} })).rejects.toMatchObject({
      status: GrpcStatus.UNIMPLEMENTED,
    });
  });

  it('health answers SERVING for "", the proto name and the dependency; and follows the dependency down and up', async () => {
    for (const name of ['', 'sandbox.data.v1.DataService', 'fakestore']) {
      expect((await healthClient.check({ service: name })).status).toBe(ServingStatus.SERVING);
    }
    storeUp = false;
    await new Promise((r) => setTimeout(r, 200));
    expect((await healthClient.check({ service: 'fakestore' })).status).toBe(ServingStatus.NOT_SERVING);
    expect((await healthClient.check({ service: '' })).status).toBe(ServingStatus.NOT_SERVING);
    // Liveness is about the process, not its store: no restart for a database outage.
    expect((await healthClient.check({ service: 'liveness' })).status).toBe(ServingStatus.SERVING);
    storeUp = true;
    await new Promise((r) => setTimeout(r, 200));
    expect((await healthClient.check({ service: '' })).status).toBe(ServingStatus.SERVING);
  });

  it('when asked about an unknown name, then health answers NOT_FOUND', async () => {
    await expect(healthClient.check({ service: 'nope' })).rejects.toMatchObject({ status: GrpcStatus.NOT_FOUND });
  });
});

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
import { eventually, tlsAs } from '@sandbox/testing';

// The dependency is re-checked every 50 ms, but a busy CI machine may take far
// longer to get round to it: health changes are polled for, within a generous bound.
const HEALTH_CHANGE_BOUND_MS = 10_000;
jest.setTimeout(30_000);

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
        getCatalog: async (_request, context) => ({ bodyJson: Buffer.from(JSON.stringify({ id: context.requestId })) }),
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
      tls: (await tlsAs('data')).tls,
      logger,
      dependencies: [{ name: 'fakestore', ping: async () => (storeUp ? undefined : Promise.reject(new Error('down'))) }],
      dependencyCheckIntervalMs: 50,
    });
    const address = `127.0.0.1:${service.port}`;
    client = promiseClient(data.DataServiceClient, data.DataServiceService, address, 'data', 2000, await tlsAs('gateway'));
    healthClient = promiseClient(health.HealthClient, health.HealthService, address, 'data', 2000, await tlsAs('gateway'));
  });

  afterAll(async () => {
    client.close();
    healthClient.close();
    await service.stop();
  });

  it('when a handler answers, then the client gets it and the request id travelled', async () => {
    const response = await client.getCatalog(data.GetCatalogRequest.fromPartial({}), { requestId: 'req-123' });
    expect(JSON.parse(Buffer.from(response.bodyJson).toString())).toEqual({ id: 'req-123' });
  });

  it('when a handler throws a domain error, then the client gets its status, code and message', async () => {
    await expect(client.describePack(data.DescribePackRequest.fromPartial({ pack: 'x' }))).rejects.toMatchObject({
      status: GrpcStatus.INVALID_ARGUMENT,
      code: 'bad_pack',
      message: 'Pack x is not allowed.',
    });
  });

  it('when a handler fails unexpectedly, then the client gets INTERNAL without the detail', async () => {
    const error: AppError = await client.describePack(data.DescribePackRequest.fromPartial({ pack: 'boom' })).catch((e) => e);
    expect(error.status).toBe(GrpcStatus.INTERNAL);
    expect(error.message).not.toContain('secret');
  });

  it('when a method has no handler, then the client gets UNIMPLEMENTED', async () => {
    await expect(client.getPage(data.GetPageRequest.fromPartial({ pack: 'a', entity: 'b' }))).rejects.toMatchObject({
      status: GrpcStatus.UNIMPLEMENTED,
    });
  });

  it('health answers SERVING for "", the proto name and the dependency; and follows the dependency down and up', async () => {
    const statusOf = async (service: string) => (await healthClient.check({ service })).status;
    const becomes = (service: string, status: number) =>
      eventually(
        () => statusOf(service),
        (s) => s === status,
        HEALTH_CHANGE_BOUND_MS,
        25,
      );
    for (const name of ['', 'sandbox.data.v1.DataService', 'fakestore']) {
      expect(await statusOf(name)).toBe(ServingStatus.SERVING);
    }
    storeUp = false;
    await becomes('fakestore', ServingStatus.NOT_SERVING);
    expect(await statusOf('')).toBe(ServingStatus.NOT_SERVING);
    // Liveness is about the process, not its store: no restart for a database outage.
    expect(await statusOf('liveness')).toBe(ServingStatus.SERVING);
    storeUp = true;
    await becomes('', ServingStatus.SERVING);
    expect(await statusOf('fakestore')).toBe(ServingStatus.SERVING);
  });

  it('when asked about an unknown name, then health answers NOT_FOUND', async () => {
    await expect(healthClient.check({ service: 'nope' })).rejects.toMatchObject({ status: GrpcStatus.NOT_FOUND });
  });
});

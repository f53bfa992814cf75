import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { credentials, Metadata } from '@grpc/grpc-js';
import { data } from '@sandbox/contracts';
import {
  createLogger,
  createMetricsRegistry,
  GRPC_TLS_SETTINGS,
  grpcTls,
  GrpcStatus,
  promiseClient,
  startGrpcService,
  unaryHandlers,
  type GrpcTlsSetting,
  type GrpcTransport,
  type PromiseClient,
  type Registry,
  type Resolve,
  type RunningGrpcService,
} from '@sandbox/runtime';
import { tlsDirectory } from '@sandbox/testing';

/*
 * GRPC_TLS's migration settings (grpc-tls.ts, grpc-server.ts): a release
 * without mutual TLS takes off -> accept-tls -> send-tls -> on, one rolling
 * upgrade each. Real servers started with startGrpcService on loopback, one
 * per setting, each as the data service with the settings' real mapping
 * (config.ts grpcTls), called by real grpc-js clients as the gateway (which
 * the callers table allows) or the playground (which it does not), over both
 * transports.
 */
jest.setTimeout(60_000);

const TRANSPORTS: GrpcTransport[] = ['unary', 'stream'];
/** Each roll of the upgrade path: old and new processes side by side. */
const STEPS: [GrpcTlsSetting, GrpcTlsSetting][] = [
  ['off', 'accept-tls'],
  ['accept-tls', 'send-tls'],
  ['send-tls', 'on'],
];
/** Every (caller, server) pairing a roll creates, in either direction (a downgrade is the same rolls backwards). */
const PAIRINGS: [GrpcTlsSetting, GrpcTlsSetting][] = [
  ...new Map(
    STEPS.flatMap(
      ([from, to]) =>
        [
          [from, from],
          [from, to],
          [to, from],
          [to, to],
        ] as [GrpcTlsSetting, GrpcTlsSetting][],
    ).map((p) => [p.join(' '), p]),
  ).values(),
];

/** The setting as a process named `name` reads it (GRPC_TLS, GRPC_TLS_DIR). */
async function settingOf(setting: GrpcTlsSetting, name: string) {
  return grpcTls({ GRPC_TLS: setting, GRPC_TLS_DIR: await tlsDirectory(name), GRPC_TLS_REFRESH_MS: 60_000 }, name);
}

interface TestServer {
  service: RunningGrpcService;
  registry: Registry;
  logs: { level: string; msg: string }[];
}
const servers = new Map<GrpcTlsSetting, TestServer>();
const open: { close(): void }[] = [];

async function startDataServer(setting: GrpcTlsSetting, host = '127.0.0.1', port = 0): Promise<TestServer> {
  const logs: TestServer['logs'] = [];
  const logger = createLogger('data', 'info', { write: (line: string) => void logs.push(JSON.parse(line)) });
  const registry = createMetricsRegistry();
  const implementation = unaryHandlers<data.DataServiceServer>(
    data.DataServiceService,
    {
      getCatalog: async () => ({ bodyJson: Buffer.from('{}') }),
      // A slow call, to be in flight while the server stops.
      describePack: async () => new Promise((resolve) => setTimeout(() => resolve({ bodyJson: Buffer.from('{}') }), 500)),
    },
    logger,
  );
  const service = await startGrpcService({
    protoService: 'sandbox.data.v1.DataService',
    definition: data.DataServiceService,
    implementation,
    host,
    port,
    tls: await settingOf(setting, 'data'),
    logger,
    dependencies: [],
    metrics: { registry, service: 'data' },
    shutdownGraceMs: 3000,
  });
  return { service, registry, logs };
}

async function clientOf(caller: string, setting: GrpcTlsSetting, server: GrpcTlsSetting, transport: GrpcTransport) {
  const client = promiseClient(
    data.DataServiceClient,
    data.DataServiceService,
    `127.0.0.1:${servers.get(server)!.service.port}`,
    'data',
    3000,
    { tls: await settingOf(setting, caller) },
    { transport },
  );
  open.push(client);
  return client;
}

/** The status one GetCatalog call ends with (0 for an answer). */
async function statusOf(client: PromiseClient<data.DataServiceClient>): Promise<number> {
  try {
    await client.getCatalog({ rootUrl: '' });
    return GrpcStatus.OK;
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
}

async function plaintextCalls(registry: Registry): Promise<number> {
  const metric = registry.getSingleMetric('sandbox_grpc_server_plaintext_calls_total');
  if (!metric) return 0;
  return (await metric.get()).values.filter((v) => v.labels.service === 'data' && v.labels.method === 'GetCatalog').reduce((n, v) => n + v.value, 0);
}

beforeAll(async () => {
  for (const setting of GRPC_TLS_SETTINGS) servers.set(setting, await startDataServer(setting));
});

afterAll(async () => {
  for (const client of open) client.close();
  await Promise.all([...servers.values()].map((s) => s.service.stop()));
});

describe.each(TRANSPORTS)('over the %s transport', (transport) => {
  it.each(PAIRINGS)(
    'when a caller with GRPC_TLS=%s calls a server with GRPC_TLS=%s (a pairing of the upgrade path), then it is answered',
    async (caller, server) => {
      expect(await statusOf(await clientOf('gateway', caller, server, transport))).toBe(GrpcStatus.OK);
    },
  );

  it.each([
    ['off', 'on'],
    ['accept-tls', 'on'],
    ['send-tls', 'off'],
    ['on', 'off'],
  ] as [GrpcTlsSetting, GrpcTlsSetting][])(
    'when a caller with GRPC_TLS=%s calls a server with GRPC_TLS=%s (a step skipped), then the call never reaches it',
    async (caller, server) => {
      expect([GrpcStatus.UNAVAILABLE, GrpcStatus.DEADLINE_EXCEEDED]).toContain(await statusOf(await clientOf('gateway', caller, server, transport)));
    },
  );

  it.each(['accept-tls', 'send-tls'] as GrpcTlsSetting[])(
    'when a server with GRPC_TLS=%s is called in plaintext and with mutual TLS on its one port, then the plaintext call is served and counted, the TLS calls are checked against the callers table',
    async (setting) => {
      const { registry } = servers.get(setting)!;
      const before = await plaintextCalls(registry);
      expect(await statusOf(await clientOf('gateway', 'off', setting, transport))).toBe(GrpcStatus.OK);
      expect(await plaintextCalls(registry)).toBe(before + 1);
      // With a certificate: the identity decides, as under GRPC_TLS=on, and nothing is counted as plaintext.
      expect(await statusOf(await clientOf('gateway', 'on', setting, transport))).toBe(GrpcStatus.OK);
      expect(await statusOf(await clientOf('playground', 'on', setting, transport))).toBe(GrpcStatus.PERMISSION_DENIED);
      // A plaintext caller is not refused whatever name it has: it has no identity to check.
      expect(await statusOf(await clientOf('playground', 'off', setting, transport))).toBe(GrpcStatus.OK);
      expect(await plaintextCalls(registry)).toBe(before + 2);
    },
  );

  it('when a server with GRPC_TLS=on is called in plaintext, then the call never reaches it and nothing is counted', async () => {
    expect([GrpcStatus.UNAVAILABLE, GrpcStatus.DEADLINE_EXCEEDED]).toContain(await statusOf(await clientOf('gateway', 'off', 'on', transport)));
    expect(await plaintextCalls(servers.get('on')!.registry)).toBe(0);
  });
});

describe('a TLS caller without a client certificate', () => {
  it.each([...GRPC_TLS_SETTINGS])('when it calls a server with GRPC_TLS=%s, then the handshake never completes', async (setting) => {
    // It trusts the sandbox's CA, so only the missing certificate of its own can fail it.
    const ca = readFileSync(join(await tlsDirectory('gateway'), 'ca.crt'));
    const client = new data.DataServiceClient(`127.0.0.1:${servers.get(setting)!.service.port}`, credentials.createSsl(ca), {
      'grpc.ssl_target_name_override': 'data',
    });
    open.push(client);
    const status = await new Promise<number>((resolve) => {
      client.getCatalog({ rootUrl: '' }, new Metadata(), { deadline: Date.now() + 3000 }, (error) => resolve(error ? error.code : GrpcStatus.OK));
    });
    expect(status).toBe(GrpcStatus.UNAVAILABLE);
  });
});

describe('what an operator sees', () => {
  it.each(['accept-tls', 'send-tls'] as GrpcTlsSetting[])(
    'when a process starts with GRPC_TLS=%s, then it warns that its port takes plaintext too',
    (setting) => {
      const warnings = servers
        .get(setting)!
        .logs.filter((l) => l.level === 'warn')
        .map((l) => l.msg);
      expect(warnings).toContainEqual(expect.stringContaining(`GRPC_TLS=${setting}: this port takes calls in plaintext too`));
    },
  );

  it('when plaintext calls keep coming, then the log says so once, not once per call', async () => {
    const { logs } = servers.get('accept-tls')!;
    const client = await clientOf('gateway', 'off', 'accept-tls', 'unary');
    for (let i = 0; i < 5; i += 1) expect(await statusOf(client)).toBe(GrpcStatus.OK);
    expect(logs.filter((l) => l.msg.startsWith('calls taken in plaintext'))).toHaveLength(1);
  });
});

describe('stopping a server that takes both protocols', () => {
  it('when it stops with a plaintext caller, a TLS caller and a silent connection open, then their calls in flight are answered, it stops within its grace and its port is closed', async () => {
    const server = await startDataServer('send-tls');
    const address = `127.0.0.1:${server.service.port}`;
    const plain = promiseClient(
      data.DataServiceClient,
      data.DataServiceService,
      address,
      'data',
      3000,
      { tls: await settingOf('off', 'gateway') },
      { transport: 'stream' },
    );
    const tls = promiseClient(data.DataServiceClient, data.DataServiceService, address, 'data', 3000, { tls: await settingOf('on', 'gateway') });
    open.push(plain, tls);
    expect(await statusOf(plain)).toBe(GrpcStatus.OK);
    expect(await statusOf(tls)).toBe(GrpcStatus.OK);
    const silent = await new Promise<Socket>((resolve, reject) => {
      const socket = connect(server.service.port, '127.0.0.1', () => resolve(socket)).once('error', reject);
    });
    const closed = new Promise((resolve) => silent.once('close', resolve));

    const inFlight = [plain.describePack({ pack: 'hr', rootUrl: '' }), tls.describePack({ pack: 'hr', rootUrl: '' })];
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await server.service.stop();
    await expect(Promise.all(inFlight)).resolves.toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(3000);
    await closed;
    const refused = await new Promise<string>((resolve) => {
      connect(server.service.port, '127.0.0.1', () => resolve('connected')).once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    });
    expect(refused).toBe('ECONNREFUSED');
  });
});

/*
 * One roll of the upgrade path, in small: two replicas of a service behind
 * one name, called without pause by a caller of the old setting and, from
 * the middle of the roll, one of the new, while each replica in turn leaves
 * the name (as a pod leaves its headless Service's endpoints), stops
 * gracefully and comes back with the new setting. Not one call may fail.
 */
describe('a roll from one setting to the next under calls', () => {
  const HOST = 'roll-test.invalid';

  async function roll(from: GrpcTlsSetting, to: GrpcTlsSetting, transport: GrpcTransport) {
    const replicas: TestServer[] = [];
    let port = 0;
    for (let attempt = 1; replicas.length < 2; attempt++) {
      try {
        const replica = await startDataServer(from, `127.0.0.${replicas.length + 1}`, port);
        port = replica.service.port;
        replicas.push(replica);
      } catch (error) {
        // the port the first took is taken on the second address: start again on another
        await Promise.all(replicas.splice(0).map((r) => r.service.stop()));
        port = 0;
        if (attempt >= 5) throw error;
      }
    }
    const hosts = ['127.0.0.1', '127.0.0.2'];
    const resolve: Resolve = async () => [...hosts];
    const client = async (setting: GrpcTlsSetting) => {
      const target = transport === 'stream' ? `${HOST}:${port}` : `ipv4:127.0.0.1:${port},127.0.0.2:${port}`;
      const made = promiseClient(
        data.DataServiceClient,
        data.DataServiceService,
        target,
        'data',
        5000,
        { tls: await settingOf(setting, 'gateway') },
        { transport, resolve },
      );
      open.push(made);
      return made;
    };
    const failures: string[] = [];
    let calls = 0;
    let running = true;
    const keepCalling = async (caller: PromiseClient<data.DataServiceClient>, until: () => boolean) => {
      while (running && !until()) {
        calls += 1;
        await caller.getCatalog({ rootUrl: '' }).catch((error: { status?: number; message: string }) => failures.push(`${error.status}: ${error.message}`));
      }
    };
    const oldCaller = await client(from);
    let oldDone = false;
    const loops = [0, 1, 2, 3].map(() => keepCalling(oldCaller, () => oldDone));
    await new Promise((r) => setTimeout(r, 200));
    for (const [i, host] of hosts.slice().entries()) {
      hosts.splice(hosts.indexOf(host), 1);
      await new Promise((r) => setTimeout(r, 100));
      await replicas[i]!.service.stop();
      replicas[i] = await startDataServer(to, host, port);
      hosts.push(host);
      if (i === 0) {
        // a caller of the new setting joins while the old one still calls
        const newCaller = await client(to);
        loops.push(...[0, 1].map(() => keepCalling(newCaller, () => false)));
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    oldDone = true;
    await new Promise((r) => setTimeout(r, 200));
    running = false;
    await Promise.all(loops);
    await Promise.all(replicas.map((r) => r.service.stop()));
    return { calls, failures };
  }

  describe.each(TRANSPORTS)('over the %s transport', (transport) => {
    it.each(STEPS)('when two replicas roll from GRPC_TLS=%s to %s while callers of both settings call, then no call fails', async (from, to) => {
      const { calls, failures } = await roll(from, to, transport);
      expect(failures).toEqual([]);
      expect(calls).toBeGreaterThan(50);
    });
  });
});

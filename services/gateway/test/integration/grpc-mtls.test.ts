import { credentials, type Client, type ServiceDefinition } from '@grpc/grpc-js';
import { join } from 'node:path';
import { callers, data, health, identity, oauth, playground } from '@sandbox/contracts';
import { GrpcStatus, promiseClient, type GrpcTransport, type PromiseClient } from '@sandbox/runtime';
import { createCertificateAuthority, writeTlsDirectory } from '../../../../packages/launcher/src/certificates';
import { freePort, startSystem, type RunningSystem } from '@sandbox/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

// An outsider's probe of the services' gRPC ports, on the whole sandbox as
// `npm start` runs it (each process with its own certificate from the
// launcher's CA): no certificate, or one from another CA, never completes the
// handshake; a real certificate of the wrong sandbox process is refused every
// RPC outside the callers table, over both transports; every caller the table
// names gets past the check. Every RPC of every service's proto is walked.

type Walked = { name: string; definition: ServiceDefinition; Ctor: new (...args: never[]) => Client; port: () => number };
const SERVICES: Walked[] = [
  { name: 'identity', definition: identity.IdentityServiceService, Ctor: identity.IdentityServiceClient as never, port: () => ports.identity },
  { name: 'oauth', definition: oauth.OAuthServiceService, Ctor: oauth.OAuthServiceClient as never, port: () => ports.oauth },
  { name: 'data', definition: data.DataServiceService, Ctor: data.DataServiceClient as never, port: () => ports.data },
  { name: 'playground', definition: playground.PlaygroundServiceService, Ctor: playground.PlaygroundServiceClient as never, port: () => ports.playground },
];
/** Every identity the launcher issued a certificate to. */
const IDENTITIES = ['gateway', 'identity', 'oauth', 'data', 'playground', 'launcher', 'cli'];
const TRANSPORTS: GrpcTransport[] = ['unary', 'stream'];

let system: RunningSystem;
let ports: Record<string, number>;
let dataHealthPort: number;
const open: { close(): void }[] = [];

/** The request message with every field at its default, as the service would decode an empty one. */
const emptyRequest = (definition: ServiceDefinition[string]) => definition.requestDeserialize(Buffer.alloc(0)) as object;

/** The status code one call ends with (0 for an answer). */
async function statusOf(client: PromiseClient<Client>, method: string, definition: ServiceDefinition[string]): Promise<number> {
  return (await outcomeOf(client, method, definition)).status;
}

/** The status and error code one call ends with. */
async function outcomeOf(client: PromiseClient<Client>, method: string, definition: ServiceDefinition[string]): Promise<{ status: number; code?: string }> {
  try {
    if (definition.requestStream) {
      const stream = client.clientStream(method, { deadlineMs: 5000 });
      stream.end();
      await stream.response;
    } else {
      await (client as unknown as Record<string, (request: object, options: object) => Promise<unknown>>)[method]!(emptyRequest(definition), {
        deadlineMs: 5000,
      });
    }
    return { status: GrpcStatus.OK };
  } catch (error) {
    const { status, grpcStatus, code } = error as { status?: number; grpcStatus?: number; code?: unknown };
    return { status: status ?? grpcStatus ?? -1, code: typeof code === 'string' ? code : undefined };
  }
}

beforeAll(async () => {
  dataHealthPort = await freePort();
  system = await startSystem({ DATA_HEALTH_PORT: String(dataHealthPort) });
  ports = {
    identity: Number(system.env.IDENTITY_GRPC_PORT),
    oauth: Number(system.env.OAUTH_GRPC_PORT),
    data: Number(system.env.DATA_GRPC_PORT),
    playground: Number(system.env.PLAYGROUND_GRPC_PORT),
  };
}, 120_000);

afterAll(async () => {
  for (const client of open) client.close();
  await system?.stop();
});

describe.each(TRANSPORTS)('every RPC of every service, over the %s transport', (transport) => {
  it.each(SERVICES.map((s) => [s.name, s] as const))(
    'when %s is called as each sandbox identity, then only the callers in its table get past the check',
    async (_name, service) => {
      const outcomes: string[] = [];
      const expected: string[] = [];
      for (const caller of IDENTITIES) {
        const client = promiseClient(service.Ctor as never, service.definition, `127.0.0.1:${service.port()}`, service.name, 5000, system.tlsAs(caller), {
          transport,
        }) as PromiseClient<Client>;
        open.push(client);
        for (const [method, definition] of Object.entries(service.definition)) {
          const allowed = (callers.CALLERS_BY_PATH.get(definition.path) ?? []).includes(caller as callers.Caller);
          // Past the table an admin RPC may still refuse (operator_required: identity verifies the operator itself): that is not the table's refusal.
          const { status, code } = await outcomeOf(client, method, definition);
          outcomes.push(`${caller} ${method}: ${status === GrpcStatus.PERMISSION_DENIED && code === 'caller_not_allowed' ? 'refused' : 'passed'}`);
          expected.push(`${caller} ${method}: ${allowed ? 'passed' : 'refused'}`);
        }
      }
      expect(outcomes).toEqual(expected);
      // The walk saw refusals and passes both, or it proved nothing.
      expect(new Set(outcomes.map((o) => o.split(': ')[1]))).toEqual(new Set(['refused', 'passed']));
    },
    120_000,
  );
});

describe('callers without a sandbox certificate', () => {
  it.each(SERVICES.map((s) => [s.name, s] as const))(
    'when %s is called in plaintext, with no client certificate, or with a certificate of another CA, then the handshake never completes',
    async (_name, service) => {
      const stranger = mkdtempSync(join(tmpdir(), 'stranger-'));
      const otherCa = await createCertificateAuthority(1);
      // Another CA's certificate that even names the expected caller.
      writeTlsDirectory(stranger, otherCa.cert, await otherCa.issue('gateway'));
      const address = `127.0.0.1:${service.port()}`;
      const attempts = {
        plaintext: promiseClient(service.Ctor as never, service.definition, address, service.name, 3000, { tls: { mode: 'off' } }),
        'another CA': promiseClient(service.Ctor as never, service.definition, address, service.name, 3000, {
          tls: { mode: 'mtls', dir: stranger, refreshMs: 60_000 },
        }),
      };
      const [method, definition] = Object.entries(service.definition)[0]!;
      for (const [what, client] of Object.entries(attempts)) {
        open.push(client);
        expect({ what, status: await statusOf(client as PromiseClient<Client>, method, definition) }).toEqual({ what, status: GrpcStatus.UNAVAILABLE });
      }
      // A TLS client that offers no certificate at all.
      const noCertificate = new service.Ctor(
        address as never,
        credentials.createSsl() as never,
        { 'grpc.ssl_target_name_override': service.name } as never,
      ) as Client & Record<string, (...args: unknown[]) => unknown>;
      const status = await new Promise<number>((resolve) => {
        noCertificate[method]!(emptyRequest(definition), { deadline: Date.now() + 3000 }, (error: { code: number } | null) => resolve(error ? error.code : 0));
      });
      noCertificate.close();
      expect(status).toBe(GrpcStatus.UNAVAILABLE);
    },
    60_000,
  );
});

describe("a probe's health port", () => {
  it('when asked in plaintext, then it answers grpc.health.v1 and nothing else', async () => {
    const address = `127.0.0.1:${dataHealthPort}`;
    const probe = promiseClient(health.HealthClient, health.HealthService, address, 'data', 3000, { tls: { mode: 'off' } });
    const other = promiseClient(data.DataServiceClient, data.DataServiceService, address, 'data', 3000, { tls: { mode: 'off' } });
    open.push(probe, other);
    await expect(probe.check({ service: '' })).resolves.toEqual({ status: health.HealthCheckResponse_ServingStatus.SERVING });
    expect(await statusOf(other as unknown as PromiseClient<Client>, 'getCatalog', data.DataServiceService.getCatalog as never)).toBe(GrpcStatus.UNIMPLEMENTED);
  });
});

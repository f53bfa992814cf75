import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { oauth } from '@sandbox/contracts';
import {
  createLogger,
  GrpcStatus,
  promiseClient,
  startGrpcService,
  unaryHandlers,
  type GrpcTransport,
  type PromiseClient,
  type RunningGrpcService,
} from '@sandbox/runtime';
import { testCertificateAuthority, tlsAs } from '@sandbox/testing';
import { writeTlsDirectory } from '../../../launcher/src/certificates';

// The identity of a call's caller is remembered per certificate
// (grpc-tls.ts peerIdentity), so that the callers table can be checked on
// every call cheaply. Remembering must not blur callers: several callers on
// connections of their own, calling at once over each transport, are each
// known as themselves on every call, and refused what the table refuses them.
// oauth's service serves as the example: ForgetApps may be called by the
// gateway and the CLI, Token by the gateway alone.

jest.setTimeout(30_000);
const logger = createLogger('test', 'silent');
/** What the handler answers: the caller it was told, as a number (ForgetApps answers one). */
const CODES: Record<string, number> = { gateway: 1, cli: 2 };
const TRANSPORTS: GrpcTransport[] = ['stream', 'unary'];

let service: RunningGrpcService;
let strangerDir: string;

beforeAll(async () => {
  const implementation = unaryHandlers<oauth.OAuthServiceServer>(
    oauth.OAuthServiceService,
    {
      forgetApps: (_request, context) => ({ forgotten: CODES[context.caller ?? ''] ?? 0 }),
      token: () => oauth.TokenResponse.fromPartial({}),
    },
    logger,
  );
  service = await startGrpcService({
    protoService: 'sandbox.oauth.v1.OAuthService',
    definition: oauth.OAuthServiceService,
    implementation,
    host: '127.0.0.1',
    port: 0,
    tls: (await tlsAs('oauth')).tls,
    logger,
    dependencies: [],
  });
  // A certificate from the sandbox's own CA that names the gateway in another trust domain.
  const ca = await testCertificateAuthority();
  strangerDir = join(mkdtempSync(join(tmpdir(), 'test-tls-stranger-')), 'tls');
  writeTlsDirectory(strangerDir, ca.cert, await ca.issue('gateway', { uri: 'spiffe://elsewhere/gateway' }));
});

afterAll(async () => {
  await service.stop();
});

/** ForgetApps's answer, or the refusal's status and code. */
async function forgetApps(client: PromiseClient<oauth.OAuthServiceClient>): Promise<number | string> {
  try {
    return (await client.forgetApps(oauth.ForgetAppsRequest.fromPartial({}))).forgotten;
  } catch (error) {
    const { status, code } = error as { status: number; code: string };
    return `${status} ${code}`;
  }
}

async function clientAs(name: string, transport: GrpcTransport, dir?: string): Promise<PromiseClient<oauth.OAuthServiceClient>> {
  const security = dir ? { tls: { mode: 'mtls' as const, dir, refreshMs: 60_000 } } : await tlsAs(name);
  return promiseClient(oauth.OAuthServiceClient, oauth.OAuthServiceService, `127.0.0.1:${service.port}`, 'oauth', 5000, security, { transport });
}

const REFUSED = `${GrpcStatus.PERMISSION_DENIED} caller_not_allowed`;

describe.each(TRANSPORTS)('callers over the %s transport', (transport) => {
  it("when the gateway, the CLI and strangers call at once, then every call is its own caller's: answered as itself, or refused", async () => {
    const clients = {
      gateway: await clientAs('gateway', transport),
      cli: await clientAs('cli', transport),
      playground: await clientAs('playground', transport),
      elsewhere: await clientAs('gateway', transport, strangerDir),
    };
    try {
      const names = Object.keys(clients) as (keyof typeof clients)[];
      const rounds = await Promise.all(Array.from({ length: 20 }, () => Promise.all(names.map((name) => forgetApps(clients[name])))));
      const expected = [CODES.gateway, CODES.cli, REFUSED, REFUSED];
      expect(rounds).toEqual(Array.from({ length: 20 }, () => expected));
    } finally {
      for (const client of Object.values(clients)) client.close();
    }
  });

  it('when the CLI, known from its earlier calls, calls what only the gateway may, then it is refused, and the gateway is not', async () => {
    const cli = await clientAs('cli', transport);
    const gateway = await clientAs('gateway', transport);
    try {
      expect(await forgetApps(cli)).toBe(CODES.cli);
      const token = (client: PromiseClient<oauth.OAuthServiceClient>) =>
        client.token(oauth.TokenRequest.fromPartial({})).then(
          () => 'answered',
          (error: { status: number; code: string }) => `${error.status} ${error.code}`,
        );
      expect(await Promise.all([token(cli), token(gateway), token(cli)])).toEqual([REFUSED, 'answered', REFUSED]);
    } finally {
      cli.close();
      gateway.close();
    }
  });
});

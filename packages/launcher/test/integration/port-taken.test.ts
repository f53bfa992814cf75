import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { health } from '@sandbox/contracts';
import { HealthRegistry, ServingStatus } from '@sandbox/runtime';
import { compileCache, freePort } from '@sandbox/testing';

jest.setTimeout(60_000);
const LAUNCHER = join(__dirname, '..', '..', 'dist', 'main.js');

/*
 * A port can be taken between the launcher's choice and its service's bind
 * (another sandbox on the machine, another program). The launcher must then
 * fail, naming the service, and never call the sandbox ready because some
 * other gRPC server answered SERVING there: its gateway would send identity's
 * calls to a stranger (501s for every account call, as CI once saw).
 */
describe("when another gRPC server holds a service's port", () => {
  let stranger: Server;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    const registry = new HealthRegistry();
    registry.set('', ServingStatus.SERVING);
    stranger = new Server();
    stranger.addService(health.HealthService, registry.implementation());
    await new Promise<void>((resolve, reject) =>
      stranger.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
    );
  });
  afterAll(() => stranger?.forceShutdown());

  it('then the launcher exits 1 naming the service that could not listen, and never says it is ready', async () => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...compileCache(),
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      IDENTITY_GRPC_PORT: String(port),
    };
    for (const name of ['OAUTH', 'DATA', 'PLAYGROUND']) env[`${name}_GRPC_PORT`] = String(await freePort());
    const launcher = spawn(process.execPath, [LAUNCHER], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    launcher.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    launcher.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => launcher.once('exit', resolve));

    expect(code).toBe(1);
    expect(output).toContain('EADDRINUSE');
    expect(output).toContain('launcher: identity exited (code 1) before it started listening');
    expect(output).not.toContain('is ready at');
  });
});

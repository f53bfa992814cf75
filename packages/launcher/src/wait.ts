import http from 'node:http';
import https from 'node:https';
import { health } from '@sandbox/contracts';
import { promiseClient, type GrpcTls } from '@sandbox/runtime';

const POLL_MS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a service's grpc.health.v1 until it answers SERVING for "". */
export async function waitForServing(name: string, service: string, address: string, timeoutMs: number, tls: GrpcTls): Promise<void> {
  const client = promiseClient(health.HealthClient, health.HealthService, address, service, 500, { tls });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      try {
        const { status } = await client.check({ service: '' });
        if (status === health.HealthCheckResponse_ServingStatus.SERVING) return;
      } catch {
        // not listening yet
      }
      await sleep(POLL_MS);
    }
    throw new Error(`${name} did not become ready at ${address} within ${timeoutMs} ms`);
  } finally {
    client.close();
  }
}

/** Polls the gateway's /health/ready until it answers 200. */
export async function waitForGatewayReady(baseUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    last = await status(`${baseUrl}/health/ready`).catch((error: Error) => error.message);
    if (last === '200') return;
    await sleep(POLL_MS);
  }
  throw new Error(`the gateway at ${baseUrl} was not ready within ${timeoutMs} ms (last: ${last})`);
}

function status(url: string): Promise<string> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    // A self-signed development certificate must not stop the readiness poll.
    const req = client.get(url, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(String(res.statusCode));
    });
    req.on('error', reject);
    req.setTimeout(1000, () => req.destroy(new Error('timeout')));
  });
}

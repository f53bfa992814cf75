import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { createCertificateAuthority, writeTlsDirectory, type CertificateAuthority } from '../../../../packages/launcher/src/certificates';
import { startSystem, type RunningSystem } from '@sandbox/testing';

// A rotation of the sandbox's CA and of every process's certificate, under
// load, with no restart: first every process trusts the old and the new CA,
// then each gets a certificate from the new one, then the old CA is dropped.
// Every request through the gateway meanwhile (each crossing a hop to a
// service, oauth's to identity included) answers as it would without the
// rotation, and afterwards every service presents its new certificate.

const PROCESSES = ['gateway', 'identity', 'oauth', 'data', 'playground', 'launcher'];
const SERVICES = ['identity', 'oauth', 'data', 'playground'] as const;
const REFRESH_MS = 300;
/** Long enough for every process to have read the files again, with room for a busy machine. */
const SETTLE_MS = 10 * REFRESH_MS + 1500;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let system: RunningSystem;
const dirOf = (name: string) => join(system.env.GRPC_TLS_RUN_DIR!, name);
const fileOf = (name: string, file: string) => readFileSync(join(dirOf(name), file), 'utf8');

/** What each route answers when nothing is wrong: any other answer, or none, is a failure. */
const ROUTES: { path: string; init?: RequestInit; status: number }[] = [
  { path: '/playground/echo?n=1', status: 200 }, // gateway -> playground
  { path: '/playground/data', status: 200 }, // gateway -> data
  // gateway -> oauth -> identity (VerifyBasic): an unknown client is a 401, decided by identity.
  {
    path: '/oauth/token',
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=app_unknown&client_secret=nope',
    },
    status: 401,
  },
  { path: '/health/ready', status: 200 }, // every service's health
];

/** Requests from a few workers until `stop` resolves; returns what did not answer as expected. */
async function load(baseUrl: string, stop: Promise<void>): Promise<{ sent: number; failures: string[] }> {
  let done = false;
  void stop.then(() => (done = true));
  let sent = 0;
  const failures: string[] = [];
  const worker = async (offset: number) => {
    for (let i = offset; !done; i++) {
      const route = ROUTES[i % ROUTES.length]!;
      sent++;
      try {
        const response = await fetch(`${baseUrl}${route.path}`, { ...route.init, signal: AbortSignal.timeout(10_000) });
        const body = await response.text();
        if (response.status !== route.status) failures.push(`${route.path}: ${response.status} ${body.slice(0, 200)}`);
      } catch (error) {
        failures.push(`${route.path}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
  return { sent, failures };
}

/** The certificate a service presents to a new connection now. */
function presented(port: number, as: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: '127.0.0.1',
      port,
      ca: fileOf(as, 'ca.crt'),
      cert: fileOf(as, 'tls.crt'),
      key: fileOf(as, 'tls.key'),
      ALPNProtocols: ['h2'],
      checkServerIdentity: () => undefined,
    });
    socket.once('secureConnect', () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256);
      socket.end();
    });
    socket.once('error', reject);
  });
}

beforeAll(async () => {
  system = await startSystem({ GRPC_TLS_REFRESH_MS: String(REFRESH_MS) });
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

it('when the CA and every certificate are rotated under load, then no request fails and every service presents its new certificate', async () => {
  const oldCa = fileOf('launcher', 'ca.crt');
  const newCa: CertificateAuthority = await createCertificateAuthority(1);
  let finish!: () => void;
  const running = load(system.baseUrl, new Promise<void>((resolve) => (finish = resolve)));
  await sleep(1000);

  // 1. Trust both CAs, keeping each process's old certificate.
  for (const name of PROCESSES) writeTlsDirectory(dirOf(name), oldCa + newCa.cert, { cert: fileOf(name, 'tls.crt'), key: fileOf(name, 'tls.key') });
  await sleep(SETTLE_MS);
  // 2. A certificate from the new CA for each, still trusting both.
  const issued: Record<string, string> = {};
  for (const name of PROCESSES) {
    const identity = await newCa.issue(name);
    issued[name] = new X509Certificate(identity.cert).fingerprint256;
    writeTlsDirectory(dirOf(name), oldCa + newCa.cert, identity);
  }
  await sleep(SETTLE_MS);
  // 3. The old CA is no longer trusted anywhere.
  for (const name of PROCESSES) writeTlsDirectory(dirOf(name), newCa.cert, { cert: fileOf(name, 'tls.crt'), key: fileOf(name, 'tls.key') });
  await sleep(SETTLE_MS);

  finish();
  const { sent, failures } = await running;
  expect(failures).toEqual([]);
  expect(sent).toBeGreaterThan(50);
  for (const service of SERVICES) {
    const port = Number(system.env[`${service.toUpperCase()}_GRPC_PORT`]);
    expect({ service, presents: await presented(port, 'gateway') }).toEqual({ service, presents: issued[service] });
  }
  // New connections, made only with the new CA's certificates, work end to end.
  const after = await load(system.baseUrl, sleep(1500));
  expect(after.failures).toEqual([]);
}, 120_000);

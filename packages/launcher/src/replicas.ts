import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import {
  grpcAddressVariable,
  grpcPortVariable,
  needApplies,
  REPLICA_NEEDS,
  replicaNeedMessage,
  replicasVariable,
  SERVICE_NAMES,
  type ServiceName,
} from '@sandbox/runtime';

export type ProcessName = ServiceName | 'gateway';
export const PROCESS_NAMES: readonly ProcessName[] = [...SERVICE_NAMES, 'gateway'];

/** One process to start: its name in logs (`data`, `data#2`), and the variables that make it that replica. */
export interface Replica {
  name: ProcessName;
  label: string;
  env: Record<string, string>;
}

export interface ReplicaPlan {
  replicas: Replica[];
  /** What every process gets besides its own: callers' address lists, keys replicas must share. */
  shared: Record<string, string>;
  /** Where each service's replicas listen, for the readiness wait. */
  addresses: Record<ServiceName, string[]>;
  gatewayPorts: number[];
  /** Lines for the person starting it (which keys were made up for this run). */
  notes: string[];
  /** The variables of `shared` that are keys made up for this run: never printed. */
  madeKeys: string[];
}

/** The keys replicas must share that the launcher makes up for one run when not given (as one process makes its own). */
const MAKE_KEY: Record<string, () => string> = {
  PAGE_TOKEN_KEY: () => randomBytes(32).toString('base64url'),
  JWT_SIGNING_KEY: () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  SSO_COOKIE_KEY: () => randomBytes(32).toString('base64url'),
};

/** A problem with REPLICAS: the launcher prints this one line and exits. */
export class ReplicaError extends Error {}

/**
 * Every process of the sandbox with its port: replica 1 of each keeps the
 * configured port (so one replica is exactly what it always was), the others
 * get free ports; callers reach a service's replicas through an `ipv4:` list,
 * the local form of what a headless Service's name resolves to.
 */
export async function planReplicas(
  counts: Record<ProcessName, number>,
  environment: NodeJS.ProcessEnv,
  configured: { gatewayPort: number; grpcPorts: Record<ServiceName, number>; grpcHost: (name: ServiceName) => string; gatewayHost: string },
): Promise<ReplicaPlan> {
  // What a service needs to run as several processes (REPLICA_NEEDS): a missing store is refused
  // here, before anything starts; a missing key is made up for this run and shared.
  const shared: Record<string, string> = {};
  const notes: string[] = [];
  const madeKeys: string[] = [];
  for (const name of PROCESS_NAMES) {
    if (counts[name] <= 1) continue;
    const asked = { count: counts[name], variable: environment[replicasVariable(name)] ? replicasVariable(name) : 'REPLICAS' };
    for (const need of REPLICA_NEEDS[name]) {
      if (environment[need.variable] || shared[need.variable] || !needApplies(need, environment)) continue;
      if (need.kind === 'store') throw new ReplicaError(`${need.variable} ${replicaNeedMessage(need, name, asked)}.`);
      shared[need.variable] = MAKE_KEY[need.variable]();
      madeKeys.push(need.variable);
      notes.push(`${need.variable} is not set: the ${counts[name]} ${name} replicas share one made up for this run`);
    }
  }
  // Single sign-on: the ID token's audience is the client id, so identity expects what the gateway signs in as.
  if (environment.SSO_CLIENT_ID && !environment.EXTERNAL_IDP_AUDIENCE) {
    shared.EXTERNAL_IDP_AUDIENCE = environment.SSO_CLIENT_ID;
    notes.push("EXTERNAL_IDP_AUDIENCE is not set: identity expects SSO_CLIENT_ID as the audience of the provider's tokens");
  }

  const replicas: Replica[] = [];
  const addresses = {} as Record<ServiceName, string[]>;
  for (const name of SERVICE_NAMES) {
    const host = configured.grpcHost(name);
    const ports = await portsFor(counts[name], configured.grpcPorts[name], host);
    addresses[name] = ports.map((port) => `127.0.0.1:${port}`);
    if (counts[name] > 1 && !environment[grpcAddressVariable(name)]) shared[grpcAddressVariable(name)] = `ipv4:${addresses[name].join(',')}`;
    for (const [i, port] of ports.entries()) {
      replicas.push({ name, label: labelOf(name, i), env: { [grpcPortVariable(name)]: String(port), ...(await metricsPortFor(name, i, environment)) } });
    }
  }
  const gatewayPorts = await portsFor(counts.gateway, configured.gatewayPort, configured.gatewayHost);
  for (const [i, port] of gatewayPorts.entries()) {
    replicas.push({ name: 'gateway', label: labelOf('gateway', i), env: { PORT: String(port), ...(await metricsPortFor('gateway', i, environment)) } });
  }
  return { replicas, shared, addresses, gatewayPorts, notes, madeKeys };
}

const labelOf = (name: ProcessName, index: number) => (index === 0 ? name : `${name}#${index + 1}`);

async function portsFor(count: number, first: number, host: string): Promise<number[]> {
  const ports = [first];
  for (let i = 1; i < count; i++) ports.push(await freePort(host));
  return ports;
}

/** A metrics listener asked for (`<NAME>_METRICS_PORT`) gives replica 1 that port and the others free ones. */
async function metricsPortFor(name: ProcessName, index: number, environment: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  const prefix = name === 'gateway' ? '' : `${name.toUpperCase()}_`;
  if (index === 0 || !environment[`${prefix}METRICS_PORT`]) return {};
  return { [`${prefix}METRICS_PORT`]: String(await freePort(environment[`${prefix}METRICS_HOST`] || '127.0.0.1')) };
}

/** A port free on `host` right now (the kernel's choice). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host === '0.0.0.0' ? undefined : host, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

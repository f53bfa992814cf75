import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { grpcAddressVariable, grpcPortVariable, SERVICE_NAMES, type ServiceName } from '@sandbox/runtime';

export type ProcessName = ServiceName | 'gateway';
export const PROCESS_NAMES: readonly ProcessName[] = [...SERVICE_NAMES, 'gateway'];

/** `<NAME>_REPLICAS`: one process's count, over REPLICAS. */
export const replicasVariable = (name: ProcessName) => `${name.toUpperCase()}_REPLICAS`;

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

/**
 * What must be true before a service runs as several processes, for the
 * embedded default: each replica keeps its own memory, so state every replica
 * must see needs a store (docs/state.md).
 */
const STORE_NEEDED: Partial<Record<ProcessName, { variable: string; why: string }>> = {
  identity: { variable: 'MONGO_URL', why: 'identity keeps accounts, apps, credentials and sessions in memory per process without it' },
  oauth: { variable: 'REDIS_URL', why: 'oauth keeps codes, tokens, nonces and replay memories in memory per process without it' },
};

/**
 * Keys that replicas of one service must share so that what one signs another
 * accepts; made up for this run when not given (as one process makes its own).
 */
const SHARED_KEYS: Partial<Record<ProcessName, { variable: string; make: () => string }>> = {
  data: { variable: 'PAGE_TOKEN_KEY', make: () => randomBytes(32).toString('base64url') },
  oauth: {
    variable: 'JWT_SIGNING_KEY',
    make: () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  },
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
  for (const name of PROCESS_NAMES) {
    const needed = STORE_NEEDED[name];
    if (counts[name] > 1 && needed && !environment[needed.variable]) {
      const asked = environment[replicasVariable(name)] ? replicasVariable(name) : 'REPLICAS';
      throw new ReplicaError(`${counts[name]} ${name} replicas (${asked}=${counts[name]}) need ${needed.variable}: ${needed.why}.`);
    }
  }
  const shared: Record<string, string> = {};
  const notes: string[] = [];
  const madeKeys: string[] = [];
  for (const name of PROCESS_NAMES) {
    const key = SHARED_KEYS[name];
    if (counts[name] > 1 && key && !environment[key.variable]) {
      shared[key.variable] = key.make();
      madeKeys.push(key.variable);
      notes.push(`${key.variable} is not set: the ${counts[name]} ${name} replicas share one made up for this run`);
    }
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

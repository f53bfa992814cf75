import { health } from '@sandbox/contracts';
import { LIVENESS, SERVICE_NAMES, type ServiceName } from '@sandbox/runtime';
import type { BackendClients } from './clients';

const { SERVING, NOT_SERVING } = health.HealthCheckResponse_ServingStatus;

/** Stores each service may depend on; a service without one answers NOT_FOUND for its name. */
const STORES: Partial<Record<ServiceName, string>> = { identity: 'mongodb', oauth: 'redis' };

export interface ComponentState {
  status: 'up' | 'down';
  /** For a store: which service reaches it. */
  via?: string;
  reason?: string;
}

export interface Readiness {
  ready: boolean;
  components: Record<string, ComponentState>;
  down: string[];
}

/**
 * Asks every service's grpc.health.v1 for itself and for the store it uses,
 * all at once with one deadline, so the answer comes within that deadline
 * whatever is down.
 */
export async function checkReadiness(clients: Pick<BackendClients, 'health'>, timeoutMs: number): Promise<Readiness> {
  const components: Record<string, ComponentState> = {};
  await Promise.all(
    SERVICE_NAMES.map(async (service) => {
      const client = clients.health[service];
      const store = STORES[service];
      const [self, dependency] = await Promise.all([
        probe(client, LIVENESS, timeoutMs),
        store ? probe(client, store, timeoutMs) : Promise.resolve(undefined),
      ]);
      components[service] = self;
      // A store behind a service that is itself down is unknown, not down: name only the service.
      if (store && self.status === 'up' && dependency && dependency.reason !== 'not configured') components[store] = { ...dependency, via: service };
    }),
  );
  const down = Object.entries(components)
    .filter(([, state]) => state.status === 'down')
    .map(([name]) => name)
    .sort();
  return { ready: down.length === 0, components, down };
}

/**
 * How many times one health question is asked before the answer stands: the
 * health client spreads calls round robin over a service's replicas, and one
 * replica draining in a rolling update (NOT_SERVING) or just lost must not make
 * the whole service look down while another serves (seen on a real cluster:
 * 12 to 34 of 280 readiness checks answered 503 while data's pods rolled).
 * Three reach both replicas of the chart's default two, within one deadline.
 */
export const READINESS_ATTEMPTS = 3;

/** Up if any attempt says SERVING; otherwise the last answer, asked again only while the deadline allows. */
async function probe(client: HealthClient, service: string, timeoutMs: number): Promise<ComponentState> {
  const deadline = Date.now() + timeoutMs;
  let answer = await probeOnce(client, service, timeoutMs);
  for (let attempt = 1; attempt < READINESS_ATTEMPTS && answer.status === 'down' && RETRIED.has(answer.reason!); attempt++) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    answer = await probeOnce(client, service, left);
  }
  return answer;
}

/** What another replica may answer differently; a store that is not configured, or no answer in time, it would not. */
const RETRIED = new Set(['not serving', 'unreachable', 'unknown state']);

type HealthClient = Pick<BackendClients['health'][ServiceName], 'check'>;

async function probeOnce(client: HealthClient, service: string, timeoutMs: number): Promise<ComponentState> {
  try {
    const { status } = await client.check({ service }, { deadlineMs: timeoutMs });
    if (status === SERVING) return { status: 'up' };
    return { status: 'down', reason: status === NOT_SERVING ? 'not serving' : 'unknown state' };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'not_found') return { status: 'down', reason: 'not configured' };
    return { status: 'down', reason: code === 'upstream_timeout' ? 'no answer in time' : 'unreachable' };
  }
}

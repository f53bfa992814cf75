import { health } from '@sandbox/contracts';
import { AppError, GrpcStatus, SERVICE_NAMES, type ServiceName } from '@sandbox/runtime';
import type { BackendClients } from '../../src/clients';
import { checkReadiness, READINESS_ATTEMPTS } from '../../src/readiness';

const { SERVING, NOT_SERVING } = health.HealthCheckResponse_ServingStatus;
type Answer = health.HealthCheckResponse_ServingStatus | AppError;

/**
 * Health clients that answer from a script per service, one answer per call in
 * turn, as the round robin over a service's replicas would; the last answer
 * repeats. Every store question is answered SERVING unless scripted.
 */
function replicas(scripts: Partial<Record<ServiceName, Answer[]>>): { clients: Pick<BackendClients, 'health'>; asked: Record<string, number> } {
  const asked: Record<string, number> = {};
  const client = (name: ServiceName) => ({
    async check({ service }: { service: string }) {
      const key = `${name}:${service}`;
      const script = service === 'liveness' ? (scripts[name] ?? [SERVING]) : [SERVING];
      const answer = script[Math.min(asked[key] ?? 0, script.length - 1)]!;
      asked[key] = (asked[key] ?? 0) + 1;
      if (answer instanceof AppError) throw answer;
      return { status: answer };
    },
  });
  const clients = { health: Object.fromEntries(SERVICE_NAMES.map((name) => [name, client(name)])) } as unknown as Pick<BackendClients, 'health'>;
  return { clients, asked };
}

describe('readiness over replicas', () => {
  it('when one replica of a service is draining and the next serves, then the service is up', async () => {
    const { clients, asked } = replicas({ data: [NOT_SERVING, SERVING] });
    const readiness = await checkReadiness(clients, 1000);
    expect(readiness).toMatchObject({ ready: true, down: [] });
    expect(asked['data:liveness']).toBe(2);
  });

  it('when every answer says NOT_SERVING, then the service is down after the last attempt, named with its reason', async () => {
    const { clients, asked } = replicas({ data: [NOT_SERVING] });
    const readiness = await checkReadiness(clients, 1000);
    expect(readiness).toMatchObject({ ready: false, down: ['data'], components: { data: { status: 'down', reason: 'not serving' } } });
    expect(asked['data:liveness']).toBe(READINESS_ATTEMPTS);
  });

  it('when a replica is unreachable and another serves, then the service is up', async () => {
    const unreachable = new AppError(GrpcStatus.UNAVAILABLE, 'service_unavailable', 'The data service is unavailable.');
    const { clients } = replicas({ oauth: [unreachable, SERVING] });
    expect(await checkReadiness(clients, 1000)).toMatchObject({ ready: true });
  });

  it('when the answer did not come in time, then it is not asked again: the deadline is spent', async () => {
    const late = new AppError(GrpcStatus.DEADLINE_EXCEEDED, 'upstream_timeout', 'The identity service did not answer in time.');
    const { clients, asked } = replicas({ identity: [late, SERVING] });
    expect(await checkReadiness(clients, 1000)).toMatchObject({ ready: false, components: { identity: { status: 'down', reason: 'no answer in time' } } });
    expect(asked['identity:liveness']).toBe(1);
  });
});

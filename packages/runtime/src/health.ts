import type { ServerUnaryCall, sendUnaryData, ServerWritableStream } from '@grpc/grpc-js';
import { health } from '@sandbox/contracts';

const { ServingStatus } = { ServingStatus: health.HealthCheckResponse_ServingStatus };
export { ServingStatus };
type Status = health.HealthCheckResponse_ServingStatus;

/**
 * grpc.health.v1 for one process. It answers for the overall name "" (what a
 * Kubernetes gRPC probe asks), for the service's full proto name, and for each
 * dependency it watches ("mongodb", "redis"), so the gateway can say which
 * part is down.
 */
export class HealthRegistry {
  private readonly statuses = new Map<string, Status>();
  private readonly watchers = new Map<string, Set<ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>>>();

  set(service: string, status: Status): void {
    if (this.statuses.get(service) === status) return;
    this.statuses.set(service, status);
    for (const call of this.watchers.get(service) ?? []) call.write({ status });
  }

  get(service: string): Status | undefined {
    return this.statuses.get(service);
  }

  /** Ends every Watch stream, so shutdown does not wait for them. */
  close(): void {
    for (const calls of this.watchers.values()) for (const call of calls) call.end();
    this.watchers.clear();
  }

  implementation(): health.HealthServer {
    return {
      check: (call: ServerUnaryCall<health.HealthCheckRequest, health.HealthCheckResponse>, callback: sendUnaryData<health.HealthCheckResponse>) => {
        const status = this.statuses.get(call.request.service);
        if (status === undefined) callback({ code: 5 /* NOT_FOUND */, details: `unknown service ${call.request.service}` });
        else callback(null, { status });
      },
      watch: (call: ServerWritableStream<health.HealthCheckRequest, health.HealthCheckResponse>) => {
        const service = call.request.service;
        call.write({ status: this.statuses.get(service) ?? ServingStatus.SERVICE_UNKNOWN });
        const set = this.watchers.get(service) ?? new Set();
        set.add(call);
        this.watchers.set(service, set);
        call.on('cancelled', () => set.delete(call));
      },
    };
  }
}

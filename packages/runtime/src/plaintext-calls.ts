import type { Logger } from './logger';
import { grpcMethodName, grpcServerPlaintextCalls, type Registry } from './metrics';

/** A warning about plaintext calls at most this often: enough to see them go on, not enough to flood the log. */
export const PLAINTEXT_WARNING_INTERVAL_MS = 60_000;

/**
 * What a service in a migration setting (GRPC_TLS=accept-tls or send-tls)
 * records of the calls that came in plaintext, without an identity: each
 * counted by method (metrics.ts, when the service has a registry), and a
 * warning in the log at most once a minute with how many came since the
 * last one. Both tell an operator whether any caller still calls in
 * plaintext, i.e. whether GRPC_TLS=on would refuse someone.
 */
export class PlaintextCalls {
  private unreported = 0;
  private lastWarning = Number.NEGATIVE_INFINITY;
  private readonly counters = new Map<string, { inc(): void }>();

  constructor(
    private readonly logger: Logger,
    private readonly metrics?: { registry: Registry; service: string },
    private readonly now: () => number = Date.now,
  ) {}

  /** One plaintext call of `path` (/sandbox.data.v1.DataService/GetPage). */
  record(path: string): void {
    if (this.metrics) {
      let counter = this.counters.get(path);
      if (!counter) {
        counter = grpcServerPlaintextCalls(this.metrics.registry).labels({ service: this.metrics.service, method: grpcMethodName(path) });
        this.counters.set(path, counter);
      }
      counter.inc();
    }
    this.unreported += 1;
    const now = this.now();
    if (now - this.lastWarning < PLAINTEXT_WARNING_INTERVAL_MS) return;
    this.logger.warn(
      { rpc: path, plaintextCalls: this.unreported, sinceMs: Number.isFinite(this.lastWarning) ? now - this.lastWarning : undefined },
      'calls taken in plaintext, without a caller identity: some caller still runs without mutual TLS (GRPC_TLS=off or accept-tls); GRPC_TLS=on would refuse them',
    );
    this.unreported = 0;
    this.lastWarning = now;
  }
}

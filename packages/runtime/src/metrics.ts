import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MetricsListen } from './config';
import type { Logger } from './logger';

export { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One registry per process, built by its composition root and handed to
 * whatever records (never prom-client's global one, so that a test can run
 * several services in one process), with Node's own process metrics.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * Latency buckets, in seconds, for anything that may wait as long as the
 * playground's timeout route (60 s): an HTTP request, a gRPC call.
 */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** The metric of that name in the registry, or a new one registered there (a second client or server in a process shares it). */
export function counterIn<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return (registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

export function gaugeIn<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Gauge<L> {
  return (registry.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge({ name, help, labelNames, registers: [registry] });
}

export function histogramIn<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
  return (registry.getSingleMetric(name) as Histogram<L> | undefined) ?? new Histogram({ name, help, labelNames, buckets, registers: [registry] });
}

/** Records the calls of one method: each as it starts (in flight), and as it finishes with its status code and duration. */
export interface CallRecorder {
  started(): void;
  finished(code: number, seconds: number): void;
}

/** Where calls of one side (client or server) are counted; `recorder` is asked once per method, not per call. */
export interface CallMetrics {
  recorder(service: string, method: string): CallRecorder;
}

/** Names such as OK, UNAVAILABLE, DEADLINE_EXCEEDED, by code; anything else is UNKNOWN (a bounded label). */
const CODE_NAMES: readonly string[] = Array.from({ length: 17 }, (_, code) => GrpcStatus[code] ?? 'UNKNOWN');
export const grpcCodeName = (code: number): string => CODE_NAMES[code] ?? 'UNKNOWN';

function callMetrics(registry: Registry, side: 'client' | 'server'): CallMetrics {
  const calls = counterIn(
    registry,
    `sandbox_grpc_${side}_calls_total`,
    side === 'client'
      ? 'gRPC calls this process made, by service, method and status code.'
      : 'gRPC calls this service answered, by method and status code (health checks not counted).',
    ['service', 'method', 'code'],
  );
  const duration = histogramIn(
    registry,
    `sandbox_grpc_${side}_call_duration_seconds`,
    side === 'client' ? 'Time from starting a gRPC call to its answer, in seconds.' : 'Time from a call reaching its handler to its answer, in seconds.',
    ['service', 'method'],
    LATENCY_BUCKETS,
  );
  const inFlight = gaugeIn(
    registry,
    `sandbox_grpc_${side}_calls_in_flight`,
    side === 'client'
      ? 'gRPC calls this process has started and not yet seen answered, by service: bounded by its callers, and what a slow service piles up.'
      : 'gRPC calls this service is answering now (health checks not counted).',
    ['service'],
  );
  return {
    recorder(service, method) {
      // Label objects made once per method (and per code as it first occurs), so a call allocates none.
      const timed = { service, method };
      const byCode: Record<string, string>[] = [];
      const running = inFlight.labels({ service });
      running.inc(0); // present at 0 from the start, without resetting what another client of the same service counts

      return {
        started: () => running.inc(),
        finished(code, seconds) {
          running.dec();
          const labels = (byCode[code] ??= { service, method, code: grpcCodeName(code) });
          calls.inc(labels);
          duration.observe(timed, seconds);
        },
      };
    },
  };
}

/** `sandbox_grpc_client_calls_total` and `sandbox_grpc_client_call_duration_seconds`: for promiseClient. */
export const grpcClientMetrics = (registry: Registry): CallMetrics => callMetrics(registry, 'client');
/** `sandbox_grpc_server_calls_total` and `sandbox_grpc_server_call_duration_seconds`: for startGrpcService. */
export const grpcServerMetrics = (registry: Registry): CallMetrics => callMetrics(registry, 'server');

/**
 * `sandbox_grpc_server_plaintext_calls_total`: calls a service took in
 * plaintext while it also takes mutual TLS (GRPC_TLS=accept-tls or
 * send-tls), by method. When it stops growing on every replica, no caller
 * calls in plaintext any more and the release can take the next step to GRPC_TLS=on.
 */
export const grpcServerPlaintextCalls = (registry: Registry): Counter<'service' | 'method'> =>
  counterIn(
    registry,
    'sandbox_grpc_server_plaintext_calls_total',
    'gRPC calls this service took in plaintext, without a client certificate, while migrating to mutual TLS (GRPC_TLS=accept-tls or send-tls), by method.',
    ['service', 'method'],
  );

/** The method's name as the proto spells it (GetPage), from its path (/sandbox.data.v1.DataService/GetPage). */
export const grpcMethodName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** Milliseconds on a monotonic clock, for durations. */
export const monotonicMs = (): number => performance.now();

export interface MetricsServer {
  port: number;
  url: string;
  stop(): Promise<void>;
}

const NOT_FOUND = 'Not found: this port serves only GET /metrics.\n';

/**
 * The metrics listener: its own node:http server on its own port (which the
 * Ingress does not route), serving `GET /metrics` (and HEAD) in Prometheus's
 * text format; every other path is a plain-text 404, so nothing of the API is
 * reachable here.
 */
export async function startMetricsServer(registry: Registry, listen: MetricsListen, logger: Logger): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    if ((q < 0 ? url : url.slice(0, q)) !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(NOT_FOUND) });
      res.end(NOT_FOUND);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Only GET and HEAD are served at /metrics.\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'metrics could not be collected');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('The metrics could not be collected.\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}/metrics`;
  logger.info({ port, url }, 'metrics listening');
  return {
    port,
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        // A scraper keeps its connection open between scrapes: close it rather than wait for it.
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

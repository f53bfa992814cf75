import http from 'node:http';
import { z } from 'zod';
import {
  Counter,
  createLogger,
  createMetricsRegistry,
  grpcClientMetrics,
  grpcCodeName,
  GrpcStatus,
  loadConfig,
  metricsListen,
  metricsVariables,
  Registry,
  startMetricsServer,
  type MetricsServer,
} from '@sandbox/runtime';

const logger = createLogger('test', 'silent');

function get(url: string, method = 'GET'): Promise<{ status: number; type: string; body: string; length?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          body: Buffer.concat(chunks).toString('utf8'),
          length: res.headers['content-length'],
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the metrics listener', () => {
  let registry: Registry;
  let server: MetricsServer;

  beforeAll(async () => {
    registry = createMetricsRegistry();
    new Counter({ name: 'test_things_total', help: 'Things.', labelNames: ['kind'], registers: [registry] }).inc({ kind: 'a' }, 3);
    server = await startMetricsServer(registry, { host: '127.0.0.1', port: 0 }, logger);
  });
  afterAll(async () => server?.stop());

  it('when port 0 is asked for, then it binds a free port and reports it', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/metrics`);
  });

  it("when GET /metrics, then the registry's series in Prometheus's text format, Node's process metrics included", async () => {
    const res = await get(server.url);
    expect(res.status).toBe(200);
    expect(res.type).toBe(registry.contentType);
    expect(res.body).toContain('# TYPE test_things_total counter');
    expect(res.body).toContain('test_things_total{kind="a"} 3');
    expect(res.body).toMatch(/^process_cpu_user_seconds_total /m);
    expect(res.body).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('when HEAD /metrics, then the headers without a body', async () => {
    const res = await get(server.url, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    expect(Number(res.length)).toBeGreaterThan(0);
  });

  it('when a query string is added, then it is still /metrics', async () => {
    expect((await get(`${server.url}?x=1`)).status).toBe(200);
  });

  it.each(['/', '/health', '/metrics/', '/metricsx', '/playground/data'])('when GET %s, then a plain-text 404', async (path) => {
    const res = await get(`http://127.0.0.1:${server.port}${path}`);
    expect(res.status).toBe(404);
    expect(res.type).toMatch(/^text\/plain/);
    expect(res.body).toContain('/metrics');
  });

  it('when POST /metrics, then 405', async () => {
    expect((await get(server.url, 'POST')).status).toBe(405);
  });

  it('when stopped, then the port is closed, even with a scraper keeping its connection open', async () => {
    const other = await startMetricsServer(createMetricsRegistry(), { host: '127.0.0.1', port: 0 }, logger);
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => http.get(other.url, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject));
    await other.stop();
    await expect(get(other.url)).rejects.toThrow(/ECONNREFUSED/);
    agent.destroy();
  });
});

describe('the metrics variables', () => {
  const schema = z.object({ ...metricsVariables('DATA_') });
  const listen = (env: NodeJS.ProcessEnv) => metricsListen(loadConfig(schema, env), 'DATA_');

  it('when the port is unset or empty, then there is no listener', () => {
    expect(listen({})).toBeUndefined();
    expect(listen({ DATA_METRICS_PORT: '' })).toBeUndefined();
  });

  it('when a port is given, then loopback on it unless a host is given; 0 is a port', () => {
    expect(listen({ DATA_METRICS_PORT: '9464' })).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(listen({ DATA_METRICS_PORT: '0', DATA_METRICS_HOST: '0.0.0.0' })).toEqual({ host: '0.0.0.0', port: 0 });
  });

  it('when the port is not one, then one line names the variable', () => {
    expect(() => listen({ DATA_METRICS_PORT: 'ninety' })).toThrow(/^invalid configuration: DATA_METRICS_PORT: must be a port number/);
    expect(() => listen({ DATA_METRICS_PORT: '70000' })).toThrow(/DATA_METRICS_PORT/);
  });

  it("when another service's variable is set, then it is not this one's", () => {
    expect(metricsListen(loadConfig(z.object({ ...metricsVariables('') }), { DATA_METRICS_PORT: '9464' }), '')).toBeUndefined();
  });
});

describe('call metrics', () => {
  it('counts calls by service, method and status name, and times them by service and method', async () => {
    const registry = new Registry();
    const record = grpcClientMetrics(registry).recorder('data', 'GetPage');
    for (let i = 0; i < 4; i++) record.started();
    expect(await registry.metrics()).toContain('sandbox_grpc_client_calls_in_flight{service="data"} 4');
    record.finished(GrpcStatus.OK, 0.002);
    record.finished(GrpcStatus.OK, 0.004);
    record.finished(GrpcStatus.UNAVAILABLE, 0.001);
    const text = await registry.metrics();
    expect(text).toContain('sandbox_grpc_client_calls_in_flight{service="data"} 1');
    expect(text).toContain('sandbox_grpc_client_calls_total{service="data",method="GetPage",code="OK"} 2');
    expect(text).toContain('sandbox_grpc_client_calls_total{service="data",method="GetPage",code="UNAVAILABLE"} 1');
    expect(text).toContain('sandbox_grpc_client_call_duration_seconds_count{service="data",method="GetPage"} 3');
  });

  it('a second set of clients in the same process shares the series instead of failing to register', () => {
    const registry = new Registry();
    const first = grpcClientMetrics(registry).recorder('data', 'GetPage');
    first.started();
    const second = grpcClientMetrics(registry).recorder('data', 'GetPage');
    second.started();
    first.finished(GrpcStatus.OK, 0.001);
    expect(() => second.finished(GrpcStatus.OK, 0.001)).not.toThrow();
    return expect(registry.metrics()).resolves.toContain('sandbox_grpc_client_calls_in_flight{service="data"} 0');
  });

  it('names every status code, and an unknown one UNKNOWN', () => {
    expect(grpcCodeName(GrpcStatus.DEADLINE_EXCEEDED)).toBe('DEADLINE_EXCEEDED');
    expect(grpcCodeName(99)).toBe('UNKNOWN');
  });
});

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { data } from '@sandbox/contracts';
import {
  activeTracing,
  carrierGetter,
  createLogger,
  GRPC_TRANSPORTS,
  invalidArgument,
  promiseClient,
  setActiveTracing,
  startGrpcService,
  unaryHandlers,
  type RunningGrpcService,
} from '@sandbox/runtime';
import { tlsAs } from '@sandbox/testing';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { startSdk } from '../../src/tracing-sdk';

jest.setTimeout(30_000);

const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * Trace context across one gRPC hop, on both transports: the caller's client
 * span goes into the call (the Call message's traceparent on the stream, the
 * metadata on a unary call), and the service's span continues it. Real
 * loopback gRPC in this process, the real SDK, spans caught by its in-memory
 * exporter instead of an OTLP backend (the whole-system suite sends to an
 * OpenTelemetry Collector).
 */
describe('trace context across a call', () => {
  const exporter = new InMemorySpanExporter();
  const lines: Record<string, unknown>[] = [];
  let service: RunningGrpcService;
  const NAME = 'sandbox.data.v1.DataService/GetCatalog';

  beforeAll(async () => {
    // Before the handlers, clients and logger are made: each looks for tracing once, when made.
    setActiveTracing(
      startSdk({ tracesUrl: 'http://127.0.0.1:1/v1/traces', headers: {}, sampler: 'parentbased_always_on', ratio: 1, serviceName: 'test' }, exporter),
    );
    const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const implementation = unaryHandlers<data.DataServiceServer>(
      data.DataServiceService,
      {
        getCatalog: async (_request, context) => {
          context.logger.info('serving the catalog');
          return { bodyJson: Buffer.from('{}') };
        },
        describePack: async () => {
          throw invalidArgument('bad_pack', 'No such pack.');
        },
      },
      logger,
    );
    service = await startGrpcService({
      protoService: 'sandbox.data.v1.DataService',
      definition: data.DataServiceService,
      implementation,
      host: '127.0.0.1',
      port: 0,
      tls: (await tlsAs('data')).tls,
      logger,
      dependencies: [],
    });
  });

  afterAll(async () => {
    await service.stop();
    await activeTracing()?.shutdown();
    setActiveTracing(undefined);
  });

  beforeEach(() => exporter.reset());

  const spansOf = (traceId: string) => exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
  const one = (spans: ReadableSpan[], kind: SpanKind) => {
    const found = spans.filter((span) => span.kind === kind && span.name === NAME);
    expect(found).toHaveLength(1);
    return found[0];
  };

  describe.each(GRPC_TRANSPORTS)('on the %s transport', (transport) => {
    let client: ReturnType<typeof promiseClient<data.DataServiceClient>>;
    beforeAll(async () => {
      client = promiseClient(data.DataServiceClient, data.DataServiceService, `127.0.0.1:${service.port}`, 'data', 5000, await tlsAs('gateway'), { transport });
    });
    afterAll(() => client.close());

    it('when a traced caller calls, then the service span is the child of its client span, in the caller’s trace', async () => {
      const tracing = activeTracing()!;
      const parent = tracing.tracer.startSpan('a request');
      await tracing.withSpan(parent, () => client.getCatalog(data.GetCatalogRequest.fromPartial({}), { requestId: 'req-1' }));
      parent.end();

      const { traceId, spanId } = parent.spanContext();
      const spans = spansOf(traceId);
      const clientSpan = one(spans, SpanKind.CLIENT);
      const serverSpan = one(spans, SpanKind.SERVER);
      expect(clientSpan.parentSpanContext?.spanId).toBe(spanId);
      expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
      // The remote flag: the server's parent came over the wire, not from this process's context.
      expect(serverSpan.parentSpanContext?.isRemote).toBe(true);
      expect(clientSpan.attributes).toMatchObject({
        'rpc.system': 'grpc',
        'rpc.service': 'sandbox.data.v1.DataService',
        'rpc.method': 'GetCatalog',
        'rpc.grpc.status_code': 0,
      });
      expect(serverSpan.attributes).toMatchObject({ 'rpc.method': 'GetCatalog', 'rpc.grpc.status_code': 0 });
      // The handler's log line carries the service span's ids.
      const line = lines.find((l) => l.msg === 'serving the catalog' && l.trace_id === traceId);
      expect(line).toMatchObject({ requestId: 'req-1', span_id: serverSpan.spanContext().spanId });
    });

    it('when the call is made outside a sampled span, then it carries no context, and neither side makes a span', async () => {
      const tracing = activeTracing()!;
      // No active span (background work), then an active span the sampler left out (flags 00).
      await client.getCatalog(data.GetCatalogRequest.fromPartial({}), { requestId: `untraced-${transport}` });
      const unsampled = tracing.tracer.startSpan(
        'unsampled',
        {},
        tracing.extract({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00', tracestate: '' }, carrierGetter),
      );
      expect(unsampled.isRecording()).toBe(false);
      await tracing.withSpan(unsampled, () => client.getCatalog(data.GetCatalogRequest.fromPartial({}), { requestId: `unsampled-${transport}` }));
      expect(exporter.getFinishedSpans()).toEqual([]);
      // The handler's lines carry no trace ids: nothing was traced.
      const served = lines.filter(
        (l) => l.msg === 'serving the catalog' && (l.requestId === `untraced-${transport}` || l.requestId === `unsampled-${transport}`),
      );
      expect(served).toHaveLength(2);
      for (const line of served) expect(line.trace_id).toBeUndefined();
    });

    it('when the service refuses, then both spans carry the status, and only the client span is an error', async () => {
      const tracing = activeTracing()!;
      const parent = tracing.tracer.startSpan('a request');
      await expect(tracing.withSpan(parent, () => client.describePack(data.DescribePackRequest.fromPartial({ pack: 'x' })))).rejects.toMatchObject({
        code: 'bad_pack',
      });
      parent.end();
      const spans = spansOf(parent.spanContext().traceId);
      const clientSpan = spans.find((span) => span.kind === SpanKind.CLIENT)!;
      const serverSpan = spans.find((span) => span.kind === SpanKind.SERVER)!;
      expect(clientSpan.attributes['rpc.grpc.status_code']).toBe(3);
      expect(clientSpan.status.code).toBe(SpanStatusCode.ERROR);
      // A refusal is an answer, not the server's failure (the semantic conventions for gRPC server spans).
      expect(serverSpan.attributes['rpc.grpc.status_code']).toBe(3);
      expect(serverSpan.status.code).not.toBe(SpanStatusCode.ERROR);
      expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    });
  });
});

describe('tracing off', () => {
  it('loads nothing of the SDK: the runtime, started without an endpoint, has no SDK, exporter or instrumentation module in its require cache', () => {
    // A child process with the built runtime, as a service runs it (the unit project runs on sources, where jest's registry is not node's).
    const script = `
      const runtime = require(${JSON.stringify(join(ROOT, 'packages', 'runtime', 'dist', 'index.js'))});
      const started = runtime.startTracing('gateway', {});
      runtime.createLogger('gateway', 'info');
      // The API alone is no exception: prom-client requires it itself (for exemplars), as it did before tracing existed.
      const loaded = Object.keys(require.cache).filter((path) => path.includes('@opentelemetry') && !path.includes('@opentelemetry/api/'));
      console.log(JSON.stringify({ started: started === undefined ? 'off' : 'on', loaded }));`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    expect(JSON.parse(run.stdout)).toEqual({ started: 'off', loaded: [] });
  });
});

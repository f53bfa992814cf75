import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiRequest,
  clientCredentialsToken,
  createApp,
  eventually,
  freePort,
  isolatedMongoUrl,
  rawRequest,
  registerUser,
  requireStoreUrls,
  type RunningSystem,
  startSystem,
} from '@sandbox/testing';

// Two whole systems, one after the other, on a busy 2-core machine, and spans that reach the backend in batches.
jest.setTimeout(300_000);

/** How long spans may take to reach the collector's file (batched every 200 ms here, flushed every 100 ms; a busy machine may take far longer). */
const TRACE_DEADLINE_MS = 60_000;

/**
 * OpenTelemetry traces across the sandbox's processes, read back from a real
 * trace backend nobody here wrote: the OpenTelemetry Collector
 * (scripts/lib/otelcol.sh builds it), its OTLP/HTTP receiver on a free
 * loopback port and its file exporter writing what it received as OTLP JSON,
 * one export request a line. The whole system as `npm start` runs it, on both
 * transports (the trace context rides in the Call message on streams, in
 * metadata on unary calls).
 */

/** An attribute value as OTLP JSON writes it (64-bit integers as strings). */
interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  bytesValue?: string;
  arrayValue?: { values?: OtlpValue[] };
  kvlistValue?: { values?: OtlpAttribute[] };
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpAttribute[];
}
/** One line of the file exporter's output: an ExportTraceServiceRequest in OTLP JSON. */
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}
/** A span as the assertions read it: its resource's service.name, kind, parent and attributes by name; `otlp` is all the backend got. */
interface Span {
  traceId: string;
  id: string;
  name: string;
  service: string;
  kind: string;
  parent?: string;
  tags: Record<string, unknown>;
  otlp: OtlpSpan;
}

/** OTLP's SpanKind enum, by number. */
const KINDS = ['', 'internal', 'server', 'client', 'producer', 'consumer'];

function valueOf(value: OtlpValue | undefined): unknown {
  if (!value) return undefined;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  return value.stringValue ?? value.boolValue ?? value.doubleValue ?? value.bytesValue;
}

function attributesOf(attributes: OtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(attributes.map((attribute) => [attribute.key, valueOf(attribute.value)]));
}

class Collector {
  private constructor(
    private readonly process: ChildProcess,
    private readonly dir: string,
    readonly otlpUrl: string,
  ) {}

  private get file(): string {
    return join(this.dir, 'spans.jsonl');
  }

  static async start(): Promise<Collector> {
    const bin = process.env.OTELCOL_BIN;
    if (!bin)
      throw new Error(
        'OTELCOL_BIN is not set: run `npm test`, which builds the OpenTelemetry Collector (scripts/lib/otelcol.sh), or source scripts/lib/otelcol.sh and ensure_otelcol',
      );
    const otlp = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'otelcol-'));
    // OTLP over HTTP in (the services' exporter speaks nothing else), one file out, flushed every 100 ms rather than every second. The
    // collector's own metrics off: they would listen on 8888, which another run could hold. No gRPC receiver: it would bind a port too.
    const config = `
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlp}
exporters:
  file:
    path: ${join(dir, 'spans.jsonl')}
    format: json
    flush_interval: 100ms
service:
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
`;
    writeFileSync(join(dir, 'config.yaml'), config);
    const child = spawn(bin, [`--config=file:${join(dir, 'config.yaml')}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const collector = new Collector(child, dir, `http://127.0.0.1:${otlp}`);
    // Ready when its receiver answers an empty export (which writes nothing to the file).
    await eventually(
      () =>
        rawRequest(`${collector.otlpUrl}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).then(
          (res) => res.status,
          () => (child.exitCode !== null ? -1 : 0),
        ),
      (status) => status === 200 || status === -1,
      60_000,
      100,
    );
    if (child.exitCode !== null) throw new Error(`otelcol exited: ${stderr}`);
    return collector;
  }

  /** Every span the collector has written so far. A line still being written (no newline yet) is left for the next read. */
  spans(): Span[] {
    const text = existsSync(this.file) ? readFileSync(this.file, 'utf8') : '';
    const lines = text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean);
    return lines.flatMap((line) =>
      ((JSON.parse(line) as OtlpExport).resourceSpans ?? []).flatMap((resourceSpans) => {
        const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
        return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
          (scope.spans ?? []).map((span) => ({
            traceId: span.traceId,
            id: span.spanId,
            name: span.name,
            service,
            kind: KINDS[span.kind ?? 0] ?? '',
            parent: span.parentSpanId || undefined,
            tags: attributesOf(span.attributes),
            otlp: span,
          })),
        );
      }),
    );
  }

  /** The traces, by id, that hold a span of `service` named `operation`, each with all its spans (from every service). */
  traces(service: string, operation: string): Map<string, Span[]> {
    const all = this.spans();
    const ids = new Set(all.filter((span) => span.service === service && span.name === operation).map((span) => span.traceId));
    return new Map([...ids].map((id) => [id, all.filter((span) => span.traceId === id)]));
  }

  async stop(): Promise<void> {
    if (this.process.exitCode === null) {
      const exited = new Promise((resolve) => this.process.once('exit', resolve));
      this.process.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The one span matching, with a message naming what the trace held when it is not there once. */
function only(spans: Span[], what: string, match: (span: Span) => boolean): Span {
  const found = spans.filter(match);
  if (found.length !== 1)
    throw new Error(
      `expected one ${what}, found ${found.length} in:\n${spans.map((s) => `${s.service} ${s.kind} ${s.name} ${s.id} <- ${s.parent}`).join('\n')}`,
    );
  return found[0];
}

let collector: Collector;
beforeAll(async () => {
  collector = await Collector.start();
});
afterAll(async () => collector?.stop());

describe.each(['stream', 'unary'] as const)('tracing on the %s transport', (transport) => {
  // OTEL_SERVICE_NAME names the deployment: every process's service.name gets it as a prefix, so the two runs stay apart in one backend.
  const namespace = `${transport}-run`;
  let system: RunningSystem;
  let app: Awaited<ReturnType<typeof createApp>>;
  let session: string;

  beforeAll(async () => {
    system = await startSystem({
      MONGO_URL: isolatedMongoUrl(`tracing-${transport}`),
      REDIS_URL: requireStoreUrls().redisUrl,
      GRPC_TRANSPORT: transport,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.otlpUrl,
      OTEL_SERVICE_NAME: namespace,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    });
    session = await registerUser(system.baseUrl);
    app = await createApp(system.baseUrl, session, { scopes: ['hr:read'] });
  });
  afterAll(async () => system?.stop());

  /**
   * Polls the collector's file until the trace of the gateway's `operation` holds spans that `complete` accepts
   * and no span's parent is missing: each process exports on its own schedule, so a child (identity's) can
   * reach the collector before its parent (oauth's).
   */
  const traceOf = async (operation: string, complete: (spans: Span[]) => boolean): Promise<{ traceId: string; spans: Span[] }> => {
    const { value } = await eventually(
      async () => {
        const traces = [...collector.traces(`${namespace}-gateway`, operation)];
        if (traces.length !== 1) return { traceId: '', spans: [] as Span[], count: traces.length };
        const [[traceId, spans]] = traces;
        return { traceId, spans, count: 1 };
      },
      (found) =>
        found.count === 1 && complete(found.spans) && found.spans.every((span) => !span.parent || found.spans.some((other) => other.id === span.parent)),
      TRACE_DEADLINE_MS,
      250,
    );
    return value;
  };

  it('when a client asks for a token, then one trace holds gateway → oauth → identity and the MongoDB read, each the child of the last', async () => {
    const token = await clientCredentialsToken(system.baseUrl, app, 'hr:read');
    expect(token.status).toBe(200);
    const service = (name: string) => `${namespace}-${name}`;
    const { traceId, spans } = await traceOf('POST /oauth/token', (all) =>
      all.some((s) => s.service === service('identity') && /mongo/i.test(String(s.tags['db.system'] ?? s.tags['db.system.name'] ?? ''))),
    );

    const gateway = only(spans, 'gateway server span', (s) => s.service === service('gateway') && s.kind === 'server');
    expect(gateway).toMatchObject({ name: 'POST /oauth/token', parent: undefined });
    expect(gateway.tags).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/oauth/token',
      'url.path': '/oauth/token',
      'http.response.status_code': 200,
    });
    const toOAuth = only(spans, 'gateway → oauth client span', (s) => s.service === service('gateway') && s.kind === 'client');
    expect(toOAuth.name).toMatch(/^sandbox\.oauth\.v1\.OAuthService\//);
    expect(toOAuth.parent).toBe(gateway.id);
    const oauth = only(spans, 'oauth server span', (s) => s.service === service('oauth') && s.kind === 'server');
    expect(oauth).toMatchObject({ name: toOAuth.name, parent: toOAuth.id });
    const toIdentity = spans.filter((s) => s.service === service('oauth') && s.kind === 'client' && s.name.startsWith('sandbox.identity.v1.'));
    expect(toIdentity.length).toBeGreaterThan(0);
    for (const call of toIdentity) {
      expect(call.parent).toBe(oauth.id);
      // Each call to identity is answered by an identity span that is its child.
      only(spans, `identity server span of ${call.name}`, (s) => s.service === service('identity') && s.kind === 'server' && s.parent === call.id);
    }
    const identitySpans = new Set(spans.filter((s) => s.service === service('identity') && s.kind === 'server').map((s) => s.id));
    const mongo = spans.filter((s) => s.service === service('identity') && s.kind === 'client' && !s.name.startsWith('sandbox.'));
    expect(mongo.length).toBeGreaterThan(0);
    for (const operation of mongo) expect(identitySpans.has(operation.parent!)).toBe(true);
    // Three processes, one trace.
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set([service('gateway'), service('oauth'), service('identity')]));
    // Nothing secret in any span: the app's secret and the token never appear.
    const body = JSON.stringify(spans);
    expect(body).not.toContain(app.appSecret);
    expect(body).not.toContain(token.json().access_token);

    // The gateway's access line for the request carries the trace's id.
    const lines = system
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const access = lines.find((line) => line.service === 'gateway' && line.msg === 'request' && line.path === '/oauth/token');
    expect(access).toMatchObject({ trace_id: traceId, span_id: gateway.id });
  });

  it('when a client is sent to authorize, then oauth’s Redis write of the code is a span under its call, and names the command only', async () => {
    const redirect = 'http://127.0.0.1:9/callback';
    const uris = await apiRequest(system.baseUrl, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token: session, body: { redirectUris: [redirect] } });
    expect(uris.status).toBe(200);
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const query = {
      response_type: 'code',
      client_id: app.appId,
      redirect_uri: redirect,
      scope: 'hr:read',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const authorize = await rawRequest(`${system.baseUrl}/oauth/authorize?${new URLSearchParams(query)}`);
    expect(authorize.status).toBe(302);
    const code = new URL(String(authorize.headers.location)).searchParams.get('code')!;
    const service = (name: string) => `${namespace}-${name}`;
    const isRedis = (s: Span) => /redis/i.test(String(s.tags['db.system'] ?? s.tags['db.system.name'] ?? ''));
    const { spans } = await traceOf('GET /oauth/authorize', (all) => all.some((s) => s.service === service('oauth') && isRedis(s)));
    const oauthCalls = new Set(spans.filter((s) => s.service === service('oauth') && s.kind === 'server').map((s) => s.id));
    const redis = spans.filter((s) => s.service === service('oauth') && isRedis(s));
    expect(redis.length).toBeGreaterThan(0);
    for (const operation of redis) {
      expect(oauthCalls.has(operation.parent!)).toBe(true);
      expect(String(operation.tags['db.statement'] ?? operation.tags['db.query.text'] ?? '')).toMatch(/^[a-z]+$/i);
    }
    // Neither the code nor the query string reached the backend.
    const body = JSON.stringify(spans);
    expect(body).not.toContain(code);
    expect(body).not.toContain(challenge);
  });

  it('when a batch runs, then each item is a span under the batch request, and its calls under the item', async () => {
    const res = await apiRequest(system.baseUrl, 'POST', '/playground/batch', {
      body: {
        requests: [
          { method: 'POST', path: '/playground/echo?secret=x', body: { n: 1 } },
          { method: 'GET', path: '/health' },
        ],
      },
    });
    expect(res.status).toBe(200);
    const service = (name: string) => `${namespace}-${name}`;
    const { spans } = await traceOf('POST /playground/batch', (all) => all.some((s) => s.service === service('playground') && s.kind === 'server'));
    const batch = only(spans, 'batch request span', (s) => s.service === service('gateway') && s.kind === 'server');
    const echo = only(spans, 'echo item span', (s) => s.name === 'POST /playground/echo');
    const health = only(spans, 'health item span', (s) => s.name === 'GET /health');
    expect(echo.parent).toBe(batch.id);
    expect(health.parent).toBe(batch.id);
    expect(echo.tags).toMatchObject({
      'http.route': '/playground/echo',
      'url.path': '/playground/echo',
      'http.response.status_code': 200,
      'sandbox.batch.index': 0,
    });
    // The echo item's call to the playground service is the item's child, and the service's span the call's.
    const call = only(spans, 'echo item call', (s) => s.kind === 'client' && s.parent === echo.id);
    only(spans, 'playground server span', (s) => s.service === service('playground') && s.kind === 'server' && s.parent === call.id);
    expect(JSON.stringify(spans)).not.toContain('secret=x');
  });
});

describe('tracing at a graceful stop', () => {
  it('when the processes stop, then the spans they still held reach the backend', async () => {
    // Batches every 10 minutes: only the flush at stop can deliver these spans within the test.
    const system = await startSystem({
      MONGO_URL: isolatedMongoUrl('tracing-stop'),
      REDIS_URL: requireStoreUrls().redisUrl,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.otlpUrl,
      OTEL_SERVICE_NAME: 'stopping',
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    try {
      expect((await rawRequest(`${system.baseUrl}/playground/echo?x=1`)).status).toBe(200);
    } finally {
      await system.stop();
    }
    const { value } = await eventually(
      async () => {
        const [spans = []] = collector.traces('stopping-gateway', 'GET /playground/echo').values();
        return new Set(spans.map((span) => span.service));
      },
      (services) => services.has('stopping-gateway') && services.has('stopping-playground'),
      TRACE_DEADLINE_MS,
      250,
    );
    expect([...value].sort()).toEqual(['stopping-gateway', 'stopping-playground']);
  });
});

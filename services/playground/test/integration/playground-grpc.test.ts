import { createHash, randomBytes, type Hash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Metadata, type ClientWritableStream, type ServiceError } from '@grpc/grpc-js';
import { health, playground } from '@sandbox/contracts';
import { GrpcStatus, grpcChannelSecurity, promiseClient, REQUEST_ID_KEY, type PromiseClient, type RunningGrpcService } from '@sandbox/runtime';
import { clientAsAllowedCallers, eventually, refusalOf, testTransport, tlsAs, tlsEnv } from '@sandbox/testing';
import { start } from '../../src/composition';
import { loadPlaygroundConfig } from '../../src/config';
import type { Sleep } from '../../src/domain/delay';
import { timerSleep } from '../../src/grpc/sleep';

jest.setTimeout(120_000);

// A full collection on demand, to measure live memory rather than garbage awaiting collection.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;
const BOUNDARY = '----sandboxBoundary4xq';
const FORM_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** Every wait the service starts, through the real timer: how many are running, and how each ended. */
class WatchedSleep {
  pending = 0;
  finished = 0;
  aborted = 0;
  readonly sleep: Sleep = async (ms, signal) => {
    this.pending++;
    try {
      await timerSleep(ms, signal);
      this.finished++;
    } catch (error) {
      this.aborted++;
      throw error;
    } finally {
      this.pending--;
    }
  };
}

function httpRequest(path: string, rawQuery = '', parts: { method?: string; headers?: Array<[string, string]>; body?: string } = {}): playground.HttpRequest {
  return {
    method: parts.method ?? 'GET',
    path,
    rawQuery,
    headers: (parts.headers ?? []).map(([name, value]) => ({ name, value })),
    body: Buffer.from(parts.body ?? ''),
    remoteAddress: '127.0.0.1',
    baseUrl: 'http://127.0.0.1:8080',
    httpVersion: '1.1',
  };
}

const headerOf = (response: playground.HttpResponse | undefined, name: string) =>
  response?.headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
const jsonOf = (response: playground.HttpResponse | undefined) => JSON.parse(response!.body.toString('utf8'));

interface FormPart {
  name: string;
  filename?: string;
  type?: string;
  /** A field's value, or a file's whole content. */
  data?: string;
  /** A file of this many random bytes, made as it is sent (never held whole). */
  size?: number;
}

/**
 * A multipart/form-data body produced lazily in chunks of exactly 64 KiB (the
 * last one shorter); random file content is hashed as it is made, so the
 * expected sha256 of each file is known without keeping it.
 */
function* multipart(parts: FormPart[], expected: Map<string, { size: number; sha256: string }>): Generator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  function* emit(piece: Buffer): Generator<Buffer> {
    pending.push(piece);
    pendingBytes += piece.length;
    while (pendingBytes >= CHUNK) {
      const joined = Buffer.concat(pending);
      yield joined.subarray(0, CHUNK);
      pending = [joined.subarray(CHUNK)];
      pendingBytes = pending[0].length;
    }
  }
  for (const part of parts) {
    let head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}\r\n`;
    if (part.type) head += `Content-Type: ${part.type}\r\n`;
    yield* emit(Buffer.from(`${head}\r\n`));
    if (part.size !== undefined) {
      const hash: Hash = createHash('sha256');
      for (let left = part.size; left > 0; left -= CHUNK) {
        const piece = randomBytes(Math.min(CHUNK, left));
        hash.update(piece);
        yield* emit(piece);
      }
      expected.set(part.name, { size: part.size, sha256: hash.digest('hex') });
    } else {
      yield* emit(Buffer.from(part.data ?? ''));
    }
    yield* emit(Buffer.from('\r\n'));
  }
  yield* emit(Buffer.from(`--${BOUNDARY}--\r\n`));
  if (pendingBytes > 0) yield Buffer.concat(pending);
}

/** The framing bytes of a form, without file contents: to size a body exactly. */
function framingBytes(parts: FormPart[]): number {
  let total = 0;
  for (const chunk of multipart(
    parts.map((p) => ({ ...p, size: undefined, data: p.size === undefined ? p.data : '' })),
    new Map(),
  )) {
    total += chunk.length;
  }
  return total;
}

interface UploadOutcome {
  error: ServiceError | null;
  response: playground.HttpResponse | undefined;
  sentBytes: number;
}

describe('playground gRPC service (in process, real grpc-js client)', () => {
  let service: RunningGrpcService;
  let client: PromiseClient<playground.PlaygroundServiceClient>;
  let raw: playground.PlaygroundServiceClient;
  const waits = new WatchedSleep();

  beforeAll(async () => {
    service = await start(loadPlaygroundConfig({ PLAYGROUND_GRPC_PORT: '0', LOG_LEVEL: 'silent', ...(await tlsEnv('playground')) }), { sleep: waits.sleep });
    const address = `127.0.0.1:${service.port}`;
    client = await clientAsAllowedCallers(playground.PlaygroundServiceClient, playground.PlaygroundServiceService, address, 'playground', 5000, {
      transport: testTransport(),
    });
    const asGateway = grpcChannelSecurity((await tlsAs('gateway')).tls, 'playground');
    raw = new playground.PlaygroundServiceClient(address, asGateway.credentials, asGateway.options);
  });

  afterAll(async () => {
    client.close();
    raw.close();
    await service.stop();
  });

  /** Streams an upload the way the gateway does: the request first, then the body in chunks, stopping as soon as the answer arrives. */
  async function upload(
    contentType: string | undefined,
    body: Iterable<Buffer>,
    options: { requestId?: string; first?: playground.UploadRequest; onSent?: (sentBytes: number) => void } = {},
  ): Promise<UploadOutcome> {
    const metadata = new Metadata();
    metadata.set(REQUEST_ID_KEY, options.requestId ?? `req-${randomBytes(4).toString('hex')}`);
    let settled = false;
    let call!: ClientWritableStream<playground.UploadRequest>;
    const outcome = new Promise<Omit<UploadOutcome, 'sentBytes'>>((resolve) => {
      call = raw.upload(metadata, { deadline: Date.now() + 110_000 }, (error, response) => {
        settled = true;
        resolve({ error, response: response?.http });
      });
    });
    const headers = contentType === undefined ? [] : [{ name: 'Content-Type', value: contentType }];
    call.write(options.first ?? { part: { $case: 'http', value: { ...httpRequest('/playground/upload', '', { method: 'POST' }), headers } } });
    let sentBytes = 0;
    for (const chunk of body) {
      if (settled) break;
      sentBytes += chunk.length;
      options.onSent?.(sentBytes);
      if (!call.write({ part: { $case: 'chunk', value: chunk } })) {
        await Promise.race([new Promise((resolve) => call.once('drain', resolve)), outcome]);
      }
    }
    if (!settled) call.end();
    return { ...(await outcome), sentBytes };
  }

  it('reports SERVING for "" and its service name', async () => {
    const healthClient = promiseClient(health.HealthClient, health.HealthService, `127.0.0.1:${service.port}`, 'playground', 2000, await tlsAs('gateway'));
    for (const name of ['', 'sandbox.playground.v1.PlaygroundService']) {
      await expect(healthClient.check({ service: name })).resolves.toEqual({ status: health.HealthCheckResponse_ServingStatus.SERVING });
    }
    healthClient.close();
  });

  describe('unary utilities', () => {
    it('when echo gets a JSON object, then the parsed body comes back; when it gets an array, then INVALID_ARGUMENT with the code in the trailer', async () => {
      const { http } = await client.echo({
        http: httpRequest('/playground/echo', 'a=1&a=2', { method: 'POST', headers: [['Content-Type', 'application/json']], body: '{"x":true}' }),
      });
      expect(http!.status).toBe(200);
      expect(jsonOf(http)).toMatchObject({ method: 'POST', query: { a: ['1', '2'] }, body: { x: true }, bodyKind: 'json' });
      await expect(
        refusalOf(client.echo({ http: httpRequest('/playground/echo', '', { method: 'POST', headers: [['Content-Type', 'application/json']], body: '[1]' }) })),
      ).resolves.toEqual({
        status: GrpcStatus.INVALID_ARGUMENT,
        code: 'invalid_body',
        message: 'The JSON body is an array; this endpoint takes a JSON object, e.g. {"name": "value"}.',
      });
    });

    it('when a call carries no HTTP request, then INVALID_ARGUMENT', async () => {
      await expect(refusalOf(client.headers({ http: undefined }))).resolves.toMatchObject({ status: GrpcStatus.INVALID_ARGUMENT, code: 'invalid_request' });
    });

    it('when respond is asked for 418 after 50 ms, then it answers 418 with the delay header', async () => {
      const { http } = await client.respond({ http: httpRequest('/playground/response', 'status=418&delay=50') });
      expect(http!.status).toBe(418);
      expect(headerOf(http, 'X-Delay-Applied-Ms')).toBe('50');
      expect(jsonOf(http)).toMatchObject({ status: 418, statusText: "I'm a Teapot", delayAppliedMs: 50 });
    });

    it('when redirect, headers and cors info are called, then each answers', async () => {
      const hop = (await client.redirect({ http: httpRequest('/playground/redirect', 'n=2&status=308', { method: 'POST', body: 'abc' }) })).http!;
      expect([hop.status, headerOf(hop, 'Location')]).toEqual([308, '/playground/redirect?n=2&status=308&hop=1&trail=POST-3']);
      const headers = (
        await client.headers({
          http: httpRequest('/playground/headers', '', {
            headers: [
              ['X-A', '1'],
              ['x-a', '2'],
            ],
          }),
        })
      ).http!;
      expect(jsonOf(headers).received).toEqual([
        { name: 'X-A', value: '1' },
        { name: 'x-a', value: '2' },
      ]);
      const cors = (
        await client.corsInfo({ http: httpRequest('/playground/cors/info', 'method=PUT&allow_methods=GET', { headers: [['Origin', 'https://a.example']] }) })
      ).http!;
      expect(jsonOf(cors)).toMatchObject({ check: 'preflight', verdict: 'fail', failing: ['method'] });
    });
  });

  describe('delays end with their call', () => {
    it.each([
      ['timeout', '/playground/timeout', 'delay=60000'],
      ['respond', '/playground/response', 'delay=10000'],
    ] as const)('when a %s call is cancelled mid-delay, then the server-side wait ends at once', async (rpc, path, query) => {
      const abortedBefore = waits.aborted;
      const controller = new AbortController();
      const call = client[rpc]({ http: httpRequest(path, query) }, { signal: controller.signal, deadlineMs: 100_000 });
      await eventually(
        async () => waits.pending,
        (pending) => pending === 1,
        10_000,
      );
      const cancelledAt = Date.now();
      controller.abort();
      await expect(refusalOf(call)).resolves.toMatchObject({ status: GrpcStatus.CANCELLED });
      const { elapsedMs } = await eventually(
        async () => waits.pending,
        (pending) => pending === 0,
        10_000,
        5,
      );
      expect(waits.aborted).toBe(abortedBefore + 1);
      // "At once" with room for a busy machine: the wait was 10-60 s; it ended within a few.
      expect(Date.now() - cancelledAt).toBeLessThan(5000);
      expect(elapsedMs).toBeLessThan(5000);
    });

    it('when the deadline passes mid-delay, then the caller gets DEADLINE_EXCEEDED and the server-side wait ends too', async () => {
      const abortedBefore = waits.aborted;
      await expect(refusalOf(client.timeout({ http: httpRequest('/playground/timeout', 'delay=30000') }, { deadlineMs: 300 }))).resolves.toMatchObject({
        status: GrpcStatus.DEADLINE_EXCEEDED,
      });
      await eventually(
        async () => waits.pending,
        (pending) => pending === 0,
        10_000,
        5,
      );
      expect(waits.aborted).toBe(abortedBefore + 1);
    });
  });

  describe('upload (client-streaming)', () => {
    it('when a form with fields and files is streamed, then every part is reported in order with node-identical sha256', async () => {
      const expected = new Map<string, { size: number; sha256: string }>();
      const parts: FormPart[] = [
        { name: 'title', data: 'Numbers' },
        { name: 'sheet', filename: 'q3.xlsx', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', size: 300_001 },
        { name: 'note', data: 'second field' },
      ];
      const result = await upload(FORM_TYPE, multipart(parts, expected));
      expect(result.error).toBeNull();
      expect(result.response!.status).toBe(200);
      expect(jsonOf(result.response)).toMatchObject({
        parts: [
          { type: 'field', name: 'title', value: 'Numbers' },
          {
            type: 'file',
            name: 'sheet',
            filename: 'q3.xlsx',
            contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
            ...expected.get('sheet'),
          },
          { type: 'field', name: 'note', value: 'second field' },
        ],
        files: 1,
        fields: 2,
        bodyBytes: result.sentBytes,
      });
    });

    it('when 25 MiB is uploaded in 64 KiB chunks, then every file is hashed right and memory stays flat', async () => {
      const shape: FormPart[] = [
        { name: 'description', data: 'Three files, 25 MiB in all' },
        { name: 'a', filename: 'a.bin', type: 'application/octet-stream', size: 10 * MiB },
        { name: 'b', filename: 'b.bin', type: 'application/octet-stream', size: 10 * MiB },
        { name: 'c', filename: 'c.bin', type: 'application/octet-stream', size: 0 },
      ];
      shape[3].size = 25 * MiB - 20 * MiB - framingBytes(shape);
      const mb = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;
      const SAMPLE_EVERY = 2 * MiB;
      // Live memory (after a full collection) shows what is held, free of garbage not yet collected. A single
      // sample can catch a transient (a collection that has not yet freed some buffers), so the median is judged.
      const live = () => {
        gc();
        const now = process.memoryUsage();
        return now.heapUsed + now.arrayBuffers;
      };
      // Two rounds: the second shows nothing accumulates from one upload to the next.
      const figures: string[] = [];
      const measured: Array<{ rssGrowth: number; trend: number }> = [];
      const medianOf = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
      for (const round of [1, 2]) {
        const expected = new Map<string, { size: number; sha256: string }>();
        const liveBefore = live();
        const before = process.memoryUsage();
        let peakRss = before.rss;
        const growth: number[] = [];
        const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
        const result = await upload(FORM_TYPE, multipart(shape, expected), {
          // After every SAMPLE_EVERY bytes sent: what client and server hold between them at that moment. (Each
          // sample is a full collection of the jest worker's heap: one a MiB made this test take 20 s.)
          onSent: (sent) => {
            if (sent % SAMPLE_EVERY === 0) growth.push(live() - liveBefore);
          },
        });
        clearInterval(sampler);
        const after = process.memoryUsage();
        peakRss = Math.max(peakRss, after.rss);

        expect(result.error).toBeNull();
        expect(result.sentBytes).toBe(25 * MiB);
        const answer = jsonOf(result.response);
        expect(answer.bodyBytes).toBe(25 * MiB);
        expect(answer.parts.slice(1)).toEqual(
          ['a', 'b', 'c'].map((name) => ({ type: 'file', name, filename: `${name}.bin`, contentType: 'application/octet-stream', ...expected.get(name) })),
        );
        const sorted = [...growth].sort((x, y) => x - y);
        const median = medianOf(growth);
        figures.push(
          `round ${round}: RSS ${mb(before.rss)} -> peak ${mb(peakRss)} (+${mb(peakRss - before.rss)}) -> after ${mb(after.rss)} MiB; ` +
            `live heap+buffers after each ${mb(SAMPLE_EVERY)} MiB sent: median +${mb(median)} MiB, max +${mb(sorted.at(-1)!)} MiB over ${growth.length} samples, ` +
            `median step ${mb(medianOf(growth.slice(1).map((value, i) => value - growth[i])))} MiB`,
        );
        // What grows with the bytes sent: the typical step from one sample to the next.
        const steps = growth.slice(1).map((value, i) => value - growth[i]);
        measured.push({ rssGrowth: peakRss - before.rss, trend: medianOf(steps) });
      }
      console.log(`25 MiB upload, 400 chunks of 64 KiB, client and server in one process:\n${figures.join('\n')}`);
      // Holding the body would grow live memory by 1 MiB per MiB sent: every step between samples about 2 MiB. What is
      // merely in flight (flow-control windows, a chunk being hashed) is bounded however far the sender runs ahead, a
      // level: its steps are about 0. The process is shared with the rest of the suite, so the level jumps now and
      // then (a collection freeing an earlier test's buffers: -9 MiB, +11 MiB seen on a busy machine); a jump moves one
      // step, not the median step. Judging the level itself (6 MiB) failed CI; so did halves of it.
      for (const round of measured) {
        expect(round.rssGrowth).toBeLessThan(64 * MiB);
        expect(round.trend).toBeLessThan(SAMPLE_EVERY / 4);
      }
    });

    it('when a file is larger than 10 MiB, then 413 file_too_large in the error shape with the request id, and the rest is never read', async () => {
      const result = await upload(FORM_TYPE, multipart([{ name: 'big', filename: 'big.bin', size: 16 * MiB }], new Map()), { requestId: 'upload-413-file' });
      expect(result.error).toBeNull();
      expect(result.response!.status).toBe(413);
      expect(headerOf(result.response, 'Content-Type')).toBe('application/json; charset=utf-8');
      expect(jsonOf(result.response)).toEqual({
        error: {
          code: 'file_too_large',
          message: 'The file part "big" ("big.bin") is larger than the limit of 10 MiB per file.',
          requestId: 'upload-413-file',
        },
      });
      expect(result.sentBytes).toBeLessThan(16 * MiB);
    });

    it('when the request is larger than 25 MiB, then 413 body_too_large, and the rest is never read', async () => {
      const parts = [1, 2, 3].map((i) => ({ name: `f${i}`, filename: `${i}.bin`, size: 9 * MiB }));
      const result = await upload(FORM_TYPE, multipart(parts, new Map()));
      expect(result.response!.status).toBe(413);
      expect(jsonOf(result.response).error).toMatchObject({ code: 'body_too_large', message: 'The upload is larger than the limit of 25 MiB per request.' });
      expect(result.sentBytes).toBeLessThan(27 * MiB);
    });

    it('when the form has 21 parts, then 413 too_many_parts', async () => {
      const parts = Array.from({ length: 21 }, (_, i) => ({ name: `p${i}`, data: 'v' }));
      const result = await upload(FORM_TYPE, multipart(parts, new Map()));
      expect(result.response!.status).toBe(413);
      expect(jsonOf(result.response).error.code).toBe('too_many_parts');
      const twenty = await upload(FORM_TYPE, multipart(parts.slice(0, 20), new Map()));
      expect(twenty.response!.status).toBe(200);
    });

    it('when a plain field is over 64 KiB, then 413 field_too_large', async () => {
      const result = await upload(FORM_TYPE, multipart([{ name: 'essay', data: 'x'.repeat(70_000) }], new Map()));
      expect([result.response!.status, jsonOf(result.response).error.code]).toEqual([413, 'field_too_large']);
    });

    it.each([
      [
        'the closing boundary is missing',
        FORM_TYPE,
        [Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n`)],
        'malformed_multipart',
      ],
      ['a part header is garbage', FORM_TYPE, [Buffer.from(`--${BOUNDARY}\r\nno colon here\r\n\r\nx\r\n--${BOUNDARY}--\r\n`)], 'malformed_multipart'],
      ['the Content-Type is JSON', 'application/json', [Buffer.from('{}')], 'not_multipart'],
      ['there is no Content-Type', undefined, [Buffer.from('x')], 'not_multipart'],
      ['the boundary is missing', 'multipart/form-data', [Buffer.from('x')], 'malformed_multipart'],
    ])('when %s, then INVALID_ARGUMENT (400) with code %s', async (_case, type, body, code) => {
      const result = await upload(type, body);
      expect(result.error?.code).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect(result.error?.metadata.get('error-code')).toEqual([code]);
      expect(result.error?.details).toMatch(/\.$/);
    });

    it('when the first message is a chunk, then INVALID_ARGUMENT invalid_request', async () => {
      const result = await upload(FORM_TYPE, [], { first: { part: { $case: 'chunk', value: Buffer.from('x') } } });
      expect(result.error?.code).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect(result.error?.metadata.get('error-code')).toEqual(['invalid_request']);
    });

    it('when the caller cancels mid-upload, then the service drops it and serves the next one', async () => {
      const metadata = new Metadata();
      const failed = new Promise<ServiceError | null>((resolve) => {
        const call = raw.upload(metadata, (error) => resolve(error));
        call.write({
          part: {
            $case: 'http',
            value: { ...httpRequest('/playground/upload', '', { method: 'POST' }), headers: [{ name: 'Content-Type', value: FORM_TYPE }] },
          },
        });
        call.write({ part: { $case: 'chunk', value: Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\n`) } });
        call.write({ part: { $case: 'chunk', value: randomBytes(CHUNK) } }, () => call.cancel());
      });
      expect((await failed)?.code).toBe(GrpcStatus.CANCELLED);
      const next = await upload(FORM_TYPE, multipart([{ name: 'ok', data: 'yes' }], new Map()));
      expect(next.response!.status).toBe(200);
    });
  });
});

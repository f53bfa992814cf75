import type { OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { playground } from '@sandbox/contracts';
import type { GatewayDeps } from '../../deps';
import type { RouteContext } from '../../http/context';
import { inputOf } from '../../http/contract';
import { badRequest } from '../../http/errors';
import { json, type Reply } from '../../http/reply';
import { routeOf, type Route, type RouteSpec } from '../../http/route';
import { BATCH } from './batch-runner';
import { LAB_CORS } from './cors-lab';
import { contracts, CORS_PREFLIGHTED_NOTE, CORS_SIMPLE_NOTE, DELAY_CAPS, UPLOAD_MAX_BYTES } from './http-practice-contracts';

/**
 * Every row here is for http (http/route-family.ts). None needs a
 * credential, but a request may name its app with one (Route.identifies), so
 * that it counts for the app's HTTP exercises (docs/exercises.md).
 */
const route = (spec: RouteSpec) => routeOf('http')({ identifies: ['api_key_header', 'api_key_query', 'bearer'], ...spec });

/** How long a service may take beyond the delay it was asked for. */
const DELAY_MARGIN_MS = 5000;
const ANY_METHOD = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The request as the playground service reads it: everything as sent, headers in order with their original case. */
export function httpRequestOf(ctx: RouteContext, body: Uint8Array = new Uint8Array()): playground.HttpRequest {
  const raw = ctx.request.rawHeaders;
  const headers: playground.Header[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) headers.push({ name: raw[i], value: raw[i + 1] });
  return {
    method: ctx.method,
    path: ctx.path,
    rawQuery: ctx.rawQuery,
    headers,
    body: Buffer.from(body),
    remoteAddress: ctx.clientAddress,
    baseUrl: ctx.baseUrl,
    httpVersion: ctx.request.httpVersion ?? '1.1',
  };
}

/** The playground's answer as it is: status, headers (repeated names as lists) and body. */
export function replyOf(response: playground.HttpResponse | undefined): Reply {
  if (!response) throw new Error('the playground answered without a response');
  const headers: OutgoingHttpHeaders = {};
  for (const { name, value } of response.headers) {
    const existing = headers[name];
    headers[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [String(existing)]), value];
  }
  const body = response.body.length ? response.body : undefined;
  if (body && headers['Content-Length'] === undefined && headers['content-length'] === undefined) headers['Content-Length'] = body.length;
  return { status: response.status, headers, body };
}

/** The deadline of a delayed call: the wait asked for (never past the cap), plus a margin. */
const delayDeadline = (delayMs: number, cap: number) => Math.min(delayMs, cap) + DELAY_MARGIN_MS;

export function httpPracticeRoutes(deps: GatewayDeps): Route[] {
  const bytes = (ctx: RouteContext) => (ctx.body as Buffer | undefined) ?? new Uint8Array();

  return [
    route({
      methods: ANY_METHOD,
      path: '/playground/echo',
      summary: 'Reflects the method, the query (repeated keys as lists), the content type and the parsed body.',
      body: 'raw',
      contract: contracts.echo,
      handler: async (ctx) => replyOf((await deps.clients.playground.echo({ http: httpRequestOf(ctx, bytes(ctx)) }, ctx.call())).http),
    }),
    route({
      methods: 'POST',
      path: '/playground/upload',
      summary: 'multipart/form-data, streamed: reports each file (name, type, size, sha256) and field. 10 MiB a file, 25 MiB in all, 20 parts.',
      body: 'stream',
      bodyLimit: UPLOAD_MAX_BYTES,
      contract: contracts.upload,
      handler: (ctx) => uploadStream(ctx, deps),
    }),
    route({
      methods: ANY_METHOD,
      path: '/playground/response',
      summary: `Answers query status (100-599) after query delay (ms, at most ${DELAY_CAPS.response}), with query body echoed.`,
      body: 'raw',
      contract: contracts.respond,
      slow: (ctx) => inputOf(ctx, contracts.respond).query.delay > 0,
      slowWhen: 'with a delay',
      handler: async (ctx) => {
        const deadline = delayDeadline(inputOf(ctx, contracts.respond).query.delay, DELAY_CAPS.response);
        return replyOf((await deps.clients.playground.respond({ http: httpRequestOf(ctx, bytes(ctx)) }, ctx.call(deadline))).http);
      },
    }),
    route({
      methods: 'GET',
      path: '/playground/timeout',
      summary: `Waits query delay (ms, default 1000, at most ${DELAY_CAPS.timeout}), then answers 200.`,
      contract: contracts.timeout,
      slow: () => true,
      handler: async (ctx) => {
        const { delay } = inputOf(ctx, contracts.timeout).query;
        ctx.fact('delay_ms', String(delay)); // for the timeout exercise (docs/exercises.md)
        const deadline = delayDeadline(delay, DELAY_CAPS.timeout);
        return replyOf((await deps.clients.playground.timeout({ http: httpRequestOf(ctx) }, ctx.call(deadline))).http);
      },
    }),
    route({
      methods: ANY_METHOD,
      path: '/playground/redirect',
      summary: 'A chain of n (1-10) redirects with status 301, 302, 307 or 308, ending in 200 with the trail and the method and body that arrived.',
      body: 'raw',
      contract: contracts.redirect,
      handler: async (ctx) => {
        noteRedirect(ctx, inputOf(ctx, contracts.redirect).query);
        return replyOf((await deps.clients.playground.redirect({ http: httpRequestOf(ctx, bytes(ctx)) }, ctx.call())).http);
      },
    }),
    route({
      methods: 'GET',
      path: '/playground/headers',
      summary: 'The request headers exactly as received (case, order, duplicates), beside a normalised map.',
      contract: contracts.headers,
      handler: async (ctx) => replyOf((await deps.clients.playground.headers({ http: httpRequestOf(ctx) }, ctx.call())).http),
    }),
    route({
      methods: 'GET',
      path: '/playground/cors/info',
      summary: 'Describes the request origin, and which CORS check a browser will make for query method and headers, and which would fail.',
      cors: LAB_CORS,
      contract: contracts.corsInfo,
      handler: async (ctx) => replyOf((await deps.clients.playground.corsInfo({ http: httpRequestOf(ctx) }, ctx.call())).http),
    }),
    route({
      methods: 'GET',
      path: '/playground/cors/simple',
      summary: 'A simple GET, allowed without a preflight; the origin is reflected (steerable, see cors/info).',
      cors: LAB_CORS,
      contract: contracts.corsSimple,
      handler: (ctx) => json({ cors: 'simple', origin: ctx.headers.origin ?? null, note: CORS_SIMPLE_NOTE }),
    }),
    route({
      methods: 'POST',
      path: '/playground/cors/preflight',
      summary: 'A JSON object body: its Content-Type makes a browser send a preflight OPTIONS first (steerable, see cors/info).',
      cors: LAB_CORS,
      body: 'json',
      contract: contracts.corsPreflight,
      handler: (ctx) =>
        json({
          cors: 'preflighted',
          origin: ctx.headers.origin ?? null,
          received: inputOf(ctx, contracts.corsPreflight).body,
          note: CORS_PREFLIGHTED_NOTE,
        }),
    }),
    route({
      methods: 'POST',
      path: '/playground/batch',
      summary: `JSON {requests: [{method, path, body?, headers?}]} (at most ${BATCH.maxItems}): each run through this API in order, one ${BATCH.budgetMs / 1000} s budget; answers an array of results, in order.`,
      body: 'json',
      contract: contracts.batch,
      slow: () => true,
      handler: (ctx) => deps.runBatch(ctx),
    }),
  ];
}

/**
 * Streams the body to the playground as it arrives, never buffering it: the
 * first message carries the request, each later one a chunk. When the service
 * can take no more, the gateway stops reading the socket until it can. The
 * same chunks go through a multipart parser here too (busboy, files
 * discarded unread), so each plain field passes the production-credential
 * guard as it arrives, and a match ends the upload before any summary.
 */
async function uploadStream(ctx: RouteContext, deps: GatewayDeps): Promise<Reply> {
  const type = ctx.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(type)) {
    throw badRequest('not_multipart', `Send multipart/form-data (e.g. curl -F file=@photo.jpg); this request's Content-Type is ${type || 'missing'}.`);
  }
  const call = deps.clients.playground.clientStream<playground.UploadRequest, playground.UploadResponse>('upload', ctx.call(60_000));
  let answered = false;
  call.response.then(
    () => (answered = true),
    () => (answered = true),
  );
  const fields = deps.screenFields(ctx);
  call.write({ part: { $case: 'http', value: httpRequestOf(ctx) } });
  const body = ctx.body as Readable;
  try {
    for await (const chunk of body) {
      fields.write(chunk as Buffer);
      if (answered) break; // the service answered early (a limit): stop reading
      if (!call.write({ part: { $case: 'chunk', value: chunk as Buffer } })) await Promise.race([call.drained(), call.response.catch(() => undefined)]);
    }
    fields.end();
    call.end();
  } catch (error) {
    call.cancel();
    throw error;
  }
  const { http } = await call.response;
  if (http?.status === 200) noteUploadHash(ctx, http.body);
  const answer = replyOf(http);
  // A body the service stopped reading is not drained: the connection closes after the answer.
  if (!body.readableEnded) answer.headers.Connection = 'close';
  return answer;
}

/**
 * Facts of a request in a redirect chain, for the exercises
 * (docs/exercises.md): the chain's status, whether this is its last request
 * (hop = n: answered 200), and the method it arrived with.
 */
function noteRedirect(ctx: RouteContext, query: { n: number; hop: number; status: number }): void {
  ctx.fact('redirect_status', String(query.status));
  ctx.fact('redirect_method', ctx.method);
  if (query.hop === query.n) ctx.fact('redirect_end', 'true');
}

/**
 * The upload exercise's fact (docs/exercises.md): when the form has a field
 * named sha256, whether it is the SHA-256 the service computed over one of
 * its file parts (lower-case hex, as sha256sum prints it).
 */
function noteUploadHash(ctx: RouteContext, answer: Uint8Array): void {
  let parts: { type?: string; name?: string; value?: string; sha256?: string }[];
  try {
    parts = (JSON.parse(Buffer.from(answer).toString('utf8')) as { parts?: typeof parts }).parts ?? [];
  } catch {
    return;
  }
  const sent = parts
    .find((part) => part.type === 'field' && part.name === 'sha256')
    ?.value?.trim()
    .toLowerCase();
  if (sent === undefined) return;
  ctx.fact('sha256_match', String(parts.some((part) => part.type === 'file' && part.sha256 === sent)));
}

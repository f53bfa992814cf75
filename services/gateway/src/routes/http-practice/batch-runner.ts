import { activeTracing, apiErrorBody, AppError, endHttpSpan, GrpcStatus, quoteInput, startHttpSpan } from '@sandbox/runtime';
import { RouteContext, type EdgeOptions } from '../../http/context';
import type { Dispatch } from '../../http/dispatch';
import { badRequest } from '../../http/errors';
import { inboundRequest } from '../../http/inbound';
import { json, type Reply } from '../../http/reply';
import { UNMATCHED, type OnRequestFinished } from '../../http/server';

/** Limits of POST /playground/batch (the spec leaves them open; docs/http-practice.md). */
export const BATCH = { maxItems: 20, budgetMs: 60_000, path: '/playground/batch' } as const;

/**
 * What a batch's answer says about the batch itself, beside its array of
 * results (the spec: "returns an array of results", so the body is that
 * array and nothing else): the budget the items shared, and how they ran.
 */
export const BATCH_HEADERS = {
  budget: 'X-Batch-Budget-Ms',
  order: 'X-Batch-Order',
} as const;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** An item's fields; any other is refused by name, as every JSON body's unknown fields are (a misspelt "headers" would otherwise send the item without its credential). */
const ITEM_FIELDS = ['method', 'path', 'headers', 'body'];

interface Item {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

type ItemResult = { status: number; headers: Record<string, string | string[]>; body: unknown };

/**
 * Runs a batch's items through the gateway's own route table, in process:
 * the same dispatch, auth, guard, limits and request logs as a request from
 * a socket, and no outbound connection of any kind. Items run in order, one
 * after another (a later item may depend on an earlier one's effect, and the
 * budget is simple to share); each gets what is left of one 60 s budget as
 * its deadline, and an item that runs out answers 504. A failing item never
 * fails the batch.
 */
export function createBatchRunner(dispatch: Dispatch, edge: EdgeOptions, onFinished: OnRequestFinished) {
  // Tracing started before the composition made this runner (process-main.ts), or never.
  const tracing = activeTracing();
  return async (ctx: RouteContext): Promise<Reply> => {
    const requests = (ctx.body as { requests?: unknown }).requests;
    if (!Array.isArray(requests)) throw badRequest('invalid_body', 'Send {"requests": [{"method": "GET", "path": "/health"}, …]}: requests must be an array.');
    if (requests.length > BATCH.maxItems) throw badRequest('too_many_requests', `A batch holds at most ${BATCH.maxItems} requests (got ${requests.length}).`);
    const endsAt = Date.now() + BATCH.budgetMs;
    const results: ItemResult[] = [];
    for (const [index, raw] of requests.entries()) {
      let item: Item;
      try {
        item = itemOf(raw, index);
      } catch (error) {
        results.push(refusedItem(error as AppError, ctx.requestId));
        continue;
      }
      if (Date.now() >= endsAt) {
        results.push(
          refusedItem(
            new AppError(GrpcStatus.DEADLINE_EXCEEDED, 'batch_budget_exhausted', `The batch's ${BATCH.budgetMs / 1000} s budget ran out before this request.`),
            ctx.requestId,
            504,
          ),
        );
        continue;
      }
      const itemCtx = new RouteContext(
        inboundRequest({
          method: item.method,
          url: item.path,
          headers: { ...whereItCame(ctx, item.headers), ...item.headers },
          body: item.body,
          remoteAddress: ctx.clientAddress,
          encrypted: ctx.request.socket?.encrypted,
        }),
        edge,
        (abort) => ctx.signal.addEventListener('abort', abort, { once: true }),
      );
      itemCtx.budgetEndsAt = endsAt;
      itemCtx.batch = ctx;
      // In a traced request, each item is a span of its own under the batch request's, and its calls are the item's children.
      const traced = tracing?.recording() ? { tracing, span: startHttpSpan(tracing, item.method, 'batch item', tracing.active()) } : undefined;
      const reply = traced ? await traced.tracing.withSpan(traced.span, () => dispatch(itemCtx)) : await dispatch(itemCtx);
      if (traced) {
        traced.span.setAttribute('sandbox.batch.index', index);
        const path = itemCtx.withheldPath ? '(withheld)' : itemCtx.path;
        endHttpSpan(traced.tracing, traced.span, reply.status, path, itemCtx.route?.path ?? UNMATCHED, item.method);
      }
      onFinished(itemCtx, reply.status);
      results.push(await resultOf(reply));
    }
    return json(results, 200, { [BATCH_HEADERS.budget]: String(BATCH.budgetMs), [BATCH_HEADERS.order]: 'sequential' });
  };
}

/**
 * What an item inherits of the batch request: only where it came to (Host,
 * and the proxy's X-Forwarded-* that TRUST_PROXY honours), unless the item
 * sets them, so a link an item's answer builds (a data page's next, an
 * echo's url) points where the batch went, not at localhost. Everything else
 * an item sends is its own.
 */
const ADDRESS_HEADERS = ['host', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-prefix', 'x-forwarded-port'] as const;

function whereItCame(ctx: RouteContext, own: Record<string, string>): Record<string, string> {
  const set = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  const inherited: Record<string, string> = {};
  for (const name of ADDRESS_HEADERS) {
    const value = ctx.headers[name];
    if (typeof value === 'string' && !set.has(name)) inherited[name] = value;
  }
  return inherited;
}

function itemOf(raw: unknown, index: number): Item {
  const where = `requests[${index}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest('invalid_item', `${where} must be an object with method and path.`);
  const unknown = Object.keys(raw).filter((field) => !ITEM_FIELDS.includes(field));
  if (unknown.length) {
    throw badRequest(
      'invalid_item',
      `${where} has the unknown field${unknown.length === 1 ? '' : 's'} ${unknown
        .slice(0, 5)
        .map((name) => quoteInput(name))
        .join(', ')}; an item accepts ${ITEM_FIELDS.join(', ')}.`,
    );
  }
  const { method, path, headers, body } = raw as Record<string, unknown>;
  if (typeof method !== 'string' || !METHODS.has(method.toUpperCase()))
    throw badRequest('invalid_item', `${where}.method must be one of ${[...METHODS].join(', ')}.`);
  if (typeof path !== 'string') throw badRequest('invalid_item', `${where}.path must be a string such as "/health".`);
  checkPath(path, where);
  const itemHeaders: Record<string, string> = {};
  if (headers !== undefined) {
    if (typeof headers !== 'object' || headers === null || Array.isArray(headers))
      throw badRequest('invalid_item', `${where}.headers must be an object of strings.`);
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(value))
        throw badRequest('invalid_item', `${where}.headers.${name} must be a valid header with a string value.`);
      itemHeaders[name] = value;
    }
  }
  const hasType = Object.keys(itemHeaders).some((name) => name.toLowerCase() === 'content-type');
  if (body === undefined) return { method: method.toUpperCase(), path, headers: itemHeaders };
  if (typeof body === 'string')
    return { method: method.toUpperCase(), path, headers: hasType ? itemHeaders : { ...itemHeaders, 'Content-Type': 'text/plain; charset=utf-8' }, body };
  return {
    method: method.toUpperCase(),
    path,
    headers: hasType ? itemHeaders : { ...itemHeaders, 'Content-Type': 'application/json' },
    body: Buffer.from(JSON.stringify(body)),
  };
}

/** A relative path on this service, nothing that could leave it or climb out of it, and no batch inside a batch. */
function checkPath(path: string, where: string): void {
  const pathOnly = path.split('?')[0];
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\') || path.length > 2048) {
    throw badRequest('invalid_path', `${where}.path must be a path on this service, such as "/playground/echo?x=1" (not a URL, not starting with //).`);
  }
  const segments = pathOnly.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
  if (segments.some((segment) => segment === '.' || segment === '..' || segment.includes('/')))
    throw badRequest('invalid_path', `${where}.path must not contain . or .. segments.`);
  if (pathOnly.replace(/\/+$/, '') === BATCH.path) throw badRequest('nested_batch', `${where} is a batch: a batch cannot contain another.`);
}

function refusedItem(error: AppError, requestId: string, status = 400): ItemResult {
  return { status, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: apiErrorBody(error.code, error.message, requestId) };
}

/** An item's answer as data: its JSON body parsed, other text as text. */
async function resultOf(reply: Reply): Promise<ItemResult> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.map(String) : String(value);
  let bytes: Buffer | undefined = reply.body === undefined ? undefined : Buffer.from(reply.body);
  if (reply.stream) {
    const chunks: Buffer[] = [];
    for await (const chunk of reply.stream) chunks.push(Buffer.from(chunk as Buffer));
    bytes = Buffer.concat(chunks);
  }
  const text = bytes?.toString('utf8');
  const type = String(reply.headers['Content-Type'] ?? reply.headers['content-type'] ?? '');
  let body: unknown = text ?? null;
  if (text && /json/i.test(type)) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: reply.status, headers, body };
}

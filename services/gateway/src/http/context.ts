import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Cancellation, type CallOptionsLite, type CancelSignal } from '@sandbox/runtime';
import type { Input } from './contract';
import type { Credential, SchemeName } from './credential';
import { badRequest } from './errors';
import { publicBaseUrl, type PublicUrlOptions } from './public-url';
import type { LimitItem } from './rate-limit-fields';
import type { Route } from './route';

/** A caller-supplied id is kept only when it is short and plain, so it is safe in logs and headers. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A request as the dispatcher needs it. Node's IncomingMessage is one; a
 * batch item or a test builds one from a readable of its body.
 */
export interface InboundRequest extends Readable {
  method?: string;
  /** Origin-form target: path and query, as sent. */
  url?: string;
  headers: IncomingHttpHeaders;
  /** Names and values in the order received, original case, duplicates kept. */
  rawHeaders: string[];
  socket: { remoteAddress?: string; encrypted?: boolean } | null;
  httpVersion?: string;
}

/** What the dispatcher is configured with that each request may need. */
export interface EdgeOptions extends PublicUrlOptions {
  grpcDeadlineMs: number;
  bodyLimit: number;
}

/**
 * Everything one request's handler may know: the request, its route and
 * parameters, the credential it authenticated with, its parsed body, and
 * what its service calls carry (request id, deadline, cancellation). Parsed
 * parts are computed once, on first use, so the data page pays only for what
 * it reads.
 */
export class RouteContext {
  readonly requestId: string;
  readonly startedAt = process.hrtime.bigint();
  readonly method: string;
  /** Path without the query string, as sent (still percent-encoded). */
  readonly path: string;
  /** The query string without '?', as sent. */
  readonly rawQuery: string;
  route?: Route;
  params: Record<string, string> = {};
  /** Set once the route's auth scheme accepted the request. */
  credential?: Credential;
  /**
   * The app a request names without having authenticated as it (an OAuth
   * client_id or consumer key), so that its request log shows the attempt,
   * refusals included.
   */
  logAs?: { appId: string; style: SchemeName };
  /** Why the request was refused, in the rule's words: shown in the app's request log. */
  failure?: string;
  /**
   * What this request showed that its method, path and status do not say
   * (docs/exercises.md, "Facts": grant=client_credentials...), sent with its
   * request log entry for identity to judge exercises by; never logged.
   */
  facts?: Record<string, string>;
  /** The path held a live secret of another service: logs show a placeholder instead. */
  withheldPath = false;
  /** The body, read as the route's body mode says (body.ts). */
  body?: unknown;
  /** The request as the route's contract validated it (contract.ts), before its handler runs. */
  input?: Input;
  /** The batch this request is an item of: the item comes from the batch's address, and runs inside its slow-request slot. */
  batch?: RouteContext;
  /** The fair-share budgets this request spent (fair-share/), written on its answer as the RateLimit fields. */
  rateLimits?: LimitItem[];
  private parsedQuery?: URLSearchParams;
  private cancellation?: Cancellation;
  private base?: string;

  constructor(
    readonly request: InboundRequest,
    private readonly options: EdgeOptions,
    /** Calls `abort` if the client goes away before the answer is complete. */
    private readonly onClientGone: (abort: () => void) => void,
  ) {
    const incoming = request.headers['x-request-id'];
    this.requestId = typeof incoming === 'string' && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
    this.method = request.method ?? 'GET';
    const url = request.url ?? '/';
    const q = url.indexOf('?');
    this.path = q < 0 ? url : url.slice(0, q);
    this.rawQuery = q < 0 ? '' : url.slice(q + 1);
  }

  get headers(): IncomingHttpHeaders {
    return this.request.headers;
  }

  /** The query string, parsed once. */
  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }

  /** A query parameter given at most once; `?page=1&page=2` is refused by name instead of silently picking one. */
  singleParam(name: string): string | undefined {
    const values = this.query.getAll(name);
    if (values.length > 1) throw badRequest('invalid_parameter', `${name} must be given once.`);
    return values[0];
  }

  /** The absolute base that links in answers start with (public-url.ts). */
  get baseUrl(): string {
    return (this.base ??= publicBaseUrl(this.request, this.options));
  }

  /**
   * A path (or path and query) of this request as the client sent it, which
   * is what it signed (HMAC's path, Digest's uri, OAuth 1.0a's base string
   * URI): behind a proxy that strips a prefix (/sandbox, said by
   * X-Forwarded-Prefix with TRUST_PROXY, or the path of PUBLIC_BASE_URL), the
   * client sent it with the prefix and the gateway sees it without.
   */
  asSent(target: string): string {
    const prefix = new URL(this.baseUrl).pathname.replace(/\/+$/, '');
    return prefix && target.startsWith('/') ? `${prefix}${target}` : target;
  }

  /**
   * The client's address: the peer's, or behind a trusted proxy the last
   * X-Forwarded-For entry, which that proxy wrote (earlier entries are the
   * client's own word and could name anyone); a batch item's is its batch's.
   */
  get clientAddress(): string {
    // An item's own headers must not move it to another address (X-Forwarded-For in a batch item is the learner's word).
    if (this.batch) return this.batch.clientAddress;
    const peer = this.request.socket?.remoteAddress ?? '';
    if (!this.options.trustProxy) return peer;
    const forwarded = this.headers['x-forwarded-for'];
    const last = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').pop()?.trim();
    return last || peer;
  }

  /** Aborted when the client goes away before the answer, so service calls are cancelled too. */
  get signal(): CancelSignal {
    if (!this.cancellation) {
      const cancellation = (this.cancellation = new Cancellation());
      this.onClientGone(() => cancellation.cancel());
    }
    return this.cancellation;
  }

  /**
   * When the time this request may take ends (a batch item's share of its
   * batch's budget): service calls never get a later deadline.
   */
  budgetEndsAt?: number;

  /**
   * Options for every service call the handler makes: request id, the
   * route's deadline (or `deadlineMs` for a call whose wait is asked for, such
   * as a delay), within any budget, and cancellation.
   */
  call(deadlineMs?: number): CallOptionsLite {
    let deadline = deadlineMs ?? this.route?.deadlineMs ?? this.options.grpcDeadlineMs;
    if (this.budgetEndsAt !== undefined) deadline = Math.max(1, Math.min(deadline, this.budgetEndsAt - Date.now()));
    return { requestId: this.requestId, deadlineMs: deadline, signal: this.signal };
  }

  get bodyLimit(): number {
    return this.route?.bodyLimit ?? this.options.bodyLimit;
  }

  /** Milliseconds since the request began, to two decimals. */
  /** Notes a fact of this request for the exercises (the `facts` above). */
  fact(name: string, value: string): void {
    (this.facts ??= {})[name] = value;
  }

  elapsedMs(): number {
    return Math.round(Number(process.hrtime.bigint() - this.startedAt) / 1e4) / 100;
  }

  /** Path parameters, decoded once the route matched. */
  setParams(raw: Record<string, string>): void {
    const params: Record<string, string> = {};
    for (const name in raw) {
      const value = raw[name];
      params[name] = value.includes('%') ? decodeSegment(name, value) : value;
    }
    this.params = params;
  }
}

function decodeSegment(name: string, value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw badRequest('invalid_path', `The path segment ${name} is not valid percent-encoding.`);
  }
}

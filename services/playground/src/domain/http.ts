import { apiErrorBody, invalidArgument, type HttpRefusal } from '@sandbox/runtime';

/** One header line: the name with its original case. */
export interface Header {
  name: string;
  value: string;
}

/**
 * The HTTP request as the gateway received it (the proto's HttpRequest has
 * this shape): headers in arrival order with their original case, the raw
 * query, the body bytes and the public base URL.
 */
export interface Inbound {
  method: string;
  path: string;
  rawQuery: string;
  headers: Header[];
  body: Buffer;
  remoteAddress: string;
  baseUrl: string;
  httpVersion: string;
}

/** The HTTP response the gateway writes as it is (the proto's HttpResponse has this shape). */
export interface Answer {
  status: number;
  headers: Header[];
  body: Buffer;
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';
/** Every delayed answer says, in a header, how long it waited. */
export const DELAY_HEADER = 'X-Delay-Applied-Ms';
/** A short explanation in words, where an answer differs from what was asked (visible in any client's header dump). */
export const NOTE_HEADER = 'X-Playground-Note';

export function jsonAnswer(value: unknown, status = 200, headers: Header[] = []): Answer {
  return { status, headers: [{ name: 'Content-Type', value: JSON_TYPE }, ...headers], body: Buffer.from(JSON.stringify(value)) };
}

export function textAnswer(text: string, status = 200, headers: Header[] = []): Answer {
  return { status, headers: [{ name: 'Content-Type', value: TEXT_TYPE }, ...headers], body: Buffer.from(text, 'utf8') };
}

export function emptyAnswer(status: number, headers: Header[] = []): Answer {
  return { status, headers, body: Buffer.alloc(0) };
}

/**
 * A refusal whose HTTP status has no gRPC equivalent (runtime's HttpRefusal;
 * 413: a limit of the upload) in the project's error shape. gRPC's
 * RESOURCE_EXHAUSTED would reach the client as 429 through the gateway's one
 * mapping table, which says "slow down" rather than "too big", so the service
 * answers these itself, checked before AppError (which it also is). Every 400
 * stays a plain AppError (INVALID_ARGUMENT), which the gateway renders.
 */
export function refusalAnswer(refusal: HttpRefusal, requestId: string): Answer {
  return jsonAnswer(apiErrorBody(refusal.code, refusal.message, requestId), refusal.httpStatus);
}

/** The request inside a call message; a call without one is a caller's bug. */
export function inboundOf(http: Inbound | undefined): Inbound {
  if (!http) throw invalidArgument('invalid_request', 'The call carries no HTTP request.');
  return http;
}

/** RFC 9110 5.6.2 token characters (method names, header names). */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The path part of the public base URL, without a trailing slash ("" at the root), always starting with a single "/". */
export function basePath(baseUrl: string): string {
  let path = '';
  try {
    path = new URL(baseUrl).pathname;
  } catch {
    return '';
  }
  // Never "//host": a path starting with two slashes would be read as another host.
  path = path.replace(/^\/+/, '/').replace(/\/+$/, '');
  return path === '/' ? '' : path;
}

/** The origin of the public base URL (scheme, host, port), or null when it cannot be read. */
export function baseOrigin(baseUrl: string): string | null {
  try {
    const origin = new URL(baseUrl).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

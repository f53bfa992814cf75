import { Readable } from 'node:stream';
import type { InboundRequest } from './context';

/** A request made of parts, for the dispatcher without a socket (a batch item, a test). */
export interface RequestParts {
  method: string;
  /** Origin-form target: path and query. */
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  remoteAddress?: string;
  encrypted?: boolean;
}

/**
 * An InboundRequest as node would have parsed it: lower-case header names,
 * the raw list in the order given, a Content-Length for a body, and the body
 * as a stream, so every body mode reads it as it would a socket's.
 */
export function inboundRequest(parts: RequestParts): InboundRequest {
  const body = parts.body === undefined ? undefined : Buffer.from(parts.body);
  const given = { ...parts.headers };
  if (body && !Object.keys(given).some((name) => name.toLowerCase() === 'content-length')) given['Content-Length'] = String(body.byteLength);
  const headers: Record<string, string> = {};
  const rawHeaders: string[] = [];
  for (const [name, value] of Object.entries(given)) {
    headers[name.toLowerCase()] = value;
    rawHeaders.push(name, value);
  }
  return Object.assign(Readable.from(body ? [body] : []), {
    method: parts.method.toUpperCase(),
    url: parts.url,
    headers,
    rawHeaders,
    socket: { remoteAddress: parts.remoteAddress ?? '127.0.0.1', encrypted: parts.encrypted ?? false },
  });
}

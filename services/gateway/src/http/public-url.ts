import type { IncomingHttpHeaders } from 'node:http';

export interface PublicUrlOptions {
  publicBaseUrl?: string;
  trustProxy: boolean;
}

/** A forwarded prefix is used only when it is a plain path, so a header cannot inject a host. */
const SAFE_PREFIX = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/;
const SAFE_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(',')[0].trim();

/**
 * The absolute base that links in responses start with. A configured public
 * base URL wins; behind a trusted proxy, X-Forwarded-Proto/Host/Prefix say how
 * the client addressed us; otherwise the connection's scheme and the Host header.
 */
/** The parts of a request the public URL depends on (node's IncomingMessage is one). */
export interface AddressedRequest {
  headers: IncomingHttpHeaders;
  socket: { remoteAddress?: string; encrypted?: boolean } | null;
}

export function publicBaseUrl(req: AddressedRequest, options: PublicUrlOptions): string {
  if (options.publicBaseUrl) return options.publicBaseUrl;
  let scheme = req.socket?.encrypted ? 'https' : 'http';
  let host = first(req.headers.host);
  let prefix = '';
  if (options.trustProxy) {
    const proto = first(req.headers['x-forwarded-proto'])?.toLowerCase();
    if (proto === 'http' || proto === 'https') scheme = proto;
    host = first(req.headers['x-forwarded-host']) || host;
    const forwardedPrefix = first(req.headers['x-forwarded-prefix']);
    if (forwardedPrefix && SAFE_PREFIX.test(forwardedPrefix)) prefix = forwardedPrefix.replace(/\/+$/, '');
  }
  if (!host || !SAFE_HOST.test(host)) host = 'localhost';
  return `${scheme}://${host}${prefix}`;
}

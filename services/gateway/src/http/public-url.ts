import type { Request } from 'express';

export interface PublicUrlOptions {
  publicBaseUrl?: string;
  trustProxy: boolean;
}

/** A forwarded prefix is used only when it is a plain path, so a header cannot inject a host. */
const SAFE_PREFIX = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/;

/**
 * The absolute base that links in responses start with. A configured public
 * base URL wins; behind a trusted proxy, X-Forwarded-Proto/Host/Prefix say how
 * the client addressed us; otherwise the request's own scheme and Host.
 */
export function publicBaseUrl(req: Request, options: PublicUrlOptions): string {
  if (options.publicBaseUrl) return options.publicBaseUrl;
  // With 'trust proxy' on, express derives protocol and host from X-Forwarded-*.
  const host = req.host || 'localhost';
  let prefix = '';
  if (options.trustProxy) {
    const forwarded = req.get('X-Forwarded-Prefix')?.split(',')[0].trim();
    if (forwarded && SAFE_PREFIX.test(forwarded)) prefix = forwarded.replace(/\/+$/, '');
  }
  return `${req.protocol}://${host}${prefix}`;
}

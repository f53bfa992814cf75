import type { oauth } from '@sandbox/contracts';
import type { FormBody } from '../http/body';
import type { RouteContext } from '../http/context';

/**
 * An OAuth 1.0a request as the oauth service checks it (RFC 5849 3.4.1): the
 * method, the URL the client addressed (the public base URL, so a proxy's
 * scheme, host and prefix are the client's), the query's and the form body's
 * parameters in the order sent, duplicates kept, and the Authorization header.
 */
export function signedRequestOf(ctx: RouteContext): oauth.SignedRequest {
  const params: oauth.Param[] = [];
  for (const [name, value] of ctx.query) params.push({ name, value });
  const form = ctx.body as FormBody | undefined;
  if (form?.pairs) for (const [name, value] of form.pairs) params.push({ name, value });
  return { method: ctx.method, baseUrl: new URL(ctx.baseUrl).origin + ctx.asSent(ctx.path), params, authorization: ctx.headers.authorization ?? '' };
}

/** The consumer key a request names (header, query or form), for its request log only: the oauth service checks everything. */
export function consumerKeyOf(ctx: RouteContext): string | undefined {
  const header = /(?:^|[\s,])oauth_consumer_key="([^"]*)"/.exec(ctx.headers.authorization ?? '');
  if (header) {
    try {
      return decodeURIComponent(header[1]);
    } catch {
      return undefined;
    }
  }
  return signedRequestOf(ctx).params.find((p) => p.name === 'oauth_consumer_key')?.value;
}

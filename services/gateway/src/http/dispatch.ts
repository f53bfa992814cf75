import { AppError, type Logger } from '@sandbox/runtime';
import { whenReady, type MaybePromise } from '../maybe-async';
import { readBody } from './body';
import type { RouteContext } from './context';
import { parseRequestBody, parseRequestLine } from './contract';
import { isPreflight, OPEN_CORS } from './cors';
import { errorReply, refusal } from './errors';
import type { Gatekeepers, Limits } from './gatekeepers';
import { writeLimitFields } from './rate-limit-fields';
import { empty, type Reply } from './reply';
import type { HttpMethod, Route } from './route';
import type { Matched, Router } from './router';
import { SECURITY_HEADERS } from './security-headers';

/**
 * Serves one request through the route table and answers it; never throws,
 * never rejects. A caller that has matched the path already may pass the match.
 */
export type Dispatch = (ctx: RouteContext, matched?: Matched) => MaybePromise<Reply>;

/**
 * The gateway's one request pipeline: screen the request for production
 * credentials, match the row, answer OPTIONS and 405 from the table, spend
 * the client address's budget (a rate-limited row, when limits are
 * configured), authenticate with the row's schemes, spend the app's budget,
 * take a slow-request slot (a slow row), read the body its mode declares (and
 * screen it), run its handler, render any failure in its error format, and add
 * what every answer carries (request id, CORS, no-store, RateLimit fields).
 * The HTTP server calls it for every request; so can a batch item or a test.
 *
 * A request whose credential is remembered and whose handler answers from
 * memory (the cached data page) runs synchronously end to end: no promise, no
 * microtask (see maybe-async.ts).
 */
export function createDispatch(router: Router, gatekeepers: Gatekeepers, logger: Logger): Dispatch {
  const { authentication, isOperator, screen, fairShare } = gatekeepers;
  const fail = (ctx: RouteContext, error: unknown): Reply => {
    if (error instanceof AppError) ctx.failure = `${error.code}: ${error.message}`;
    return errorReply(error, ctx.route?.errors ?? 'api', ctx.requestId, logger, { method: ctx.method, path: ctx.path });
  };

  const serve = (ctx: RouteContext, matched: Matched): MaybePromise<Reply> => {
    screen.head(ctx);
    if (ctx.path[0] !== '/') {
      // Absolute-form (a proxy's request) or asterisk-form: this is not a proxy, and every resource has a path.
      return refusal(400, 'invalid_request_target', 'Send the request target as a path (e.g. GET /health), not an absolute URL or *.', ctx.requestId);
    }
    if (matched.kind === 'none') return unknownPath(ctx);
    if (matched.kind === 'other-method') {
      const { allowed, routes } = matched;
      if (routes[0]!.operatorOnly) return whenReady(isOperator(ctx), (yes) => (yes ? otherMethod(ctx, allowed, routes) : concealed(ctx)));
      if (isPreflight(ctx)) return preflight(ctx, allowed, routes[0]!);
      return otherMethod(ctx, allowed, routes);
    }
    const { route } = matched;
    if (route.operatorOnly) {
      // Before anything else about the request is looked at (even its path's encoding): whatever else it could be refused for would tell a learner the row is here.
      return whenReady(isOperator(ctx), (yes) => {
        if (!yes) return concealed(ctx);
        ctx.route = route;
        ctx.setParams(matched.params);
        return admitted(ctx, route, undefined, undefined);
      });
    }
    ctx.route = route;
    ctx.setParams(matched.params);
    const limits = route.rateLimited ? fairShare : undefined;
    // The address's budget before the credential is checked, so that refused credentials are counted too.
    const addressAdmitted = limits?.admitAddress(ctx);
    const verify = () =>
      route.auth.length ? authentication.authenticate(ctx, route.auth) : route.identifies ? authentication.identify(ctx, route.identifies) : undefined;
    const authenticated = limits ? whenReady(whenReady(addressAdmitted, verify), () => limits.admitApp(ctx)) : verify();
    return admitted(ctx, route, authenticated, limits);
  };

  /**
   * A preflight, answered under the path's row's policy (its CORS headers
   * included: decorate reads ctx.route). A browser sends no credential with a
   * preflight, but a row that may name its app (the CORS lab's) is asked the
   * same way its request will be, so an api_key in the query makes the
   * preflight the app's; the Origin is noted for the CORS exercise
   * (docs/exercises.md). Never refused for it.
   */
  const preflight = (ctx: RouteContext, allowed: readonly HttpMethod[], row: Route): MaybePromise<Reply> => {
    ctx.route = row;
    const answer = () => row.cors.preflight(ctx, allowed);
    const origin = ctx.headers.origin;
    if (!row.identifies || origin === undefined) return answer();
    ctx.fact('preflight_origin', origin);
    return whenReady(authentication.identify(ctx, row.identifies), answer);
  };

  /** The rest of the pipeline, once the request is authenticated (or on its way to be) and within its budgets. */
  const admitted = (ctx: RouteContext, route: Route, authenticated: MaybePromise<unknown>, limits: Limits | undefined): MaybePromise<Reply> => {
    const { contract } = route;
    // The request line is checked after the credential: a stranger learns nothing from the parameters' rules.
    const checked = contract ? whenReady(authenticated, () => parseRequestLine(ctx, contract)) : authenticated;
    const mode = route.body;
    const answer = () => {
      const bodyRead =
        mode === 'none'
          ? undefined
          : readBody(ctx, mode, route.bodyOptional).then(() => {
              if (mode === 'json' || mode === 'form') screen.body(ctx);
              else if (mode === 'raw') screen.rawBody(ctx);
              if (contract) parseRequestBody(ctx, contract);
            });
      return whenReady(bodyRead, () => route.handler(ctx));
    };
    const { slow } = route;
    if (limits && slow) return whenReady(checked, () => (slow(ctx) ? limits.whileSlow(ctx, answer) : answer()));
    return whenReady(checked, answer);
  };

  return (ctx, matched) => {
    let reply: MaybePromise<Reply>;
    try {
      reply = serve(ctx, matched ?? router.match(ctx.method, ctx.path));
    } catch (error) {
      reply = fail(ctx, error);
    }
    if (reply instanceof Promise) {
      return reply.then(
        (r) => decorate(ctx, r),
        (error: unknown) => decorate(ctx, fail(ctx, error)),
      );
    }
    return decorate(ctx, reply);
  };
}

/** No row serves the path. */
const unknownPath = (ctx: RouteContext): Reply => refusal(404, 'not_found', `No endpoint at ${ctx.method} ${ctx.path}. GET / lists the API.`, ctx.requestId);

/**
 * An operator-only row asked for by anyone else: the unknown path's very
 * answer, decorated as one (no row: its CORS and no-store are not applied),
 * byte for byte but for the request id.
 */
function concealed(ctx: RouteContext): Reply {
  ctx.route = undefined;
  ctx.credential = undefined;
  return unknownPath(ctx);
}

/** OPTIONS, and any other method a path is not served with: answered from the rows at that path. */
function otherMethod(ctx: RouteContext, allowed: HttpMethod[], routes: Route[]): Reply {
  if (isPreflight(ctx)) {
    // An operator's preflight (operator rows name no app): answered under the path's rows' policy, as preflight() above.
    ctx.route = routes[0];
    return routes[0].cors.preflight(ctx, allowed);
  }
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  if (ctx.method === 'OPTIONS') return empty(204, { Allow: allow });
  const reply = refusal(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; use ${allowed.join(' or ')}.`, ctx.requestId);
  reply.headers.Allow = allow;
  return reply;
}

/**
 * What every answer carries, whichever way it was produced: request id,
 * security headers, CORS. HEAD answers keep their headers and lose the body.
 */
export function decorate(ctx: RouteContext, reply: Reply): Reply {
  const { headers } = reply;
  headers['X-Request-Id'] = ctx.requestId;
  for (const name in SECURITY_HEADERS) headers[name] = SECURITY_HEADERS[name];
  const cors = (ctx.route?.cors ?? OPEN_CORS).headers(ctx);
  for (const name in cors) headers[name] = cors[name];
  if (ctx.route?.noStore) headers['Cache-Control'] = 'no-store';
  if (ctx.rateLimits) writeLimitFields(headers, ctx.rateLimits);
  // For the Retry-After exercise (docs/exercises.md): whichever part of the pipeline refused, a wait it asked for is noted.
  if ((reply.status === 429 || reply.status === 503) && headers['Retry-After'] !== undefined) ctx.fact('retry_after_s', String(headers['Retry-After']));
  if (ctx.method === 'HEAD') {
    reply.body = undefined;
    reply.stream?.destroy();
    reply.stream = undefined;
  }
  return reply;
}

import type { MaybePromise } from '../maybe-async';
import type { RouteContext } from './context';
import type { SchemeName } from './credential';
import type { Reply } from './reply';

/*
 * What the dispatcher asks of the parts that sit above the pipeline: it
 * names the few calls it makes, and composition.ts passes the parts that
 * make them (auth/, guard/, fair-share/), so the pipeline depends on none of
 * them.
 */

/** Checks a request's credential against the schemes a row accepts (auth/authenticate.ts). */
export interface Authentication {
  /** Sets ctx.credential; throws (or rejects with) UNAUTHENTICATED naming the rule. */
  authenticate(ctx: RouteContext, accepted: readonly SchemeName[]): MaybePromise<unknown>;
  /** Sets ctx.credential when the request names an app by one of `accepted` and it verifies; never refuses. */
  identify(ctx: RouteContext, accepted: readonly SchemeName[]): MaybePromise<void>;
}

/** Refuses a request that carries a live secret of another service (guard/screen.ts). */
export interface Screening {
  /** The path, the query and every header, before the request is routed. */
  head(ctx: RouteContext): void;
  /** A body the route read (JSON or form), before its handler sees it. */
  body(ctx: RouteContext): void;
  /** A body the route forwards as it was sent (raw), before its handler sees it. */
  rawBody(ctx: RouteContext): void;
}

/** The fair-share budgets a rate-limited row spends (fair-share/fair-share.ts). */
export interface Limits {
  /** Before authentication: the address's bucket. Throws (or rejects with) 429 rate_limited. */
  admitAddress(ctx: RouteContext): MaybePromise<void>;
  /** After authentication, when the request authenticated as an app: that app's bucket. */
  admitApp(ctx: RouteContext): MaybePromise<void>;
  /** Runs a slow request within a slot of the slow-request caps. */
  whileSlow(ctx: RouteContext, run: () => MaybePromise<Reply>): MaybePromise<Reply>;
}

export interface Gatekeepers {
  authentication: Authentication;
  /**
   * Whether the request carries an operator's portal session (auth/operator.ts):
   * never refuses; sets ctx.credential when the answer is yes.
   */
  isOperator(ctx: RouteContext): MaybePromise<boolean>;
  screen: Screening;
  /** Absent: no limit is configured, and the dispatcher does nothing extra. */
  fairShare?: Limits;
}

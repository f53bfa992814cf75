import { challenges } from '@sandbox/contracts';
import { AppError, GrpcStatus, ShortLivedCache, unauthenticated } from '@sandbox/runtime';
import type { RouteContext } from '../http/context';
import { whenReady, type MaybePromise } from '../maybe-async';
import type { AuthScheme, Credential, Presented, SchemeName, Verdict } from './scheme';

/**
 * Authenticates requests against the schemes a route accepts. Acceptances
 * of a scheme that allows it are remembered for at most its cacheMs (<= 500
 * ms), so the hot path mostly skips the network (a remembered verdict comes
 * back synchronously), and forgotten at once on every change (forget(),
 * called by the change feed: caches/changes.ts); refusals are never
 * remembered, so one is never older than its request.
 */
/** A request `identify` could not tie to an app goes on as it came. */
const ANONYMOUS = (): void => undefined;

export class Authenticator {
  private readonly caches = new Map<SchemeName, ShortLivedCache<Verdict>>();

  constructor(readonly schemes: Readonly<Record<SchemeName, AuthScheme>>) {
    for (const scheme of Object.values(schemes)) {
      if (scheme.cacheMs > 0) this.caches.set(scheme.name, new ShortLivedCache<Verdict>({ ttlMs: scheme.cacheMs, keep: (verdict) => verdict.ok }));
    }
  }

  /** Forgets every remembered verdict: an app, its owner or a token changed. */
  forget(): void {
    for (const cache of this.caches.values()) cache.clear();
  }

  /**
   * The credential of the first accepted scheme that is sure the request
   * presents one of its own (else of the first that is unsure) decides: a
   * wrong credential is refused, never passed over for another. Sets
   * ctx.credential; throws (or rejects with) UNAUTHENTICATED naming the rule.
   */
  authenticate(ctx: RouteContext, accepted: readonly SchemeName[]): MaybePromise<Credential> {
    let chosen: AuthScheme | undefined;
    let presented: Presented | undefined;
    for (const name of accepted) {
      const scheme = this.schemes[name];
      const found = scheme.detect(ctx);
      if (found && (found.sure || !presented)) {
        chosen = scheme;
        presented = found;
        if (found.sure) break;
      }
    }
    if (!chosen || !presented) return this.refuse(ctx, accepted, this.missing(accepted), false);
    const scheme = chosen;
    const refused = (reason: string) => this.refuse(ctx, accepted, unauthenticated('invalid_credentials', reason), true);
    if (!presented.value) return refused('The credential is empty.');
    const value = presented.value;
    const cache = this.caches.get(scheme.name);
    const verdict = cache ? cache.get(value, () => this.verify(scheme, value, ctx)) : this.verify(scheme, value, ctx);
    return whenReady(verdict, (v) => {
      if (!v.ok) return refused(v.reason);
      ctx.credential = v.credential;
      return v.credential;
    });
  }

  /**
   * The app a request names on a row that needs no credential (Route.identifies):
   * a credential that verifies becomes the request's, as authenticate would
   * make it; none, one that does not verify, or a check that fails leaves the
   * request anonymous, never refused: the row answers anyone.
   */
  identify(ctx: RouteContext, accepted: readonly SchemeName[]): MaybePromise<void> {
    const scheme = accepted.map((name) => this.schemes[name]).find((candidate) => candidate.detect(ctx)?.value);
    if (!scheme) return undefined;
    try {
      const verdict = this.authenticate(ctx, [scheme.name]);
      if (verdict instanceof Promise) return verdict.then(ANONYMOUS, ANONYMOUS);
    } catch {
      // Refused at once (an empty credential): anonymous.
    }
    return undefined;
  }

  /**
   * Throws the refusal with the accepted schemes' challenges; a scheme whose
   * challenge must be fresh (Digest's nonce) is asked for one, so the refusal
   * then arrives as a rejected promise.
   */
  private refuse(ctx: RouteContext, accepted: readonly SchemeName[], error: AppError, refused: boolean): never | Promise<never> {
    const fresh = accepted.map((name) => this.schemes[name]).find((scheme) => scheme.freshChallenge);
    if (!fresh?.freshChallenge) throw error.withChallenge(this.challenge(accepted, refused));
    return fresh.freshChallenge(ctx).then((challenges) => {
      throw error.withChallenge(challenges);
    });
  }

  /** How each scheme is presented, for the route map and refusals. */
  describe(accepted: readonly SchemeName[]): { scheme: SchemeName; how: string }[] {
    return accepted.map((name) => ({ scheme: name, how: this.schemes[name].words }));
  }

  private async verify(scheme: AuthScheme, value: string, ctx: RouteContext): Promise<Verdict> {
    try {
      return await scheme.verify(value, ctx);
    } catch (error) {
      // A scheme's own refusal (e.g. a signed-out session) keeps its code, and its challenge if it brought one.
      if (error instanceof AppError && error.status === GrpcStatus.UNAUTHENTICATED)
        throw error.withChallenge(error.challenge ?? this.challengeOf(scheme, true));
      throw error;
    }
  }

  private missing(accepted: readonly SchemeName[]): AppError {
    const own = accepted.length === 1 ? this.schemes[accepted[0]].missing : undefined;
    return own
      ? unauthenticated(own.code, own.message)
      : unauthenticated('missing_credentials', `Send a credential: ${accepted.map((name) => this.schemes[name].words).join(', or ')}.`);
  }

  /** Every accepted scheme's challenge, once each, in the route's order: one WWW-Authenticate line each (RFC 9110 11.6.1). */
  private challenge(accepted: readonly SchemeName[], refused: boolean): string | string[] {
    const challenges = new Set<string>();
    for (const name of accepted) {
      const challenge = this.schemes[name].challenge(refused);
      if (challenge) challenges.add(challenge);
    }
    return challenges.size === 1 ? [...challenges][0] : [...challenges];
  }

  private challengeOf(scheme: AuthScheme, refused: boolean): string {
    return scheme.challenge(refused) ?? challenges.CHALLENGE.bearer;
  }
}

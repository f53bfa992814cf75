import type { common, identity } from '@sandbox/contracts';
import type { RouteContext } from '../http/context';
import type { Credential, Principal, SchemeName } from '../http/credential';

// Carried by the pipeline (http/credential.ts); named here too, so the schemes and the routes import them from auth.
export type { Credential, Principal, SchemeName };

/**
 * A credential found on a request. `sure` says the scheme recognised it as its
 * own (a `bt_` token is surely an app bearer token); an unsure one is taken
 * only when no accepted scheme is sure, so its refusal can say what was wrong.
 */
export interface Presented {
  value: string;
  sure: boolean;
}

/** A refusal is an answer, not an error, so that it can be remembered like an acceptance. */
export type Verdict = { ok: true; credential: Credential } | { ok: false; reason: string };

/**
 * One way of authenticating (after passport's Strategy): how it is found on a
 * request, how it is verified, whether a verdict may be remembered, the
 * challenge a refusal carries, and the words the route map and refusals use.
 * A route lists the schemes it accepts; that list both enforces and documents.
 */
export interface AuthScheme {
  readonly name: SchemeName;
  /** How a client presents it, e.g. "an x-api-key header". */
  readonly words: string;
  /** How long a verdict may be remembered; 0 for never (single-use or must-be-fresh credentials). */
  readonly cacheMs: number;
  detect(ctx: RouteContext): Presented | undefined;
  /** Resolves to a verdict; may instead reject with an AppError naming the rule that failed. */
  verify(value: string, ctx: RouteContext): Promise<Verdict>;
  /** The WWW-Authenticate challenge, with RFC 6750's error="invalid_token" once a credential was refused. */
  challenge(refused: boolean): string | undefined;
  /**
   * A challenge that must be fresh each time it is sent (Digest's nonce): its
   * header lines, asked for when a request presented nothing or was refused.
   */
  freshChallenge?(ctx: RouteContext): Promise<string[]>;
  /** The refusal when nothing was presented, when the scheme has its own (else: a list of what is accepted). */
  readonly missing?: { code: string; message: string };
}

/** The value of `Authorization: <scheme> <value>`, when the request uses that scheme. */
export function authorizationValue(ctx: RouteContext, scheme: 'bearer' | 'basic'): string | undefined {
  const header = ctx.headers.authorization;
  if (!header) return undefined;
  const space = header.indexOf(' ');
  const word = space < 0 ? header : header.slice(0, space);
  if (word.toLowerCase() !== scheme) return undefined;
  return space < 0 ? '' : header.slice(space + 1).trim();
}

/** A verdict from a check that identity or oauth answered. */
export function verdictOf(scheme: SchemeName, check: common.CredentialCheck | undefined): Verdict {
  if (check?.ok && check.principal) return { ok: true, credential: { kind: 'app', scheme, principal: check.principal } };
  return { ok: false, reason: check?.reason || 'The credential is not valid.' };
}

/** The app a route's handler serves; the route must list app schemes only (a programming error otherwise). */
export function appPrincipalOf(ctx: RouteContext): Principal {
  const { credential } = ctx;
  if (credential?.kind !== 'app') throw new Error(`${ctx.path}: the handler needs an app credential; its route must accept app schemes only`);
  return credential.principal;
}

/** The signed-in portal user a route's handler serves; the route must accept the portal session. */
export function sessionOf(ctx: RouteContext): { user: identity.User; token: string } {
  const { credential } = ctx;
  if (credential?.kind !== 'session') throw new Error(`${ctx.path}: the handler needs a portal session; its route must accept portal_session`);
  return credential;
}

import type { IncomingHttpHeaders } from 'node:http';
import { AppError, GrpcStatus, HttpRefusal, type CallOptionsLite, type Logger } from '@sandbox/runtime';
import { clearCookie, readCookie, setCookie, type CookieOptions } from './cookies';
import type { AuthorizationRequest, GrantResult } from './oidc-client';
import type { CookieSealer } from './sealed-cookie';
import type { SsoSettings } from './sso-config';
import { SsoFailure, SSO_ERRORS, type SsoErrorCode } from './sso-errors';

/** The single sign-on paths: one owner, read by the routes, the cookies' paths and the redirects. */
export const SSO_PATHS = {
  start: '/api/auth/sso/start',
  callback: '/api/auth/sso/callback',
  session: '/api/auth/sso/session',
  options: '/api/auth/options',
} as const;

/** The sign-in under way, from the redirect to the provider until its return (docs/state.md). */
export const FLOW_COOKIE = 'sandbox_sso_flow';
export const FLOW_TTL_SECONDS = 600;
/** The session token, from the callback until the page picks it up (docs/state.md). */
export const HANDOFF_COOKIE = 'sandbox_sso_handoff';
export const HANDOFF_TTL_SECONDS = 60;
/** Browsers keep a cookie of up to 4096 bytes, name and attributes included. */
const LARGEST_HANDOFF = 3800;

// The sealed values' purposes (their JWT audience): one cookie can never be passed off as the other.
const FLOW = 'urn:training-sandbox:sso:flow';
const HANDOFF = 'urn:training-sandbox:sso:handoff';

/** Where both redirects send the browser, relative to /api/auth/sso/*, so any proxy prefix in front is kept. */
const PORTAL = '../../../portal/';
/** The hash the portal reads on load: a session is waiting at POST /api/auth/sso/session. */
export const SIGNED_IN_HASH = '#/apps?sso=signed_in';

interface FlowState {
  /** PKCE code verifier. */
  v: string;
  /** state */
  s: string;
  /** nonce */
  n: string;
  /** The redirect_uri the request was made with; the grant must send the same. */
  r: string;
}

interface Handoff {
  /** The session token: the provider's ID token. */
  t: string;
  /** Its expiry, ISO 8601. */
  e: string;
}

/** What the relying party does (oidc-client.ts); a test may stand in for it. */
export interface RelyingParty {
  authorizationRequest(redirectUri: string): Promise<AuthorizationRequest>;
  grant(redirectUri: string, query: string, checks: { codeVerifier: string; state: string; nonce: string }): Promise<GrantResult>;
}

/** A 303 and the cookies it sets or clears. */
export interface Redirect {
  location: string;
  cookies: string[];
}

export interface SsoFlowParts {
  settings: SsoSettings;
  relyingParty: RelyingParty;
  sealer: CookieSealer;
  /** identity's VerifySession: resolves when identity accepts the token as a session, throws its AppError otherwise. */
  verifySession(token: string, call: CallOptionsLite): Promise<void>;
  logger: Logger;
}

/**
 * Single sign-on, from the portal's button to a session token in the page
 * (docs/identity.md, "Single sign-on"): authorization code with PKCE through
 * the provider, the transaction kept in a sealed cookie instead of a store,
 * the ID token checked by identity exactly as it will be on every call, and
 * handed to the page in a second sealed cookie, never in a URL. Every failure
 * of the browser's two legs ends on the portal's sign-in screen with a code
 * (sso-errors.ts), never an error page.
 */
export class SsoFlow {
  constructor(private readonly parts: SsoFlowParts) {}

  get providerName(): string {
    return this.parts.settings.providerName;
  }

  /** GET /api/auth/sso/start: to the provider, with the transaction sealed in a cookie scoped to the callback. */
  async start(baseUrl: string, requestId: string): Promise<Redirect> {
    try {
      const redirectUri = `${baseUrl}${SSO_PATHS.callback}`;
      const request = await this.parts.relyingParty.authorizationRequest(redirectUri);
      const flow: FlowState = { v: request.codeVerifier, s: request.state, n: request.nonce, r: redirectUri };
      const sealed = await this.parts.sealer.seal(FLOW, { ...flow }, FLOW_TTL_SECONDS);
      return { location: request.url.href, cookies: [setCookie(FLOW_COOKIE, sealed, { ...flowCookie(baseUrl), maxAgeSeconds: FLOW_TTL_SECONDS })] };
    } catch (error) {
      return this.failed(error, requestId, []);
    }
  }

  /**
   * GET /api/auth/sso/callback: the provider's answer redeemed and checked,
   * the token handed over in a cookie only POST /api/auth/sso/session is
   * sent. The transaction is spent whatever happens: its cookie is cleared.
   */
  async callback(baseUrl: string, headers: IncomingHttpHeaders, query: string, call: CallOptionsLite): Promise<Redirect> {
    const requestId = call.requestId ?? '';
    const spent = clearCookie(FLOW_COOKIE, flowCookie(baseUrl));
    try {
      const sealed = readCookie(headers, FLOW_COOKIE);
      if (!sealed) throw new SsoFailure('no_transaction');
      const opened = await this.parts.sealer.open<FlowState>(FLOW, sealed);
      if (!opened.ok) throw new SsoFailure(opened.reason === 'expired' ? 'expired' : 'no_transaction', undefined, `the sign-in cookie is ${opened.reason}`);
      const flow = opened.value;
      // Checked here first, so that a forged or stale answer is named for what it is (openid-client checks it again).
      const states = new URLSearchParams(query).getAll('state');
      if (states.length !== 1 || states[0] !== flow.s) throw new SsoFailure('state_mismatch');
      const granted = await this.parts.relyingParty.grant(flow.r, query, { codeVerifier: flow.v, state: flow.s, nonce: flow.n });
      await this.accepted(granted.idToken, call);
      const handoff: Handoff = { t: granted.idToken, e: granted.expiresAt.toISOString() };
      const sealedHandoff = await this.parts.sealer.seal(HANDOFF, { ...handoff }, HANDOFF_TTL_SECONDS);
      if (sealedHandoff.length > LARGEST_HANDOFF) throw new SsoFailure('token_too_large', undefined, `the sealed token is ${sealedHandoff.length} bytes`);
      this.parts.logger.info({ requestId }, 'single sign-on: signed in');
      return {
        location: `${PORTAL}${SIGNED_IN_HASH}`,
        cookies: [spent, setCookie(HANDOFF_COOKIE, sealedHandoff, { ...handoffCookie(baseUrl), maxAgeSeconds: HANDOFF_TTL_SECONDS })],
      };
    } catch (error) {
      return this.failed(error, requestId, [spent]);
    }
  }

  /**
   * POST /api/auth/sso/session: the session token the callback handed over,
   * once (its cookie is cleared). Only the page's own same-origin request
   * carries the cookie (SameSite=Strict, its own path); a request a browser
   * marks as from another site is refused outright.
   */
  async pickUp(baseUrl: string, headers: IncomingHttpHeaders): Promise<{ token: string; expiresAt: string; cookies: string[] }> {
    const spent = clearCookie(HANDOFF_COOKIE, handoffCookie(baseUrl));
    const fetchSite = headers['sec-fetch-site'];
    if (fetchSite !== undefined && fetchSite !== 'same-origin') {
      throw new HttpRefusal(403, 'cross_site_request', 'Only the portal page itself may pick up a single sign-on session.');
    }
    const sealed = readCookie(headers, HANDOFF_COOKIE);
    const opened = sealed ? await this.parts.sealer.open<Handoff>(HANDOFF, sealed) : undefined;
    if (!opened?.ok) {
      throw new HttpRefusal(
        404,
        'no_sso_session',
        'No single sign-on is waiting here: it was picked up already, it is more than a minute old, or it was finished in another browser. Sign in again.',
        { 'Set-Cookie': spent },
      );
    }
    return { token: opened.value.t, expiresAt: opened.value.e, cookies: [spent] };
  }

  /** Identity must accept the token as it will on every call, so a misconfiguration shows here, in words, not as a broken portal. */
  private async accepted(token: string, call: CallOptionsLite): Promise<void> {
    try {
      await this.parts.verifySession(token, call);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const detail = `identity: ${error.code}: ${error.message}`;
      if (error.status === GrpcStatus.UNAUTHENTICATED) throw new SsoFailure('token_refused', undefined, detail);
      if (error.status === GrpcStatus.PERMISSION_DENIED) throw new SsoFailure('account_refused', error.message, detail);
      if (error.code === 'identity_provider_unavailable') throw new SsoFailure('provider_unavailable', undefined, detail);
      if (error.status === GrpcStatus.UNAVAILABLE || error.status === GrpcStatus.DEADLINE_EXCEEDED) throw new SsoFailure('unavailable', undefined, detail);
      throw new SsoFailure('internal', undefined, detail);
    }
  }

  private failed(error: unknown, requestId: string, cookies: string[]): Redirect {
    const failure = error instanceof SsoFailure ? error : new SsoFailure('internal', undefined, error instanceof Error ? error.message : String(error));
    const fields = { requestId, code: failure.code, detail: failure.detail };
    // What someone must fix is a warning; what a learner did (declined, took too long, came back twice) is not.
    if (OPERATOR_PROBLEMS.has(failure.code)) this.parts.logger.warn(fields, `single sign-on failed: ${SSO_ERRORS[failure.code]}`);
    else this.parts.logger.info(fields, `single sign-on failed: ${SSO_ERRORS[failure.code]}`);
    if (failure.code === 'internal' && !(error instanceof SsoFailure)) this.parts.logger.error({ requestId, err: error }, 'single sign-on: unexpected error');
    return { location: failureLocation(failure.code, failure.description), cookies };
  }
}

const OPERATOR_PROBLEMS = new Set<SsoErrorCode>([
  'code_rejected',
  'invalid_response',
  'token_refused',
  'token_too_large',
  'provider_unavailable',
  'unavailable',
  'internal',
]);

/** The portal's sign-in screen with the code (and the provider's own words, if any) in the hash. */
export function failureLocation(code: SsoErrorCode, description?: string): string {
  const params = new URLSearchParams({ sso_error: code });
  if (description) params.set('sso_error_description', description);
  return `${PORTAL}#/sign-in?${params.toString()}`;
}

/** The path the browser sees (any prefix of the public base URL, then the route's). */
const browserPath = (baseUrl: string, path: string) => `${new URL(baseUrl).pathname.replace(/\/+$/, '')}${path}`;
const secure = (baseUrl: string) => baseUrl.startsWith('https:');

/** Lax: the provider's redirect back is a top-level navigation from another site, which Lax cookies go with. */
const flowCookie = (baseUrl: string): Omit<CookieOptions, 'maxAgeSeconds'> => ({
  path: browserPath(baseUrl, SSO_PATHS.callback),
  sameSite: 'Lax',
  secure: secure(baseUrl),
});
/** Strict: only the page's own request, on the one path that reads it. */
const handoffCookie = (baseUrl: string): Omit<CookieOptions, 'maxAgeSeconds'> => ({
  path: browserPath(baseUrl, SSO_PATHS.session),
  sameSite: 'Strict',
  secure: secure(baseUrl),
});

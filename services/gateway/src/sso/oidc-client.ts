import * as oidc from 'openid-client';
import type { Logger } from '@sandbox/runtime';
import type { SsoSettings } from './sso-config';
import { SsoFailure } from './sso-errors';

/** How long the provider's metadata is used before it is read again (a failed refresh keeps the old one). */
const METADATA_TTL_MS = 60 * 60_000;
/** After a failed discovery, sign-ins are refused at once for this long instead of each waiting on a provider that is down. */
const RETRY_AFTER_MS = 2_000;
/** Each request to the provider (discovery, token endpoint), in seconds (openid-client's unit). */
const PROVIDER_TIMEOUT_SECONDS = 10;

/** What the browser is sent to the provider with, and what the gateway must remember to finish (sealed in a cookie). */
export interface AuthorizationRequest {
  url: URL;
  codeVerifier: string;
  state: string;
  nonce: string;
}

export interface GrantResult {
  idToken: string;
  /** The ID token's exp, as a Date. */
  expiresAt: Date;
}

/**
 * The relying party, through openid-client (a certified OpenID Connect
 * relying-party library): discovery of the provider's metadata (cached, and
 * tried again a moment after a failure, so a provider that was down when the
 * gateway started is picked up once it is back), the authorization URL with
 * PKCE (S256), state and nonce, and the authorization code grant with every
 * check openid-client makes (state, iss, PKCE, the ID token's iss, aud, exp,
 * nonce). The ID token's signature is identity's to verify, with the
 * provider's JWKS, as for any session token (VerifySession).
 */
export class OidcClient {
  private current?: { config: oidc.Configuration; fetchedAt: number };
  private pending?: Promise<oidc.Configuration>;
  private failedAt = -Infinity;

  constructor(
    private readonly settings: SsoSettings,
    private readonly logger: Logger,
    /** openid-client's fetch; a test may pass its own. */
    private readonly fetchImpl?: oidc.CustomFetch,
  ) {}

  async authorizationRequest(redirectUri: string): Promise<AuthorizationRequest> {
    const config = await this.configuration();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, codeVerifier, state, nonce };
  }

  /**
   * The authorization response (the callback's query) redeemed for tokens.
   * `redirectUri` is the one the request was made with; any failure is an
   * SsoFailure with its code.
   */
  async grant(redirectUri: string, query: string, checks: { codeVerifier: string; state: string; nonce: string }): Promise<GrantResult> {
    const config = await this.configuration();
    const current = new URL(redirectUri);
    current.search = query;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!tokens.id_token || !claims) throw new SsoFailure('invalid_response', undefined, 'the token endpoint answered without an ID token');
      return { idToken: tokens.id_token, expiresAt: new Date(claims.exp * 1000) };
    } catch (error) {
      throw classify(error, 'token');
    }
  }

  /** The provider's metadata: cached; fetched again after an hour, or a moment after a failure. */
  private configuration(): Promise<oidc.Configuration> {
    const now = Date.now();
    if (this.current && now - this.current.fetchedAt < METADATA_TTL_MS) return Promise.resolve(this.current.config);
    if (this.pending) return this.pending;
    if (now - this.failedAt < RETRY_AFTER_MS) {
      if (this.current) return Promise.resolve(this.current.config);
      return Promise.reject(new SsoFailure('provider_unavailable', undefined, 'discovery failed moments ago'));
    }
    const { issuer, clientId, clientSecret, insecureIssuer } = this.settings;
    const pending = oidc
      .discovery(new URL(issuer), clientId, undefined, clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(), {
        execute: insecureIssuer ? [oidc.allowInsecureRequests] : [],
        timeout: PROVIDER_TIMEOUT_SECONDS,
        ...(this.fetchImpl ? { [oidc.customFetch]: this.fetchImpl } : {}),
      })
      .then((config) => {
        this.current = { config, fetchedAt: Date.now() };
        this.logger.info({ issuer }, 'single sign-on: provider metadata read');
        return config;
      })
      .catch((error: unknown) => {
        this.failedAt = Date.now();
        const failure = classify(error, 'discovery');
        this.logger.warn(
          { issuer, err: error instanceof Error ? error.message : String(error), cause: causeOf(error) },
          `single sign-on: discovery failed (${failure.code})`,
        );
        // Stale beats nothing: metadata that worked an hour ago most likely still does.
        if (this.current) return this.current.config;
        throw failure;
      })
      .finally(() => {
        if (this.pending === pending) this.pending = undefined;
      });
    this.pending = pending;
    return pending;
  }
}

const causeOf = (error: unknown): string | undefined => {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause instanceof Error ? cause.message : cause instanceof Response ? `HTTP ${cause.status}` : undefined;
};

/** Text from the provider, shown to the learner as text: short, one line, printable. */
export const providerWords = (text: string | undefined): string | undefined =>
  text === undefined
    ? undefined
    : text
        .replace(/[\u0000-\u001f\u007f]+/g, ' ')
        .trim()
        .slice(0, 300) || undefined;

/** Any failure of discovery or the grant, as the code the learner is sent back with. */
export function classify(error: unknown, stage: 'discovery' | 'token'): SsoFailure {
  if (error instanceof SsoFailure) return error;
  if (error instanceof oidc.AuthorizationResponseError) {
    if (error.error === 'access_denied') return new SsoFailure('access_denied', providerWords(error.error_description));
    if (error.error === 'temporarily_unavailable' || error.error === 'server_error')
      return new SsoFailure('provider_unavailable', providerWords(error.error_description));
    return new SsoFailure('provider_error', providerWords(`${error.error}${error.error_description ? `: ${error.error_description}` : ''}`));
  }
  if (error instanceof oidc.ResponseBodyError) {
    if (error.status >= 500) return new SsoFailure('provider_unavailable', undefined, `the token endpoint answered ${error.status}`);
    if (error.error === 'invalid_grant') return new SsoFailure('code_rejected', providerWords(error.error_description));
    return new SsoFailure('provider_error', providerWords(`${error.error}${error.error_description ? `: ${error.error_description}` : ''}`));
  }
  if (error instanceof oidc.ClientError) {
    const cause = (error as { cause?: unknown }).cause;
    const unreachable =
      stage === 'discovery' ||
      error.code === 'OAUTH_TIMEOUT' ||
      error.code === 'OAUTH_RESPONSE_IS_NOT_JSON' ||
      (error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' && cause instanceof Response && cause.status >= 500);
    return unreachable
      ? new SsoFailure('provider_unavailable', undefined, error.message)
      : new SsoFailure('invalid_response', undefined, `${error.code}: ${error.message}`);
  }
  // fetch's own failure (refused, reset, DNS) is a TypeError without a code; openid-client's argument errors carry one.
  if (error instanceof TypeError && !(error as { code?: unknown }).code)
    return new SsoFailure('provider_unavailable', undefined, causeOf(error) ?? error.message);
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return new SsoFailure('provider_unavailable', undefined, 'timed out');
  return new SsoFailure('internal', undefined, error instanceof Error ? error.message : String(error));
}

/**
 * Why a single sign-on did not finish: the one list of codes. The gateway
 * sends the learner back to the portal's sign-in screen with one of them in
 * the hash (`#/sign-in?sso_error=<code>`), and the page says in words what
 * happened and what to do (portal/src/sso.ts holds those words; a unit test
 * keeps the two lists equal). The sentence here is for the gateway's log and
 * docs/identity.md: who runs the sandbox reads it, not the learner.
 */
export const SSO_ERRORS = {
  sso_off: 'single sign-on is not configured (SSO_CLIENT_ID unset)',
  no_transaction: 'the callback came without the sign-in cookie: started in another browser, already finished, or the cookie was refused',
  expired: 'the sign-in took longer than its 10 minutes',
  state_mismatch: 'the state the provider returned is not the one this browser was sent with',
  access_denied: 'the provider answered access_denied: the person declined, or may not use this client',
  provider_error: 'the provider answered another error (shown to the learner as its error_description)',
  code_rejected: 'the token endpoint refused the code (used already, expired, or the client credentials are wrong)',
  invalid_response: "the provider's answer failed openid-client's checks (issuer, audience, nonce, expiry, or no ID token)",
  token_refused: "identity refused the provider's ID token (EXTERNAL_IDP_ISSUER, EXTERNAL_IDP_JWKS_URL or EXTERNAL_IDP_AUDIENCE do not match the provider)",
  account_refused: 'identity refused the account (e.g. an operator disabled it)',
  token_too_large: 'the ID token is too large to hand over in a cookie (about 2.5 kB is the most: ask for fewer claims)',
  provider_unavailable: 'the provider could not be reached (discovery, token endpoint or its keys), or answered 5xx',
  unavailable: 'a service behind the gateway (identity) was unavailable',
  internal: 'an unexpected error (logged with the request id)',
} as const;

export type SsoErrorCode = keyof typeof SSO_ERRORS;
export const SSO_ERROR_CODES = Object.keys(SSO_ERRORS) as SsoErrorCode[];

/** A sign-in that ends on the sign-in screen with this code; `description` is the provider's own words, shown as text. */
export class SsoFailure extends Error {
  constructor(
    readonly code: SsoErrorCode,
    readonly description?: string,
    /** What the log should say besides the code (never a token). */
    readonly detail?: string,
  ) {
    super(`${code}: ${SSO_ERRORS[code]}`);
  }
}

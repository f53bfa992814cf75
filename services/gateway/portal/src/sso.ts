/*
 * Single sign-on, as the page sees it (docs/portal.md). The gateway sends the
 * browser back to the portal either signed in (#/apps?sso=signed_in: a
 * session waits at POST /api/auth/sso/session) or with a code on the sign-in
 * screen (#/sign-in?sso_error=<code>&sso_error_description=<the provider's
 * words>). Both hashes are read once on load and replaced at once, so a
 * reload does not repeat them; neither ever holds a token.
 */

/** What GET /api/auth/options answers. */
export interface SignInOptions {
  signUp: 'open' | 'domain' | 'closed';
  domains: string[];
  localSignIn: boolean;
  sso: { name: string; startUrl: string } | null;
}

/** Where the "Sign in with …" link goes: relative to the page, so a proxy prefix in front of /portal/ is kept. */
export const SSO_START = '../api/auth/sso/start';

/**
 * What to tell the learner for each code the gateway may send
 * (services/gateway/src/sso/sso-errors.ts; a unit test keeps the two lists
 * equal): what happened, and what to do about it. `provider` is the name on
 * the button, or a description when it is not known yet.
 */
export const SSO_ERROR_WORDS: Record<string, (provider: string) => string> = {
  sso_off: () => 'Single sign-on is not set up on this sandbox. Sign in with your email and password instead.',
  no_transaction: () => 'That sign-in could not be finished here: it was started in another browser or tab, or it was finished already. Start again.',
  expired: () => 'The sign-in took longer than 10 minutes, so it was stopped. Start again.',
  state_mismatch: () =>
    'The answer that came back did not belong to the sign-in this browser started (perhaps two were under way at once). Start again, in one tab.',
  access_denied: (provider) =>
    `You were not signed in: the sign-in was cancelled or declined at ${provider}. Start again if that was a mistake, or ask whoever runs the sandbox whether your account may use it.`,
  provider_error: (provider) => `${provider} refused the sign-in.`,
  code_rejected: (provider) => `${provider} would not complete the sign-in: its one-time code was used already or has run out. Start again.`,
  invalid_response: (provider) => `The answer from ${provider} failed the sandbox's checks, so you were not signed in. Tell whoever runs the sandbox.`,
  token_refused: (provider) =>
    `The sandbox does not accept sign-ins from ${provider} as it is set up now. Tell whoever runs the sandbox: its log says what to change.`,
  account_refused: () => 'Your account may not use this sandbox at the moment.',
  token_too_large: (provider) => `${provider} sent more about you than the sandbox can hand over. Tell whoever runs the sandbox.`,
  provider_unavailable: (provider) => `${provider} could not be reached. Try again in a minute.`,
  unavailable: () => 'The sandbox could not finish the sign-in: part of it is unavailable right now. Try again in a minute.',
  internal: () => 'Something went wrong in the sandbox while signing you in. Try again; if it keeps happening, tell whoever runs it.',
};

/** A failed single sign-on, as it arrived in the hash (or the page's own pick-up failed: `message`). */
export interface SsoError {
  code: string;
  /** The provider's own words, shown as text. */
  description?: string;
  /** Words already made (an API refusal's), instead of the code's. */
  message?: string;
}

/** The learner's words for a failure; an unknown code still says something useful. */
export function ssoErrorMessage(error: SsoError, provider = "your organisation's sign-in"): string {
  if (error.message) return error.message;
  const words = SSO_ERROR_WORDS[error.code];
  return words ? words(provider) : `The sign-in through ${provider} did not finish (${error.code}). Start again.`;
}

const query = (hash: string, screen: string): URLSearchParams | undefined => {
  const prefix = `#/${screen}?`;
  return hash.startsWith(prefix) ? new URLSearchParams(hash.slice(prefix.length)) : undefined;
};

/** The failure the gateway sent the browser back with, if the hash holds one. */
export function ssoErrorIn(hash: string): SsoError | undefined {
  const params = query(hash, 'sign-in');
  const code = params?.get('sso_error');
  if (!params || !code || !/^[a-z_]{1,40}$/.test(code)) return undefined;
  const description = params.get('sso_error_description')?.slice(0, 300) || undefined;
  return { code, description };
}

/** Whether the browser just came back signed in, with a session to pick up. */
export const ssoSignedInIn = (hash: string): boolean => query(hash, 'apps')?.get('sso') === 'signed_in';

/** The hash without what was read from it: a reload must not repeat an error or a pick-up. */
export function forgetSsoHash(screen: 'sign-in' | 'apps'): void {
  history.replaceState(history.state, '', `${location.pathname}${location.search}#/${screen}`);
}

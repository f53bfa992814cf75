/*
 * Where the portal session token lives: sessionStorage, under this one key,
 * and nothing else of the portal is ever stored anywhere (no App Secret, API
 * key, bearer token or password in localStorage, sessionStorage, a cookie or
 * the URL). sessionStorage survives a reload but is per tab and gone when the
 * tab closes; it is never sent by the browser on its own, so there is no CSRF;
 * the page's strict Content-Security-Policy is the defence against script
 * that could read it. docs/portal.md has the reasoning.
 */
export const SESSION_KEY = 'training-sandbox.portal.session';

export function loadToken(): string | undefined {
  try {
    return sessionStorage.getItem(SESSION_KEY) ?? undefined;
  } catch {
    return undefined; // storage disabled: the session lasts as long as the page
  }
}

export function saveToken(token: string): void {
  try {
    sessionStorage.setItem(SESSION_KEY, token);
  } catch {
    // storage disabled: signed in until the page is reloaded
  }
}

export function clearToken(): void {
  try {
    sessionStorage.removeItem(SESSION_KEY);
  } catch {
    // nothing stored
  }
}

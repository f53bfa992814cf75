import { randomBytes } from 'node:crypto';
import { apiRequest, rawRequest, type RawResponse } from './http';

/** The credentials of an app as POST /api/apps returns them (the only time it does). */
export interface CreatedApp {
  id: string;
  appId: string;
  appSecret: string;
  apiKey: string;
  bearerToken: string;
  scopes: string[];
}

/** A new portal user, as the portal registers one (a fresh address unless `email` is given); resolves to the session token. */
export async function registerUser(baseUrl: string, email = `learner-${randomBytes(5).toString('hex')}@example.org`): Promise<string> {
  const res = await apiRequest(baseUrl, 'POST', '/api/auth/register', { body: { email, password: 'correct horse battery' } });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.body}`);
  return res.json().token;
}

/** A new app for that user; `scopes` omitted means every pack scope. */
export async function createApp(baseUrl: string, session: string, options: { name?: string; scopes?: string[] } = {}): Promise<CreatedApp> {
  const res = await apiRequest(baseUrl, 'POST', '/api/apps', {
    token: session,
    body: { name: options.name ?? 'test app', ...(options.scopes ? { scopes: options.scopes } : {}) },
  });
  if (res.status !== 201) throw new Error(`create app failed: ${res.status} ${res.body}`);
  return res.json();
}

/** `POST /oauth/token` with the client credentials grant (RFC 6749 section 4.4), the app authenticating with Basic; `scope` omitted asks for every scope it holds. */
export function clientCredentialsToken(baseUrl: string, app: Pick<CreatedApp, 'appId' | 'appSecret'>, scope?: string): Promise<RawResponse> {
  return rawRequest(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${app.appId}:${app.appSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }).toString(),
  });
}

import { randomBytes } from 'node:crypto';

/** The credentials of an app as POST /api/apps returns them (the only time it does). */
export interface CreatedApp {
  id: string;
  appId: string;
  appSecret: string;
  apiKey: string;
  bearerToken: string;
  scopes: string[];
}

async function postJson(baseUrl: string, path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A new portal user, as the portal registers one; resolves to the session token. */
export async function registerUser(baseUrl: string): Promise<string> {
  const res = await postJson(baseUrl, '/api/auth/register', { email: `learner-${randomBytes(5).toString('hex')}@example.org`, password: 'correct horse battery' });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}

/** A new app for that user; `scopes` omitted means every pack scope. */
export async function createApp(baseUrl: string, session: string, options: { name?: string; scopes?: string[] } = {}): Promise<CreatedApp> {
  const res = await postJson(baseUrl, '/api/apps', { name: options.name ?? 'test app', ...(options.scopes ? { scopes: options.scopes } : {}) }, session);
  if (res.status !== 201) throw new Error(`create app failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

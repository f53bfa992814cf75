import { clearToken, loadToken } from './session';

/*
 * The page's only way to the sandbox: the public API, relative to the page
 * (<prefix>/portal/ -> <prefix>/api/...), with the session as a bearer token.
 * Errors arrive in the one error shape {"error": {"code", "message"}}
 * (docs/errors.md) and become an ApiError carrying those words.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export interface CredentialMeta {
  createdAt: string;
  hint: string;
}

export interface App {
  id: string;
  name: string;
  description: string;
  appId: string;
  redirectUris: string[];
  scopes: string[];
  status: 'active' | 'revoked';
  createdAt: string;
  updatedAt: string;
  credentials: { appSecret: CredentialMeta; apiKey: CredentialMeta; bearerToken: CredentialMeta };
}

/** Credential values an answer carries once (create, /secret, /rotate). */
export interface Issued {
  appSecret?: string;
  apiKey?: string;
  bearerToken?: string;
}

export type AppWithIssued = App & Issued;

export interface LogEntry {
  time: string;
  method: string;
  path: string;
  status: number;
  authStyle: string;
  latencyMs: number;
  requestId: string;
  failure?: string;
}

export interface LogPage {
  entries: LogEntry[];
  total: number;
  nextPageToken?: string;
}

export interface User {
  id: string;
  email: string;
  provider: string;
  createdAt: string;
}

let sessionEnded: () => void = () => {};

/** Called once whenever a call made with the session is answered 401: the session is over. */
export function onSessionEnded(handler: () => void): void {
  sessionEnded = handler;
}

/** An /api URL relative to the page, so any proxy prefix in front of /portal/ is kept. */
export const apiUrl = (path: string): URL => new URL(`../api/${path.replace(/^\/+/, '')}`, location.href);

/**
 * One call of the public API. Every call is made with credentials 'omit'
 * (the session travels in a header, never a cookie), except the one that
 * picks up a single sign-on session (`cookies: true`): its cookie is the only
 * one the gateway sets, HttpOnly, and the page never sees it.
 */
export async function api<T>(method: string, path: string, options: { body?: unknown; session?: boolean; cookies?: boolean } = {}): Promise<T> {
  const token = options.session === false ? undefined : loadToken();
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(apiUrl(path), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store',
      credentials: options.cookies ? 'same-origin' : 'omit',
      referrerPolicy: 'no-referrer',
    });
  } catch {
    throw new ApiError(0, 'network', 'The sandbox could not be reached. Check the connection and try again.');
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const error = (json as { error?: { code?: unknown; message?: unknown; requestId?: unknown } } | undefined)?.error;
    const code = typeof error?.code === 'string' ? error.code : `http_${response.status}`;
    const message = typeof error?.message === 'string' ? error.message : `The sandbox answered ${response.status} ${response.statusText}.`;
    if (response.status === 401 && token) {
      clearToken();
      sessionEnded();
    }
    throw new ApiError(response.status, code, message, typeof error?.requestId === 'string' ? error.requestId : undefined);
  }
  return json as T;
}

/** Words for any failure: an API refusal's own message, else something a person can act on. */
export const messageOf = (error: unknown): string =>
  error instanceof ApiError ? error.message : error instanceof Error ? `Something went wrong in the page: ${error.message}` : 'Something went wrong.';

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
  /** An operator (OPERATOR_EMAILS, docs/operators.md): the page offers the Classes screen. */
  operator?: boolean;
}

export type ExerciseGroup = 'getting_started' | 'authentication' | 'paging' | 'http';
export type ExerciseStatus = 'not_started' | 'attempted' | 'done';

/** GET /api/exercises (docs/exercises.md): one exercise and where the learner stands. */
export interface Exercise {
  id: string;
  group: ExerciseGroup;
  title: string;
  task: string;
  doneWhen: string;
  /** A path under docs/ with its anchor, e.g. docs/auth-playground.md#basic. */
  docs: string;
  /** An id of AUTH_STYLES or PAGINATION_STYLES (snippets.ts). */
  snippet?: string;
  status: ExerciseStatus;
  hint?: string;
  firstAttemptAt?: string;
  lastAttemptAt?: string;
  doneAt?: string;
  doneWithApp?: string;
}

/** A class as a learner sees it (GET /api/classes, POST /api/classes/join). */
export interface ClassSummary {
  id: string;
  name: string;
  startsAt: string;
  endsAt: string;
}

/** A class as an operator sees it (GET /api/admin/classes). */
export interface Class extends ClassSummary {
  joinCode: string;
  signUpDomain?: string;
  ssoGroup?: string;
  createdAt: string;
  learners: number;
}

/** One learner's cell of the class grid: one exercise. */
export interface ClassCell {
  status: ExerciseStatus;
  stuck: boolean;
  firstAttemptAt?: string;
  doneAt?: string;
  hint?: string;
}

/** GET /api/admin/classes/{id}: the class, each exercise's counts, and the learners × exercises grid. */
export interface ClassView {
  class: Class;
  stuckMinutes: number;
  exercises: Array<{
    id: string;
    title: string;
    group: ExerciseGroup;
    done: number;
    attempted: number;
    stuck: number;
    commonRefusal?: { hint: string; learners: number };
  }>;
  learners: Array<{ userId: string; email: string; joinedAt: string; done: number; cells: Record<string, ClassCell> }>;
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
  const text = await (await send(method, path, { ...options, accept: 'application/json' })).text();
  try {
    return (text ? JSON.parse(text) : undefined) as T;
  } catch {
    return undefined as T;
  }
}

/**
 * A file of the API (a CSV export), fetched with the session like any call:
 * a plain link could not carry the Authorization header. The page then offers
 * the Blob as a download (saveBlob).
 */
export async function apiFile(path: string, accept: string): Promise<{ blob: Blob; fileName?: string }> {
  const response = await send('GET', path, { accept });
  // The file name the API gives (Content-Disposition: attachment; filename="…"), read by the page since it saves the file itself.
  const fileName = /filename="([^"\\/]+)"/.exec(response.headers.get('Content-Disposition') ?? '')?.[1];
  return { blob: await response.blob(), fileName };
}

/** Saves a Blob under a file name through a temporary object URL: a download, which the page's CSP (it governs loads, not downloads) lets through. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The click starts the download at once; the URL is only needed until then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

async function send(method: string, path: string, options: { body?: unknown; session?: boolean; cookies?: boolean; accept: string }): Promise<Response> {
  const token = options.session === false ? undefined : loadToken();
  const headers: Record<string, string> = { Accept: options.accept };
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
  if (response.ok) return response;
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const error = (json as { error?: { code?: unknown; message?: unknown; requestId?: unknown } } | undefined)?.error;
  const code = typeof error?.code === 'string' ? error.code : `http_${response.status}`;
  const message = typeof error?.message === 'string' ? error.message : `The sandbox answered ${response.status} ${response.statusText}.`;
  if (response.status === 401 && token) {
    clearToken();
    sessionEnded();
  }
  throw new ApiError(response.status, code, message, typeof error?.requestId === 'string' ? error.requestId : undefined);
}

/** Words for any failure: an API refusal's own message, else something a person can act on. */
export const messageOf = (error: unknown): string =>
  error instanceof ApiError ? error.message : error instanceof Error ? `Something went wrong in the page: ${error.message}` : 'Something went wrong.';

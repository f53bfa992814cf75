/** One request made with an app's credentials. Never a credential, query string or body. */
export interface RequestLogRecord {
  id: string;
  /** The app's internal id. */
  app: string;
  time: Date;
  method: string;
  path: string;
  status: number;
  authStyle: string;
  latencyMs: number;
  requestId: string;
  /** Why the request was refused ("code: message"); '' when it was not. */
  failure: string;
}

/** A position in newest-first order: (time, id) descending. */
export interface LogCursor {
  time: Date;
  id: string;
}

export interface RequestLogStore {
  append(entries: RequestLogRecord[]): Promise<void>;
  /** Keeps the app's newest `cap` entries and deletes the rest (FerretDB has no TTL or capped collections). */
  trim(app: string, cap: number): Promise<number>;
  /** Newest first, starting strictly after `after`. */
  list(app: string, limit: number, after?: LogCursor): Promise<RequestLogRecord[]>;
  count(app: string): Promise<number>;
  deleteForApps(apps: string[]): Promise<number>;
  /** Every app's entries older than the moment (an operator's purge); how many. */
  deleteOlderThan(before: Date): Promise<number>;
  /** Every app id that has entries, for the orphan cleanup. */
  appIds(): Promise<string[]>;
}

/** Who did an operator's action, as identity verified it (domain/operator-actors.ts): an operator signed in to the portal, or the admin CLI. */
export interface AuditActor {
  kind: 'session' | 'cli';
  /**
   * The operator's user id, or the CLI's certificate identity ("cli").
   * Entries written before identity verified actors hold what the caller
   * named: for the CLI, "<os user>@<host>".
   */
  id: string;
  email: string;
  /** The CLI's "<os user>@<host>" as it stated it: not verified. Absent for a session, and in entries from before. */
  statedUser?: string;
}

export type AuditAction =
  'user.disable' | 'user.enable' | 'user.delete' | 'purge' | 'usage.export' | 'app_limit.set' | 'app_limit.clear' | 'class.create' | 'class.delete';

/** One operator action, written after it succeeded; never purged (docs/operators.md). */
export interface AuditRecord {
  /** Sorts in time order (newLogId). */
  id: string;
  at: Date;
  actor: AuditActor;
  action: AuditAction;
  targetUserId: string;
  targetEmail: string;
  detail: string;
}

/** A position in newest-first order: (at, id) descending. */
export interface AuditCursor {
  at: Date;
  id: string;
}

export interface AuditStore {
  append(entry: AuditRecord): Promise<void>;
  /** Newest first, strictly after `after`. */
  list(limit: number, after?: AuditCursor): Promise<AuditRecord[]>;
}

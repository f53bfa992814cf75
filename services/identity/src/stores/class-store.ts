/** A class an operator created (docs/exercises.md, "Classes"). */
export interface ClassRecord {
  id: string;
  name: string;
  startsAt: Date;
  endsAt: Date;
  /** Canonical: eight characters of the join-code alphabet, no hyphen (classes.ts shows it as XXXX-XXXX). Unique. */
  joinCode: string;
  /** A learner's email domain must be this one (lower case); absent: any. */
  signUpDomain?: string;
  /** A learner's identity-provider groups must hold this one; absent: any. */
  ssoGroup?: string;
  createdAt: Date;
}

/**
 * The classes. Nothing is cached in a process: every replica reads the
 * store, so a class created or deleted on one is seen at once on the others.
 */
export interface ClassStore {
  /** Throws DuplicateKeyError('joinCode') when the join code is taken (the caller draws another). */
  insert(record: ClassRecord): Promise<void>;
  findById(id: string): Promise<ClassRecord | undefined>;
  findByIds(ids: readonly string[]): Promise<ClassRecord[]>;
  findByJoinCode(joinCode: string): Promise<ClassRecord | undefined>;
  /** Newest first. */
  list(): Promise<ClassRecord[]>;
  delete(id: string): Promise<boolean>;
}

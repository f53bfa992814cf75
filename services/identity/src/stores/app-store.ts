export type AppStatus = 'active' | 'revoked';

export interface CredentialMeta {
  createdAt: Date;
  /** The credential's last four characters. */
  hint: string;
}

/** Credentials live inside the app document, so every change to them is one atomic write. */
export interface StoredCredentials {
  appSecret: CredentialMeta & { hash: string };
  apiKey: CredentialMeta & { lookup: string; sealed: string };
  bearerToken: CredentialMeta & { hash: string };
}

export interface AppRecord {
  id: string;
  ownerId: string;
  name: string;
  description: string;
  appId: string;
  redirectUris: string[];
  scopes: string[];
  status: AppStatus;
  createdAt: Date;
  updatedAt: Date;
  credentials: StoredCredentials;
  /** An operator disabled the owner: the app's credentials are refused while it is set (verification.ts). */
  ownerDisabled?: boolean;
}

export interface AppPatch {
  redirectUris?: string[];
  scopes?: string[];
  status?: AppStatus;
  credentials?: Partial<StoredCredentials>;
  updatedAt: Date;
}

export interface AppStore {
  /**
   * Stores a new app; throws DuplicateKeyError if the id, App ID or a
   * credential index clashes. With `capPerOwner`, only while its owner holds
   * fewer apps than that: the store decides, so concurrent inserts on any
   * number of replicas never take an owner past the cap. False, and nothing
   * written, when the owner is at it (a refusal confirmed by a fresh read).
   */
  insert(app: AppRecord, capPerOwner?: number): Promise<boolean>;
  /** Oldest first. */
  listByOwner(ownerId: string): Promise<AppRecord[]>;
  countByOwner(ownerId: string): Promise<number>;
  /** Only when `ownerId` owns it: another owner's app is as absent as an unknown one. */
  findOwned(ownerId: string, id: string): Promise<AppRecord | undefined>;
  findByAppId(appId: string): Promise<AppRecord | undefined>;
  findByApiKeyLookup(lookup: string): Promise<AppRecord | undefined>;
  findByBearerHash(hash: string): Promise<AppRecord | undefined>;
  /**
   * One atomic write, applied only if the app exists, belongs to the owner and
   * (with onlyIfActive) is active. The updated app, or undefined if nothing matched.
   */
  update(ownerId: string, id: string, patch: AppPatch, options?: { onlyIfActive?: boolean }): Promise<AppRecord | undefined>;
  deleteOwned(ownerId: string, id: string): Promise<boolean>;
  /** Deletes every app of the owner; the ids deleted. */
  deleteAllOwned(ownerId: string): Promise<string[]>;
  /** Which of these app ids still exist. */
  existingIds(ids: string[]): Promise<Set<string>>;
  /** The internal id of each app with one of these App IDs (one query for a batch of request-log entries). */
  idsByAppId(appIds: string[]): Promise<Map<string, string>>;
  /** Marks (or unmarks) every app of the owner whose owner an operator disabled; how many changed. */
  setOwnerDisabled(ownerId: string, disabled: boolean): Promise<number>;
  /** The apps with these internal ids (those that exist). */
  findByIds(ids: string[]): Promise<AppRecord[]>;
  /** How many apps each of these owners has (owners with none are absent). */
  countByOwners(ownerIds: string[]): Promise<Map<string, number>>;
}

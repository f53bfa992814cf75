/*
 * The rules of accounts and apps that more than one side must agree on:
 * identity enforces them, the browser portal checks them before it sends,
 * and the data service names its packs by the same scopes. Plain values,
 * no imports, so the portal's bundle can import this file alone (not the
 * package's index, which carries the gRPC code). docs/identity.md lists the
 * same numbers.
 */

/** Input limits the spec leaves open. */
export const LIMITS = {
  nameMax: 100,
  descriptionMax: 1000,
  emailMax: 254,
  /** RFC 5321 4.5.3.1.1: the local part is at most 64 octets. */
  emailLocalMaxBytes: 64,
  passwordMin: 8,
  passwordMax: 200,
  redirectUrisMax: 10,
  redirectUriMaxLength: 2000,
  /** A shared training cluster should not let one account fill the database. */
  appsPerOwnerMax: 100,
  logPageSizeDefault: 50,
  logPageSizeMax: 200,
  /** Entries accepted in one RecordRequests call. */
  recordBatchMax: 1000,
  /** Longest token VerifySession will look at; real session JWTs are far shorter. */
  sessionTokenMax: 8192,
} as const;

/** The pack scopes, in the spec's order, which is also the order apps store them in; each data pack is named by one. */
export const PACK_SCOPES = ['fpa:read', 'stocks:read', 'marketing:read', 'hr:read', 'cricket:read'] as const;
export type PackScope = (typeof PACK_SCOPES)[number];

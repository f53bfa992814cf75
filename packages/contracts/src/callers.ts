import { DataServiceService } from './gen/sandbox/data/v1/data';
import { IdentityServiceService } from './gen/sandbox/identity/v1/identity';
import { OAuthServiceService } from './gen/sandbox/oauth/v1/oauth';
import { PlaygroundServiceService } from './gen/sandbox/playground/v1/playground';

/**
 * Who may call what between the sandbox's processes: for every RPC of every
 * service, the identities (from their certificates, runtime grpc-tls.ts) that
 * may call it. Each service checks it on every call, over both transports,
 * and answers anyone else PERMISSION_DENIED (docs/security.md, "Between
 * services"). Typed by the generated service definitions, so an RPC added to
 * a proto does not compile until it has a row here; the health service is
 * open to every sandbox identity (probes ask it on a port of its own).
 *
 * - gateway: the HTTP front door, and the operators' CLI when run in a
 *   gateway's container with its certificate.
 * - oauth: reads apps and their signing keys from identity.
 * - cli: the operators' CLI with a certificate of its own (sandbox-admin).
 */
export const CALLER_NAMES = ['gateway', 'identity', 'oauth', 'data', 'playground', 'cli', 'launcher'] as const;
export type Caller = (typeof CALLER_NAMES)[number];

const GATEWAY = ['gateway'] as const;
/**
 * Operators' actions: the CLI (its certificate is its credential), or the
 * gateway's admin API passing on an operator's session. Identity verifies
 * that session itself (domain/operator-actors.ts): the gateway's certificate
 * alone acts for no one. (The CLI first: test clients call as the first caller named.)
 */
const OPERATORS = ['cli', 'gateway'] as const;

type Table<S> = { readonly [K in keyof S]: readonly Caller[] };

const identity: Table<typeof IdentityServiceService> = {
  register: GATEWAY,
  login: GATEWAY,
  logout: GATEWAY,
  verifySession: GATEWAY,
  listApps: GATEWAY,
  createApp: GATEWAY,
  getApp: GATEWAY,
  deleteApp: GATEWAY,
  regenerateSecret: GATEWAY,
  rotateCredentials: GATEWAY,
  setRedirectUris: GATEWAY,
  setScopes: GATEWAY,
  resetOwner: GATEWAY,
  recordRequests: GATEWAY,
  listRequestLogs: GATEWAY,
  listExercises: GATEWAY,
  joinClass: GATEWAY,
  listMyClasses: GATEWAY,
  leaveClass: GATEWAY,
  verifyApiKey: GATEWAY,
  verifyBearerToken: GATEWAY,
  // Basic for the data and auth routes (gateway) and client authentication at the token endpoint (oauth).
  verifyBasic: ['gateway', 'oauth'],
  // An app's redirect URIs and scopes, and the key its signatures are made with: only oauth needs them.
  lookupApp: ['oauth'],
  getSigningKey: ['oauth'],
  getSignUpOptions: GATEWAY,
  adminListUsers: OPERATORS,
  adminGetUser: OPERATORS,
  adminSetUserDisabled: OPERATORS,
  adminDeleteUser: OPERATORS,
  adminPurge: OPERATORS,
  adminUsage: OPERATORS,
  adminListAudit: OPERATORS,
  adminSetAppLimit: OPERATORS,
  adminClearAppLimit: OPERATORS,
  // The gateway's fair share reads every app's own limit.
  listAppLimits: OPERATORS,
  // Classes for instructors: the admin API and the CLI (npm run admin -- classes ...).
  adminCreateClass: OPERATORS,
  adminListClasses: OPERATORS,
  adminGetClassView: OPERATORS,
  adminDeleteClass: OPERATORS,
};

const oauth: Table<typeof OAuthServiceService> = {
  authorize: GATEWAY,
  token: GATEWAY,
  introspect: GATEWAY,
  revoke: GATEWAY,
  verifyAccessToken: GATEWAY,
  oAuth1RequestToken: GATEWAY,
  oAuth1Authorize: GATEWAY,
  oAuth1AccessToken: GATEWAY,
  oAuth1Verify: GATEWAY,
  issueJwt: GATEWAY,
  verifyJwt: GATEWAY,
  getJwtPublicKey: GATEWAY,
  verifyHmac: GATEWAY,
  digestChallenge: GATEWAY,
  digestVerify: GATEWAY,
  // A deleted user's apps: their tokens and OAuth 1.0a grants go too.
  forgetApps: OPERATORS,
};

const data: Table<typeof DataServiceService> = { getCatalog: GATEWAY, describePack: GATEWAY, getPage: GATEWAY };

const playground: Table<typeof PlaygroundServiceService> = {
  echo: GATEWAY,
  upload: GATEWAY,
  respond: GATEWAY,
  timeout: GATEWAY,
  redirect: GATEWAY,
  headers: GATEWAY,
  corsInfo: GATEWAY,
};

/** The table by gRPC method path (/package.Service/Method), as both transports name a call. */
export const CALLERS_BY_PATH: ReadonlyMap<string, readonly Caller[]> = new Map(
  (
    [
      [IdentityServiceService, identity],
      [OAuthServiceService, oauth],
      [DataServiceService, data],
      [PlaygroundServiceService, playground],
    ] as [Record<string, { path: string }>, Record<string, readonly Caller[]>][]
  ).flatMap(([service, table]) => Object.entries(service).map(([name, method]) => [method.path, table[name]!] as const)),
);

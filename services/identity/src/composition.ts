import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet } from 'jose';
import { identity } from '@sandbox/contracts';
import { createLogger, startGrpcService, type Dependency, type Logger, type RunningGrpcService } from '@sandbox/runtime';
import type { IdentityConfig } from './config';
import { AccountService } from './domain/accounts';
import { AppService } from './domain/apps';
import { CredentialCrypto } from './domain/credential-crypto';
import { PasswordHasher } from './domain/passwords';
import { RequestLogService } from './domain/request-logs';
import { SessionTokens } from './domain/session-tokens';
import { CredentialVerifier } from './domain/verification';
import { identityHandlers } from './grpc/identity-handlers';
import type { AppStore } from './stores/app-store';
import type { LoginAttemptStore } from './stores/login-attempt-store';
import { MemoryAppStore } from './stores/memory-app-store';
import { MemoryLoginAttemptStore } from './stores/memory-login-attempt-store';
import { MemoryRequestLogStore } from './stores/memory-request-log-store';
import { MemorySessionStore } from './stores/memory-session-store';
import { MemoryUserStore } from './stores/memory-user-store';
import { MongoAppStore } from './stores/mongo-app-store';
import { MongoDatabase } from './stores/mongo-database';
import { MongoLoginAttemptStore } from './stores/mongo-login-attempt-store';
import { MongoRequestLogStore } from './stores/mongo-request-log-store';
import { MongoSessionStore } from './stores/mongo-session-store';
import { MongoUserStore } from './stores/mongo-user-store';
import type { RequestLogStore } from './stores/request-log-store';
import type { SessionStore } from './stores/session-store';
import type { UserStore } from './stores/user-store';

/** Expired sessions, stale sign-in counts and orphaned logs are swept this often (no TTL indexes on FerretDB). */
const CLEANUP_INTERVAL_MS = 60_000;

interface Stores {
  users: UserStore;
  sessions: SessionStore;
  attempts: LoginAttemptStore;
  apps: AppStore;
  logs: RequestLogStore;
  dependencies: Dependency[];
  close(): Promise<void>;
}

async function openStores(config: IdentityConfig): Promise<Stores> {
  if (!config.mongoUrl) {
    return {
      users: new MemoryUserStore(),
      sessions: new MemorySessionStore(),
      attempts: new MemoryLoginAttemptStore(),
      apps: new MemoryAppStore(),
      logs: new MemoryRequestLogStore(),
      dependencies: [],
      close: async () => undefined,
    };
  }
  const database = await MongoDatabase.connect(config.mongoUrl);
  try {
    const stores = {
      users: new MongoUserStore(database),
      sessions: new MongoSessionStore(database),
      attempts: new MongoLoginAttemptStore(database),
      apps: new MongoAppStore(database),
      logs: new MongoRequestLogStore(database),
    };
    for (const store of Object.values(stores)) await store.ensureIndexes();
    return { ...stores, dependencies: [{ name: 'mongodb', ping: () => database.ping() }], close: () => database.close() };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** The configured keys, or (embedded default only: config refuses this with MONGO_URL) random ones for this process. */
function resolveKeys(config: IdentityConfig, logger: Logger): { credential: Buffer; session: Buffer } {
  const credential = config.credentialEncryptionKey ?? randomBytes(32);
  const session = config.sessionSigningKey ?? randomBytes(32);
  const generated = [
    config.credentialEncryptionKey ? undefined : 'CREDENTIAL_ENCRYPTION_KEY',
    config.sessionSigningKey ? undefined : 'SESSION_SIGNING_KEY',
  ].filter((name) => name !== undefined);
  if (generated.length > 0) {
    logger.warn(
      { generated },
      'no key configured: using random per-process keys; apps, credentials and sessions do not survive a restart',
    );
  }
  return { credential, session };
}

export async function start(config: IdentityConfig): Promise<RunningGrpcService> {
  const logger = createLogger('identity', config.logLevel);
  const keys = resolveKeys(config, logger);
  const stores = await openStores(config);

  const crypto = new CredentialCrypto(keys.credential);
  const verifier = new CredentialVerifier(stores.apps, crypto, config.verificationCacheMs);
  const external = config.externalIdp && {
    issuer: config.externalIdp.issuer,
    audience: config.externalIdp.audience,
    keys: createRemoteJWKSet(new URL(config.externalIdp.jwksUrl), { timeoutDuration: 3000, cooldownDuration: 30_000 }),
  };
  const accounts = new AccountService({
    users: stores.users,
    sessions: stores.sessions,
    attempts: stores.attempts,
    hasher: new PasswordHasher(config.passwordHashing),
    tokens: new SessionTokens(keys.session, config.sessionTtlSeconds, external),
  });
  const apps = new AppService({ apps: stores.apps, logs: stores.logs, crypto, onChange: () => verifier.invalidate() });
  const logs = new RequestLogService(stores.logs, stores.apps, config.requestLogCapPerApp);

  const cleanup = setInterval(() => {
    Promise.all([accounts.cleanup(), logs.removeOrphans()]).catch((error: unknown) =>
      logger.warn({ err: (error as Error).message }, 'periodic cleanup failed; retrying next interval'),
    );
  }, CLEANUP_INTERVAL_MS);
  cleanup.unref();

  try {
    return await startGrpcService({
      protoService: 'sandbox.identity.v1.IdentityService',
      definition: identity.IdentityServiceService,
      implementation: identityHandlers({ accounts, apps, logs, verifier }, logger),
      host: config.host,
      port: config.port,
      logger,
      dependencies: stores.dependencies,
      close: async () => {
        clearInterval(cleanup);
        await stores.close();
      },
    });
  } catch (error) {
    clearInterval(cleanup);
    await stores.close();
    throw error;
  }
}

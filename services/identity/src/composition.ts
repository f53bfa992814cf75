import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet } from 'jose';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { identity } from '@sandbox/contracts';
import {
  CHANGE_FEED_REDIS,
  createLogger,
  createMetricsRegistry,
  instrumentStore,
  localChangeFeed,
  openRedis,
  redisChangeFeed,
  startGrpcService,
  storeMetrics,
  type Dependency,
  type Logger,
  type Registry,
  type RunningGrpcService,
  type StoreKind,
} from '@sandbox/runtime';
import type { IdentityConfig } from './config';
import { AccountService } from './domain/accounts';
import { AdminService } from './domain/admin';
import { OperatorActors } from './domain/operator-actors';
import { AppLeftovers } from './domain/app-leftovers';
import { AppService } from './domain/apps';
import { ClassService } from './domain/classes';
import { CredentialCrypto } from './domain/credential-crypto';
import { ExerciseProgressService } from './domain/exercises/progress';
import { OPERATOR_PAGE_TOKEN_KEY_INFO, PageTokens } from './domain/page-tokens';
import { PasswordHasher } from './domain/passwords';
import { RecordedRequests } from './domain/recorded-requests';
import { RequestLogService } from './domain/request-logs';
import { SessionTokens } from './domain/session-tokens';
import { UsageService } from './domain/usage';
import { SignInThrottle, type SignInLimiters } from './domain/sign-in-throttle';
import { CredentialVerifier } from './domain/verification';
import { identityHandlers } from './grpc/identity-handlers';
import type { AppLimitStore } from './stores/app-limit-store';
import type { AppStore } from './stores/app-store';
import type { AuditStore } from './stores/audit-store';
import type { ClassMembershipStore } from './stores/class-membership-store';
import type { ClassStore } from './stores/class-store';
import type { ExerciseProgressStore } from './stores/exercise-progress-store';
import { DuplicateKeyError } from './stores/errors';
import { MemoryAppLimitStore } from './stores/memory-app-limit-store';
import { MemoryAppStore } from './stores/memory-app-store';
import { MemoryAuditStore } from './stores/memory-audit-store';
import { MemoryClassMembershipStore } from './stores/memory-class-membership-store';
import { MemoryClassStore } from './stores/memory-class-store';
import { MemoryExerciseProgressStore } from './stores/memory-exercise-progress-store';
import { MemoryRequestLogStore } from './stores/memory-request-log-store';
import { MemorySessionStore } from './stores/memory-session-store';
import { MemoryUsageStore } from './stores/memory-usage-store';
import { MemoryUserStore } from './stores/memory-user-store';
import { RedisConnection } from './stores/redis-connection';
import type { RequestLogStore } from './stores/request-log-store';
import type { SessionStore } from './stores/session-store';
import { signInLimiters } from './stores/sign-in-limiters';
import type { UsageStore } from './stores/usage-store';
import type { UserStore } from './stores/user-store';

/** Expired sessions, and what deleted apps left (logs, usage, limits), are swept this often (no TTL indexes on FerretDB). */
const CLEANUP_INTERVAL_MS = 60_000;

interface Stores {
  users: UserStore;
  sessions: SessionStore;
  apps: AppStore;
  logs: RequestLogStore;
  usage: UsageStore;
  audit: AuditStore;
  limits: AppLimitStore;
  exerciseProgress: ExerciseProgressStore;
  classes: ClassStore;
  classMemberships: ClassMembershipStore;
  signIn: SignInLimiters;
  dependencies: Dependency[];
  close(): Promise<void>;
}

/** MongoDB for durable data and Redis for sign-in counters, each when configured; memory otherwise. */
async function openStores(config: IdentityConfig): Promise<Stores> {
  const redis = config.redisUrl ? await RedisConnection.connect(config.redisUrl) : undefined;
  const counters = {
    signIn: signInLimiters(redis?.client),
    redisDependencies: redis ? [{ name: 'redis', ping: () => redis.ping() }] : [],
  };
  if (!config.mongoUrl) {
    return {
      users: new MemoryUserStore(),
      sessions: new MemorySessionStore(),
      apps: new MemoryAppStore(),
      logs: new MemoryRequestLogStore(),
      usage: new MemoryUsageStore(),
      audit: new MemoryAuditStore(),
      limits: new MemoryAppLimitStore(),
      exerciseProgress: new MemoryExerciseProgressStore(),
      classes: new MemoryClassStore(),
      classMemberships: new MemoryClassMembershipStore(),
      signIn: counters.signIn,
      dependencies: counters.redisDependencies,
      close: async () => redis?.close(),
    };
  }
  try {
    // Required here, not imported above: the embedded default never loads mongoose (about 25 MiB at rest; docs/decisions.md, "Memory at rest").
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { openMongoStores } = require('./stores/mongo-stores') as typeof import('./stores/mongo-stores');
    const { stores, database } = await openMongoStores(config.mongoUrl);
    return {
      ...stores,
      signIn: counters.signIn,
      dependencies: [{ name: 'mongodb', ping: () => database.ping() }, ...counters.redisDependencies],
      close: async () => {
        await database.close();
        await redis?.close();
      },
    };
  } catch (error) {
    await redis?.close();
    throw error;
  }
}

/**
 * The stores as the domain sees them, each operation counted and timed
 * (sandbox_store_operation*): `apps.insert`, `signIn.address.consume`...
 * A duplicate refused by a unique index and a sign-in limit reached are
 * answers, not store failures.
 */
function instrumentStores(stores: Stores, config: IdentityConfig, registry: Registry): Stores {
  const metrics = storeMetrics(registry);
  const durable: StoreKind = config.mongoUrl ? 'mongodb' : 'memory';
  const counters: StoreKind = config.redisUrl ? 'redis' : 'memory';
  const isAnswer = (reason: unknown) => reason instanceof DuplicateKeyError || reason instanceof RateLimiterRes;
  const wrap = <T extends object>(store: T, kind: StoreKind, prefix: string) => instrumentStore(store, kind, metrics, { prefix, isAnswer });
  return {
    ...stores,
    users: wrap(stores.users, durable, 'users.'),
    sessions: wrap(stores.sessions, durable, 'sessions.'),
    apps: wrap(stores.apps, durable, 'apps.'),
    logs: wrap(stores.logs, durable, 'logs.'),
    usage: wrap(stores.usage, durable, 'usage.'),
    audit: wrap(stores.audit, durable, 'audit.'),
    limits: wrap(stores.limits, durable, 'appLimits.'),
    exerciseProgress: wrap(stores.exerciseProgress, durable, 'exerciseProgress.'),
    classes: wrap(stores.classes, durable, 'classes.'),
    classMemberships: wrap(stores.classMemberships, durable, 'classMemberships.'),
    signIn: {
      addressAndAccount: wrap(stores.signIn.addressAndAccount, counters, 'signIn.addressAndAccount.'),
      address: wrap(stores.signIn.address, counters, 'signIn.address.'),
      account: wrap(stores.signIn.account, counters, 'signIn.account.'),
    },
  };
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
    logger.warn({ generated }, 'no key configured: using random per-process keys; apps, credentials, sessions and log page tokens do not survive a restart');
  }
  return { credential, session };
}

export async function start(config: IdentityConfig): Promise<RunningGrpcService> {
  const logger = createLogger('identity', config.logLevel);
  const keys = resolveKeys(config, logger);
  if (config.mongoUrl && !config.redisUrl) {
    logger.warn('REDIS_URL is not set: failed sign-ins are counted in this process only, so replicas do not share their counts');
  }
  const registry = createMetricsRegistry();
  const stores = instrumentStores(await openStores(config), config, registry);

  const crypto = new CredentialCrypto(keys.credential);
  const verifier = new CredentialVerifier(stores.apps, crypto, config.verificationCacheMs);
  // Every replica's cache drops on every replica's change (REDIS_URL is required with replicas); one process needs no Redis for it.
  const redisUrl = config.redisUrl;
  const changes = redisUrl ? await redisChangeFeed({ open: () => openRedis(redisUrl, CHANGE_FEED_REDIS), publishes: true, logger }) : localChangeFeed();
  changes.subscribe(['apps'], () => verifier.invalidate());
  const appsChanged = () => changes.publish('apps');
  const sessionsChanged = () => changes.publish('sessions');
  const external = config.externalIdp && {
    issuer: config.externalIdp.issuer,
    audience: config.externalIdp.audience,
    keys: createRemoteJWKSet(new URL(config.externalIdp.jwksUrl), { timeoutDuration: 3000, cooldownDuration: 30_000 }),
  };
  const accounts = new AccountService({
    users: stores.users,
    sessions: stores.sessions,
    throttle: new SignInThrottle(stores.signIn),
    hasher: new PasswordHasher(config.passwordHashing),
    tokens: new SessionTokens(keys.session, config.sessionTtlSeconds, external),
    signUp: config.signUp,
    operators: config.operators,
    sessionCacheMs: config.verificationCacheMs,
    onSessionsChange: sessionsChanged,
  });
  changes.subscribe(['sessions', 'apps'], () => accounts.forgetSessions());
  const apps = new AppService({ ...stores, crypto, onChange: appsChanged, listCacheMs: config.verificationCacheMs });
  changes.subscribe(['apps'], () => apps.forgetLists());
  const leftovers = new AppLeftovers(stores);
  const logs = new RequestLogService(stores.logs, stores.apps, config.requestLogCapPerApp, new PageTokens(keys.session));
  const usage = new UsageService(stores.usage, stores.apps);
  const exercises = new ExerciseProgressService(stores.exerciseProgress);
  const classes = new ClassService(stores);
  const admin = new AdminService({
    ...stores,
    operators: config.operators,
    tokens: new PageTokens(keys.session, OPERATOR_PAGE_TOKEN_KEY_INFO),
    onChange: appsChanged,
    onSessionsChange: sessionsChanged,
  });

  const cleanup = setInterval(() => {
    Promise.all([accounts.cleanup(), logs.removeOrphans(), leftovers.removeOrphans()]).catch((error: unknown) =>
      logger.warn({ err: (error as Error).message }, 'periodic cleanup failed; retrying next interval'),
    );
  }, CLEANUP_INTERVAL_MS);
  cleanup.unref();

  try {
    return await startGrpcService({
      protoService: 'sandbox.identity.v1.IdentityService',
      definition: identity.IdentityServiceService,
      implementation: identityHandlers(
        {
          accounts,
          apps,
          logs,
          recorded: new RecordedRequests(stores.apps, logs, usage, { exercises: { progress: exercises, logger } }),
          exercises,
          classes,
          admin,
          operators: new OperatorActors(accounts),
          verifier,
        },
        logger,
      ),
      host: config.host,
      port: config.port,
      tls: config.grpcTls,
      healthPort: config.healthPort,
      logger,
      dependencies: stores.dependencies,
      shutdownGraceMs: config.shutdownGraceMs,
      metrics: { registry, service: 'identity', listen: config.metrics },
      close: async () => {
        clearInterval(cleanup);
        await changes.close();
        await stores.close();
      },
    });
  } catch (error) {
    clearInterval(cleanup);
    await changes.close();
    await stores.close();
    throw error;
  }
}

import { MongoAppLimitStore } from './mongo-app-limit-store';
import { MongoAppStore } from './mongo-app-store';
import { MongoAuditStore } from './mongo-audit-store';
import { MongoClassMembershipStore } from './mongo-class-membership-store';
import { MongoClassStore } from './mongo-class-store';
import { MongoDatabase } from './mongo-database';
import { MongoExerciseProgressStore } from './mongo-exercise-progress-store';
import { MongoRequestLogStore } from './mongo-request-log-store';
import { MongoSessionStore } from './mongo-session-store';
import { MongoUsageStore } from './mongo-usage-store';
import { MongoUserStore } from './mongo-user-store';

/** Identity's durable stores in MongoDB, their indexes ensured, and the connection they share. */
export async function openMongoStores(url: string) {
  const database = await MongoDatabase.connect(url);
  try {
    const stores = {
      users: new MongoUserStore(database),
      sessions: new MongoSessionStore(database),
      apps: new MongoAppStore(database),
      logs: new MongoRequestLogStore(database),
      usage: new MongoUsageStore(database),
      audit: new MongoAuditStore(database),
      limits: new MongoAppLimitStore(database),
      exerciseProgress: new MongoExerciseProgressStore(database),
      classes: new MongoClassStore(database),
      classMemberships: new MongoClassMembershipStore(database),
    };
    for (const store of Object.values(stores)) await store.ensureIndexes();
    return { stores, database };
  } catch (error) {
    await database.close();
    throw error;
  }
}

import mongoose, { type Connection } from 'mongoose';
import { unavailable } from '@sandbox/runtime';
import { DuplicateKeyError } from './errors';

/**
 * One mongoose connection for all of identity's collections. Indexes are
 * created explicitly at start-up (not by mongoose in the background), so a
 * missing unique index is a boot failure rather than a silent duplicate later.
 */
export class MongoDatabase {
  private constructor(readonly connection: Connection) {}

  static async connect(url: string): Promise<MongoDatabase> {
    const connection = mongoose.createConnection(url, {
      autoIndex: false,
      autoCreate: false,
      // Fail a call quickly while the database is away (health reports it)
      // instead of queueing it past the caller's deadline.
      bufferCommands: false,
      serverSelectionTimeoutMS: 3000,
      connectTimeoutMS: 3000,
    });
    await connection.asPromise();
    return new MongoDatabase(connection);
  }

  async ping(): Promise<void> {
    const db = this.connection.db;
    if (!db) throw new Error('not connected');
    await db.admin().ping();
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

const UNAVAILABLE_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

/**
 * Runs one database operation and translates the failures callers act on: a
 * unique-index clash becomes DuplicateKeyError, an unreachable database becomes
 * UNAVAILABLE (503 at the gateway). Anything else stays as it is and ends as a
 * logged INTERNAL at the gRPC boundary.
 */
export async function mongoCall<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    const e = error as { code?: unknown; name?: string; keyPattern?: Record<string, unknown>; message?: string };
    if (e.code === 11000) {
      const index = e.keyPattern ? Object.keys(e.keyPattern).join(',') : (/index: (\S+)/.exec(e.message ?? '')?.[1] ?? 'unknown');
      throw new DuplicateKeyError(index);
    }
    if (e.name && UNAVAILABLE_ERRORS.has(e.name)) {
      throw unavailable('database_unavailable', 'The database is unavailable; try again shortly.');
    }
    throw error;
  }
}

/** A lean document with `_id` as the record's `id`. */
export function fromDocument<T extends { id: string }>(doc: { _id: string } & Omit<T, 'id'>): T {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest } as unknown as T;
}

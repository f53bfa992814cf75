import mongoose, { type Connection } from 'mongoose';
import { storeUnavailable } from '@sandbox/runtime';
import { DuplicateKeyError } from './errors';

/**
 * How long an operation waits for a reachable server, MongoDB's
 * serverSelectionTimeoutMS (default 30 s): short enough that, with the
 * database down, a request gets its 503 within a second.
 */
const SERVER_SELECTION_TIMEOUT_MS = 500;

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
      // While the database is away, a call fails (503 naming MongoDB) rather
      // than waits: mongoose does not queue it (bufferCommands), and the driver
      // waits at most SERVER_SELECTION_TIMEOUT_MS for a reachable server, which
      // is what every operation does first. A server that is up is selected at
      // once, so this wait only ever runs while it is away; and an operation
      // waiting for a server has the driver check it again at once (at most
      // every 500 ms, minHeartbeatFrequencyMS), so calls succeed again within
      // that of its return. A read whose connection broke under it is not
      // retried (retryReads): the retry would wait for a server again, so a
      // read in flight when the database went away would take twice as long
      // to fail; its caller gets the 503 and tries again instead.
      bufferCommands: false,
      serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
      retryReads: false,
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
  // This process is stopping and has closed its client: another replica can answer (a roll showed it as 500s).
  'MongoClientClosedError',
]);
/**
 * A socket the store closed, seen raw rather than wrapped by the driver (an
 * EPIPE "This socket has been ended by the other party" during a store
 * restart reached callers as a 500): the store is away, not broken.
 */
const NETWORK_ERROR_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

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
    if ((e.name && UNAVAILABLE_ERRORS.has(e.name)) || (typeof e.code === 'string' && NETWORK_ERROR_CODES.has(e.code))) {
      throw storeUnavailable('database_unavailable', 'MongoDB');
    }
    throw error;
  }
}

/** A lean document with `_id` as the record's `id`. */
export function fromDocument<T extends { id: string }>(doc: { _id: string } & Omit<T, 'id'>): T {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest } as unknown as T;
}

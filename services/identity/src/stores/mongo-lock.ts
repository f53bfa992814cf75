import { setTimeout as sleep } from 'node:timers/promises';
import { Schema, type Model } from 'mongoose';
import { unavailable } from '@sandbox/runtime';
import { DuplicateKeyError } from './errors';
import { mongoCall, type MongoDatabase } from './mongo-database';

type LockDoc = { _id: string; until: Date };

const lockSchema = new Schema<LockDoc>(
  { _id: { type: String, required: true }, until: { type: Date, required: true } },
  { collection: 'locks', versionKey: false, strict: 'throw' },
);
lockSchema.index({ until: 1 });

/**
 * Mutual exclusion for read-modify-write of one document, across replicas.
 *
 * Why: FerretDB 1.x (on SQLite and on PostgreSQL alike) applies an update by reading the document,
 * changing it in memory and writing it back, with no check in between, so two
 * concurrent conditional updates can both "win" and one silently undoes the
 * other (a rotation can resurrect a revoked app). Measured: 20 concurrent
 * compare-and-set updates of one document had several winners in 25 of 30
 * rounds. An insert against a unique _id, however, is exclusive.
 *
 * So a lock is an inserted document, without any compare-and-set: time is cut
 * into slots of `slotMs`, and a holder inserts "<key>:<slot>" and
 * "<key>:<slot+1>" for the slot it starts in. Any two holders whose starts lie
 * less than one slot apart share a lock document, so at most one of them gets
 * in (replicas' clocks are assumed to agree within a second). A holder must
 * finish within one slot (checked before it writes), so the protection
 * outlives its work. Lock documents are never taken over: they are
 * deleted by their holder, and a crashed holder's simply age out of relevance
 * after two slots; a sweep deletes them later.
 */
export class MongoLeaseLock {
  private readonly model: Model<LockDoc>;
  private lastSweep = 0;

  constructor(
    database: MongoDatabase,
    private readonly slotMs = 10_000,
    private readonly waitMs = 5_000,
    /** What a caller that waited `waitMs` in vain gets: the app's words by default, a user's for the user store. */
    private readonly busy: () => Error = () => unavailable('app_busy', 'The app is being changed by another request; try again.'),
  ) {
    this.model = database.connection.model<LockDoc>('Lock', lockSchema);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
  }

  /**
   * Runs `work` while holding the lock for `key`. `work` calls `assertHeld()`
   * right before it writes; that throws if the holder has run out of time.
   */
  async withLock<T>(key: string, work: (assertHeld: () => void) => Promise<T>): Promise<T> {
    const giveUpAt = Date.now() + this.waitMs;
    for (let attempt = 0; ; attempt++) {
      const acquired = await this.tryAcquire(key);
      if (acquired) {
        const { ids, validUntil } = acquired;
        try {
          return await work(() => {
            if (Date.now() >= validUntil) throw unavailable('lock_expired', 'The change took too long and was not applied; try again.');
          });
        } finally {
          await mongoCall(() => this.model.deleteMany({ _id: { $in: ids } }).exec());
          this.sweepNowAndThen();
        }
      }
      if (Date.now() >= giveUpAt) throw this.busy();
      await sleep(Math.min(10 * 2 ** attempt, 100) * (0.5 + Math.random()));
    }
  }

  private async tryAcquire(key: string): Promise<{ ids: string[]; validUntil: number } | undefined> {
    const slot = Math.floor(Date.now() / this.slotMs);
    const ids = [`${key}:${slot}`, `${key}:${slot + 1}`];
    const until = new Date((slot + 2) * this.slotMs);
    const inserted: string[] = [];
    try {
      for (const _id of ids) {
        await mongoCall(() => this.model.create({ _id, until }));
        inserted.push(_id);
      }
      // Newcomers are excluded until the end of slot+1, at least one whole slot
      // from now; keep a second for the final write to land.
      return { ids, validUntil: until.getTime() - 1000 };
    } catch (error) {
      if (inserted.length > 0) await mongoCall(() => this.model.deleteMany({ _id: { $in: inserted } }).exec());
      if (error instanceof DuplicateKeyError) return undefined;
      throw error;
    }
  }

  private sweepNowAndThen(): void {
    const now = Date.now();
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    // Only documents whose protection has long ended, so no holder relies on them.
    void this.model
      .deleteMany({ until: { $lt: new Date(now - this.slotMs) } })
      .exec()
      .catch(() => undefined);
  }
}

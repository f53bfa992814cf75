import { Schema, type Model } from 'mongoose';
import { unavailable } from '@sandbox/runtime';
import type { AppPatch, AppRecord, AppStore } from './app-store';
import { DuplicateKeyError } from './errors';
import { fromDocument, mongoCall, type MongoDatabase } from './mongo-database';
import { MongoLeaseLock } from './mongo-lock';

/** `ownerSlot`: the slot of its owner's cap the app holds (see MongoAppStore.insert); never part of the record. */
type AppDoc = { _id: string; ownerSlot?: string } & Omit<AppRecord, 'id'>;

const slotKey = (ownerId: string, slot: number) => `${ownerId}:${slot}`;
const slotNumber = (ownerSlot: string) => Number(ownerSlot.slice(ownerSlot.lastIndexOf(':') + 1));

/** The document as a record: the slot is this adapter's business. */
function toApp(doc: AppDoc): AppRecord {
  const { ownerSlot: _slot, ...rest } = doc;
  return fromDocument<AppRecord>(rest);
}

const meta = { createdAt: { type: Date, required: true }, hint: { type: String, required: true } };

/** Apps marked at once when an operator disables or enables their owner (at most 100 apps per owner). */
const MARK_CONCURRENCY = 8;

const appSchema = new Schema<AppDoc>(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    appId: { type: String, required: true },
    redirectUris: { type: [String], default: [] },
    scopes: { type: [String], default: [] },
    status: { type: String, enum: ['active', 'revoked'], required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    // Set while an operator has disabled the owner: the hot path refuses without reading the user.
    ownerDisabled: { type: Boolean },
    ownerSlot: { type: String },
    // Embedded, so creating or rotating credentials is a single-document write:
    // there is never an app with half its credentials.
    credentials: {
      appSecret: { hash: { type: String, required: true }, ...meta },
      apiKey: { lookup: { type: String, required: true }, sealed: { type: String, required: true }, ...meta },
      bearerToken: { hash: { type: String, required: true }, ...meta },
    },
  },
  { collection: 'apps', versionKey: false, strict: 'throw', minimize: false },
);
appSchema.index({ ownerId: 1, createdAt: 1 });
appSchema.index({ appId: 1 }, { unique: true });
appSchema.index({ 'credentials.apiKey.lookup': 1 }, { unique: true });
appSchema.index({ 'credentials.bearerToken.hash': 1 }, { unique: true });
// Sparse: apps stored without a slot (before slots existed) are not in it, and do not clash with each other.
appSchema.index({ ownerSlot: 1 }, { unique: true, sparse: true });

/**
 * Inserts one capped app may try before giving up: each failed try means
 * another app took the slot tried, so a creator only runs out while far more
 * creations for the same owner race it than the cap allows to succeed.
 */
const slotAttempts = (cap: number) => 2 * cap + 8;

export class MongoAppStore implements AppStore {
  private readonly model: Model<AppDoc>;
  private readonly lock: MongoLeaseLock;
  /** Per owner, the capped insert under way in this process (see insert). */
  private readonly creating = new Map<string, Promise<void>>();

  constructor(database: MongoDatabase) {
    this.model = database.connection.model<AppDoc>('App', appSchema);
    this.lock = new MongoLeaseLock(database);
  }

  async ensureIndexes(): Promise<void> {
    await mongoCall(() => this.model.createIndexes());
    await this.lock.ensureIndexes();
  }

  /**
   * With a cap, the app takes one of its owner's `cap` slots, and a unique
   * index on the slot lets one app only hold it: an insert against a unique
   * index is exclusive on MongoDB and on FerretDB alike, where a conditional
   * update or `$inc` is not (see MongoLeaseLock), and FerretDB has no
   * transactions. Two replicas counting and then inserting could both see 99
   * apps; two inserts into one slot cannot both succeed. The slot lives in
   * the app's own document, so there is nothing to reserve before the insert
   * or release after a failed one, a deletion (of one app, all of an owner's,
   * or by an operator's purge) frees it with the app, and no counter can
   * drift from the apps it counts.
   *
   * A free slot is picked at random, so creators on different replicas
   * rarely try the same one. Apps stored without a slot (before slots existed) each narrow
   * the owner's range by one: every slotted app was admitted below
   * cap − (unslotted apps then), and that number only falls, so slotted plus
   * unslotted never exceeds the cap.
   */
  async insert(app: AppRecord, capPerOwner?: number): Promise<boolean> {
    if (capPerOwner === undefined) {
      const { id, ...rest } = app;
      await mongoCall(() => this.model.create({ _id: id, ...rest }));
      return true;
    }
    // One capped insert per owner at a time in this process: creations racing here would only clash with
    // each other on the slots they all saw free. The store still decides between processes.
    const previous = this.creating.get(app.ownerId) ?? Promise.resolve();
    const turn = previous.then(() => this.insertInSlot(app, capPerOwner));
    const settled = turn.then(
      () => undefined,
      () => undefined,
    );
    this.creating.set(app.ownerId, settled);
    void settled.then(() => {
      if (this.creating.get(app.ownerId) === settled) this.creating.delete(app.ownerId);
    });
    return turn;
  }

  private async insertInSlot(app: AppRecord, capPerOwner: number): Promise<boolean> {
    const { id, ...rest } = app;
    let slots = await this.slotsOf(app.ownerId, capPerOwner);
    for (let attempt = 0; attempt < slotAttempts(capPerOwner); attempt++) {
      // Every refusal is on what the store said after the last clash, not on a guess.
      if (slots.free.length === 0) return false;
      const slot = slots.free[Math.floor(Math.random() * slots.free.length)]!;
      try {
        await mongoCall(() => this.model.create({ _id: id, ...rest, ownerSlot: slotKey(app.ownerId, slot) }));
        return true;
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        // Read again: it tells whether the slot was the clash (another app holds it now; MongoDB names the
        // index, FerretDB does not) and which slots the other creators have taken meanwhile.
        slots = await this.slotsOf(app.ownerId, capPerOwner);
        if (!error.index.includes('ownerSlot') && !slots.used.has(slot)) throw error; // the app's own keys clashed
      }
    }
    throw unavailable('app_busy', 'Many apps are being created for this account at once; try again.');
  }

  /** The owner's slots in use, and those free below the cap (none once the owner holds cap apps, slotted or not). */
  private async slotsOf(ownerId: string, cap: number): Promise<{ used: Set<number>; free: number[] }> {
    const docs = await mongoCall(() => this.model.find({ ownerId }, { _id: 0, ownerSlot: 1 }).lean<{ ownerSlot?: string }[]>().exec());
    const used = new Set<number>();
    let unslotted = 0;
    for (const { ownerSlot } of docs) {
      if (typeof ownerSlot === 'string') used.add(slotNumber(ownerSlot));
      else unslotted++;
    }
    const free: number[] = [];
    if (docs.length < cap) for (let slot = 0; slot < cap - unslotted; slot++) if (!used.has(slot)) free.push(slot);
    return { used, free };
  }

  async listByOwner(ownerId: string): Promise<AppRecord[]> {
    const docs = await mongoCall(() => this.model.find({ ownerId }).sort({ createdAt: 1, _id: 1 }).lean<AppDoc[]>().exec());
    return docs.map((doc) => toApp(doc));
  }

  async countByOwner(ownerId: string): Promise<number> {
    return mongoCall(() => this.model.countDocuments({ ownerId }).exec());
  }

  async findOwned(ownerId: string, id: string): Promise<AppRecord | undefined> {
    return this.findOne({ _id: id, ownerId });
  }

  async findByAppId(appId: string): Promise<AppRecord | undefined> {
    return this.findOne({ appId });
  }

  async findByApiKeyLookup(lookup: string): Promise<AppRecord | undefined> {
    return this.findOne({ 'credentials.apiKey.lookup': lookup });
  }

  async findByBearerHash(hash: string): Promise<AppRecord | undefined> {
    return this.findOne({ 'credentials.bearerToken.hash': hash });
  }

  async update(ownerId: string, id: string, patch: AppPatch, options: { onlyIfActive?: boolean } = {}): Promise<AppRecord | undefined> {
    const { credentials, ...fields } = patch;
    const set: Record<string, unknown> = { ...fields };
    for (const [kind, value] of Object.entries(credentials ?? {})) set[`credentials.${kind}`] = value;
    const filter: Record<string, unknown> = { _id: id, ownerId };
    if (options.onlyIfActive) filter.status = 'active';
    // A conditional findOneAndUpdate alone is not atomic on FerretDB (see
    // MongoLeaseLock); under the app's lock, check-then-write is. Deletion needs
    // no lock: a write to a deleted document changes nothing.
    return this.lock.withLock(`app:${id}`, async (assertHeld) => {
      if (!(await this.findOne(filter))) return undefined;
      assertHeld();
      const doc = await mongoCall(() => this.model.findOneAndUpdate(filter, { $set: set }, { new: true, runValidators: true }).lean<AppDoc>().exec());
      return doc ? toApp(doc) : undefined;
    });
  }

  async deleteOwned(ownerId: string, id: string): Promise<boolean> {
    const result = await mongoCall(() => this.model.deleteOne({ _id: id, ownerId }).exec());
    return result.deletedCount === 1;
  }

  async deleteAllOwned(ownerId: string): Promise<string[]> {
    const docs = await mongoCall(() => this.model.find({ ownerId }, { _id: 1 }).lean<{ _id: string }[]>().exec());
    const ids = docs.map((doc) => doc._id);
    if (ids.length > 0) await mongoCall(() => this.model.deleteMany({ ownerId, _id: { $in: ids } }).exec());
    return ids;
  }

  async existingIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const docs = await mongoCall(() =>
      this.model
        .find({ _id: { $in: ids } }, { _id: 1 })
        .lean<{ _id: string }[]>()
        .exec(),
    );
    return new Set(docs.map((doc) => doc._id));
  }

  async idsByAppId(appIds: string[]): Promise<Map<string, string>> {
    if (appIds.length === 0) return new Map();
    const docs = await mongoCall(() =>
      this.model
        .find({ appId: { $in: appIds } }, { _id: 1, appId: 1 })
        .lean<{ _id: string; appId: string }[]>()
        .exec(),
    );
    return new Map(docs.map((doc) => [doc.appId, doc._id]));
  }

  async setOwnerDisabled(ownerId: string, disabled: boolean): Promise<number> {
    // Not one updateMany: FerretDB writes each whole document back, so an
    // updateMany racing a credential rotation (which holds the app's lock)
    // loses one of the two. Measured on FerretDB 1.24 on PostgreSQL: the flag
    // lost in over half of 60 rounds, the new credentials in a third. So each
    // app is marked under its own lock, a few at a time; an app already marked
    // is skipped, so a retry after a failure only does what is left.
    const docs = await mongoCall(() =>
      this.model
        .find({ ownerId, ownerDisabled: disabled ? { $ne: true } : true }, { _id: 1 })
        .lean<{ _id: string }[]>()
        .exec(),
    );
    const ids = docs.map((doc) => doc._id);
    for (let from = 0; from < ids.length; from += MARK_CONCURRENCY) {
      await Promise.all(
        ids.slice(from, from + MARK_CONCURRENCY).map((id) =>
          this.lock.withLock(`app:${id}`, async (assertHeld) => {
            assertHeld();
            await mongoCall(() => this.model.updateOne({ _id: id, ownerId }, { $set: { ownerDisabled: disabled } }).exec());
          }),
        ),
      );
    }
    return ids.length;
  }

  async findByIds(ids: string[]): Promise<AppRecord[]> {
    if (ids.length === 0) return [];
    const docs = await mongoCall(() =>
      this.model
        .find({ _id: { $in: ids } })
        .lean<AppDoc[]>()
        .exec(),
    );
    return docs.map((doc) => toApp(doc));
  }

  async countByOwners(ownerIds: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (ownerIds.length === 0) return counts;
    // Owners' ids only, counted here: one indexed query, and no aggregation stage FerretDB might not have.
    const docs = await mongoCall(() =>
      this.model
        .find({ ownerId: { $in: ownerIds } }, { ownerId: 1 })
        .lean<{ ownerId: string }[]>()
        .exec(),
    );
    for (const { ownerId } of docs) counts.set(ownerId, (counts.get(ownerId) ?? 0) + 1);
    return counts;
  }

  private async findOne(filter: Record<string, unknown>): Promise<AppRecord | undefined> {
    const doc = await mongoCall(() => this.model.findOne(filter).lean<AppDoc>().exec());
    return doc ? toApp(doc) : undefined;
  }
}

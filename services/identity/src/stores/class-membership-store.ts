/** A learner in a class. */
export interface ClassMembershipRecord {
  classId: string;
  userId: string;
  joinedAt: Date;
}

/**
 * Who is in which class: one record per (class, user), unique. Deleted with
 * the class, and with the user (AdminService's deletion and purge).
 */
export interface ClassMembershipStore {
  /** false when the user was in the class already (the record is left as it was). */
  add(record: ClassMembershipRecord): Promise<boolean>;
  remove(classId: string, userId: string): Promise<boolean>;
  /** In the order they joined. */
  forClass(classId: string): Promise<ClassMembershipRecord[]>;
  forUser(userId: string): Promise<ClassMembershipRecord[]>;
  count(classId: string): Promise<number>;
  /** Learners per class, for these classes (a class with none is absent). */
  countByClasses(classIds: readonly string[]): Promise<Map<string, number>>;
  /** How many went. */
  deleteForClass(classId: string): Promise<number>;
  deleteForUser(userId: string): Promise<void>;
}

export const membershipKey = (record: Pick<ClassMembershipRecord, 'classId' | 'userId'>) => `${record.classId}|${record.userId}`;

const byJoined = (a: ClassMembershipRecord, b: ClassMembershipRecord) =>
  a.joinedAt.getTime() - b.joinedAt.getTime() || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0);
/** The order forClass answers in: who joined first, then by user id. */
export const joinedOrder = (records: ClassMembershipRecord[]) => records.sort(byJoined);

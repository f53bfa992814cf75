import { randomInt } from 'node:crypto';
import { failedPrecondition, invalidArgument, notFound, permissionDenied } from '@sandbox/runtime';
import type { AuditActor, AuditAction, AuditStore } from '../stores/audit-store';
import type { ClassMembershipRecord, ClassMembershipStore } from '../stores/class-membership-store';
import type { ClassRecord, ClassStore } from '../stores/class-store';
import { DuplicateKeyError } from '../stores/errors';
import type { ExerciseProgressRecord, ExerciseProgressStore } from '../stores/exercise-progress-store';
import type { UserRecord, UserStore } from '../stores/user-store';
import { newResourceId, PATTERN } from './credentials';
import { EXERCISES } from './exercises/catalogue';
import type { Exercise, ExerciseStatus } from './exercises/types';
import { newLogId } from './request-logs';

/*
 * Classes (docs/exercises.md, "Classes"): an operator creates one and hands
 * out its join code; learners join from the portal; the operator sees the
 * class as a grid of its learners by exercise. Nothing is cached here: each
 * call reads the stores, so every replica answers alike.
 */

/**
 * The join code's alphabet: upper-case letters and digits without 0, O, 1
 * and I, which read alike on a projector or a whiteboard. 32 symbols, 8 of
 * them: 2^40 codes, drawn with crypto's randomInt, so a code is not guessed.
 */
export const JOIN_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const JOIN_CODE_LENGTH = 8;
/** A class holds at most this many learners, so its view (one read per store) stays bounded. */
export const CLASS_MAX_LEARNERS = 500;
export const STUCK_MINUTES_DEFAULT = 15;
export const STUCK_MINUTES_MAX = 1440;
const NAME_MAX = 100;
/** Draws of a join code before giving up: a clash is one in a trillion per class, so a second draw is already rare. */
const CODE_DRAWS = 5;
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f]+$/;
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const GROUP_MAX = 128;

export function newJoinCode(draw: (max: number) => number = randomInt): string {
  let code = '';
  for (let i = 0; i < JOIN_CODE_LENGTH; i++) code += JOIN_CODE_ALPHABET[draw(JOIN_CODE_ALPHABET.length)];
  return code;
}

/** XXXX-XXXX, as a person reads it out. */
export const shownJoinCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/**
 * A code as typed, canonical: any case, spaces and hyphens dropped. Undefined
 * when what is left cannot be a code (its length, or a character outside the
 * alphabet): told apart from a code that names no class.
 */
export function canonicalJoinCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]+/g, '').toUpperCase();
  if (code.length !== JOIN_CODE_LENGTH) return undefined;
  for (const char of code) if (!JOIN_CODE_ALPHABET.includes(char)) return undefined;
  return code;
}

export interface NewClass {
  name: string;
  startsAt: string;
  endsAt: string;
  signUpDomain?: string;
  ssoGroup?: string;
}

export interface ClassWithCount {
  record: ClassRecord;
  learners: number;
}

export interface ClassCell {
  exerciseId: string;
  status: ExerciseStatus;
  stuck: boolean;
  firstAttemptAt?: number;
  doneAt?: number;
  hint?: string;
}

export interface ClassLearnerRow {
  userId: string;
  email: string;
  joinedAt: Date;
  done: number;
  cells: ClassCell[];
}

export interface ClassExerciseRow {
  id: string;
  title: string;
  group: string;
  done: number;
  attempted: number;
  stuck: number;
  commonRefusal?: { hint: string; learners: number };
}

export interface ClassView {
  class: ClassWithCount;
  stuckMinutes: number;
  exercises: ClassExerciseRow[];
  learners: ClassLearnerRow[];
}

/**
 * The grid, computed from what was read: each member (in the order they
 * joined; a member whose user is gone is left out) by each exercise (in the
 * catalogue's order). Stuck: attempted, not done, the first attempt longer
 * than stuckMs before now. The common refusal of an exercise: the hint most
 * of its attempting learners hold now; a tie goes to the hint seen last.
 */
export function computeClassView(input: {
  exercises: readonly Exercise[];
  members: readonly ClassMembershipRecord[];
  users: readonly UserRecord[];
  progress: readonly ExerciseProgressRecord[];
  now: number;
  stuckMs: number;
}): { exercises: ClassExerciseRow[]; learners: ClassLearnerRow[] } {
  const users = new Map(input.users.map((user) => [user.id, user]));
  const progress = new Map(input.progress.map((record) => [`${record.userId}|${record.exerciseId}`, record]));
  const rows: ClassExerciseRow[] = input.exercises.map((e) => ({ id: e.id, title: e.title, group: e.group, done: 0, attempted: 0, stuck: 0 }));
  const refusals = input.exercises.map(() => new Map<string, { learners: number; latest: number }>());
  const learners: ClassLearnerRow[] = [];
  for (const member of input.members) {
    const user = users.get(member.userId);
    if (!user) continue;
    let done = 0;
    const cells = input.exercises.map((exercise, index): ClassCell => {
      const record = progress.get(`${member.userId}|${exercise.id}`);
      const row = rows[index]!;
      if (!record) return { exerciseId: exercise.id, status: 'not_started', stuck: false };
      if (record.status === 'done') {
        done++;
        row.done++;
        return { exerciseId: exercise.id, status: 'done', stuck: false, firstAttemptAt: record.firstAttemptAt, doneAt: record.doneAt };
      }
      const stuck = input.now - record.firstAttemptAt > input.stuckMs;
      row.attempted++;
      if (stuck) row.stuck++;
      const hint = record.lastAttempt?.hint || undefined;
      if (hint) {
        const seen = refusals[index]!.get(hint) ?? { learners: 0, latest: 0 };
        refusals[index]!.set(hint, { learners: seen.learners + 1, latest: Math.max(seen.latest, record.lastAttempt?.at ?? 0) });
      }
      return { exerciseId: exercise.id, status: 'attempted', stuck, firstAttemptAt: record.firstAttemptAt, hint };
    });
    learners.push({ userId: member.userId, email: user.email, joinedAt: member.joinedAt, done, cells });
  }
  rows.forEach((row, index) => {
    let best: { hint: string; learners: number; latest: number } | undefined;
    for (const [hint, seen] of refusals[index]!) {
      if (!best || seen.learners > best.learners || (seen.learners === best.learners && seen.latest > best.latest)) best = { hint, ...seen };
    }
    if (best) row.commonRefusal = { hint: best.hint, learners: best.learners };
  });
  return { exercises: rows, learners };
}

export interface ClassDeps {
  classes: ClassStore;
  classMemberships: ClassMembershipStore;
  users: UserStore;
  exerciseProgress: ExerciseProgressStore;
  audit: AuditStore;
  exercises?: readonly Exercise[];
  now?: () => Date;
  /** The join code's random draw (tests make clashes with it). */
  drawCode?: () => string;
}

const classFull = () => failedPrecondition('class_full', `This class is full (${CLASS_MAX_LEARNERS} learners). Ask your instructor to open another class.`);
const classNotFound = () => notFound('class_not_found', 'No class has this id.');

export class ClassService {
  private readonly now: () => Date;
  private readonly exercises: readonly Exercise[];
  private readonly drawCode: () => string;

  constructor(private readonly deps: ClassDeps) {
    this.now = deps.now ?? (() => new Date());
    this.exercises = deps.exercises ?? EXERCISES;
    this.drawCode = deps.drawCode ?? (() => newJoinCode());
  }

  async create(actor: AuditActor, input: NewClass): Promise<ClassWithCount> {
    const name = input.name.trim();
    if (name.length < 1 || name.length > NAME_MAX || !PRINTABLE.test(name)) {
      throw invalidArgument('invalid_class_name', `A class's name is 1 to ${NAME_MAX} printable characters.`);
    }
    const startsAt = moment('startsAt', input.startsAt);
    const endsAt = moment('endsAt', input.endsAt);
    if (endsAt.getTime() <= startsAt.getTime()) throw invalidArgument('invalid_class_dates', 'endsAt must be after startsAt.');
    const domain = (input.signUpDomain ?? '').trim().replace(/^@/, '').toLowerCase();
    if (domain !== '' && !DOMAIN.test(domain)) {
      throw invalidArgument('invalid_sign_up_domain', 'signUpDomain must be an email domain such as uni.example.edu (no @, no address).');
    }
    const group = (input.ssoGroup ?? '').trim();
    if (group.length > GROUP_MAX || (group !== '' && !PRINTABLE.test(group))) {
      throw invalidArgument('invalid_sso_group', `ssoGroup must be at most ${GROUP_MAX} printable characters, as the identity provider names the group.`);
    }
    const base = {
      name,
      startsAt,
      endsAt,
      createdAt: this.now(),
      ...(domain ? { signUpDomain: domain } : {}),
      ...(group ? { ssoGroup: group } : {}),
    };
    for (let draw = 1; ; draw++) {
      const record: ClassRecord = { id: newResourceId(), joinCode: this.drawCode(), ...base };
      try {
        await this.deps.classes.insert(record);
      } catch (error) {
        // Another class holds the code (the unique index says so): draw again.
        if (error instanceof DuplicateKeyError && draw < CODE_DRAWS) continue;
        throw error;
      }
      await this.record(actor, 'class.create', `${record.name} (${record.id}), join code ${shownJoinCode(record.joinCode)}`);
      return { record, learners: 0 };
    }
  }

  /** Newest first, with how many learners each has (one read of the memberships). */
  async list(): Promise<ClassWithCount[]> {
    const classes = await this.deps.classes.list();
    const counts = await this.deps.classMemberships.countByClasses(classes.map((c) => c.id));
    return classes.map((record) => ({ record, learners: counts.get(record.id) ?? 0 }));
  }

  /** One read of each store: the members, their users, their progress. */
  async view(classId: string, stuckMinutes: number): Promise<ClassView> {
    const minutes = stuckMinutes === 0 ? STUCK_MINUTES_DEFAULT : stuckMinutes;
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > STUCK_MINUTES_MAX) {
      throw invalidArgument('invalid_stuck_minutes', `stuckMinutes must be a whole number from 1 to ${STUCK_MINUTES_MAX}.`);
    }
    const record = await this.findClass(classId);
    const members = await this.deps.classMemberships.forClass(record.id);
    const ids = members.map((member) => member.userId);
    const [users, progress] = await Promise.all([this.deps.users.findByIds(ids), this.deps.exerciseProgress.forUsers(ids)]);
    const grid = computeClassView({ exercises: this.exercises, members, users, progress, now: this.now().getTime(), stuckMs: minutes * 60_000 });
    return { class: { record, learners: grid.learners.length }, stuckMinutes: minutes, ...grid };
  }

  /** The class and its memberships; the learners' progress stays theirs. */
  async delete(actor: AuditActor, classId: string): Promise<number> {
    const record = await this.findClass(classId);
    // The class first: from then on nobody can join it, so no membership is added after the sweep below.
    await this.deps.classes.delete(record.id);
    const learners = await this.deps.classMemberships.deleteForClass(record.id);
    await this.record(actor, 'class.delete', `${record.name} (${record.id}): ${learners} ${learners === 1 ? 'learner' : 'learners'} left it`);
    return learners;
  }

  /**
   * A learner joins by the code as typed. Allowed from the class's creation
   * until it ends (a learner may join the evening before the first session);
   * the class's sign-up domain and SSO group, when set, must match the
   * learner. Joining a class one is in answers the class again.
   */
  async join(userId: string, typed: string): Promise<ClassWithCount> {
    const code = canonicalJoinCode(typed);
    if (!code) {
      throw invalidArgument(
        'invalid_join_code',
        `A join code is ${JOIN_CODE_LENGTH} letters and digits, shown as XXXX-XXXX (no 0, O, 1 or I): check what you typed against what your instructor gave.`,
      );
    }
    const record = await this.deps.classes.findByJoinCode(code);
    if (!record) throw notFound('class_not_found', 'No class has this join code: check it with your instructor (codes are case-insensitive).');
    const user = await this.deps.users.findById(userId);
    if (!user) throw notFound('user_not_found', 'The signed-in user no longer exists; sign in again.');
    const members = await this.deps.classMemberships.forClass(record.id);
    if (members.some((member) => member.userId === userId)) return { record, learners: members.length };
    if (this.now().getTime() >= record.endsAt.getTime()) {
      throw failedPrecondition(
        'class_ended',
        `This class ended at ${record.endsAt.toISOString()}; joining is open until a class ends. Ask your instructor for a current class.`,
      );
    }
    if (record.signUpDomain) {
      const domain = user.email.slice(user.email.lastIndexOf('@') + 1);
      if (domain !== record.signUpDomain) {
        throw permissionDenied(
          'class_domain_not_allowed',
          `This class is for email addresses at ${record.signUpDomain}; you are signed in as ${user.email}. Sign in with your ${record.signUpDomain} account.`,
        );
      }
    }
    if (record.ssoGroup && !(user.groups ?? []).includes(record.ssoGroup)) {
      throw permissionDenied(
        'class_group_required',
        `This class is for members of the group "${record.ssoGroup}" at your organisation's sign-in. Sign in through single sign-on with an account in that group` +
          (user.provider === 'password' ? ' (you are signed in with a password, which carries no groups).' : ', or ask your instructor to check the group.'),
      );
    }
    if (members.length >= CLASS_MAX_LEARNERS) throw classFull();
    const added = await this.deps.classMemberships.add({ classId: record.id, userId, joinedAt: this.now() });
    if (!added) return { record, learners: members.length };
    // Counted again after the write: of learners joining at once (on any replica), one whose count is past the cap
    // leaves again, so the cap holds whatever the interleaving (at worst two racing for the last seat both retry).
    const learners = await this.deps.classMemberships.count(record.id);
    if (learners > CLASS_MAX_LEARNERS) {
      await this.deps.classMemberships.remove(record.id, userId);
      throw classFull();
    }
    return { record, learners };
  }

  /** The classes the learner is in, in the order they joined (a membership whose class was deleted meanwhile is skipped). */
  async mine(userId: string): Promise<ClassRecord[]> {
    const memberships = await this.deps.classMemberships.forUser(userId);
    const classes = new Map((await this.deps.classes.findByIds(memberships.map((m) => m.classId))).map((c) => [c.id, c]));
    return memberships.flatMap((m) => (classes.has(m.classId) ? [classes.get(m.classId)!] : []));
  }

  async leave(userId: string, classId: string): Promise<void> {
    if (!PATTERN.resourceId.test(classId) || !(await this.deps.classMemberships.remove(classId, userId))) {
      throw notFound('class_not_found', 'You are not in a class with this id.');
    }
  }

  private async findClass(classId: string): Promise<ClassRecord> {
    const record = PATTERN.resourceId.test(classId) ? await this.deps.classes.findById(classId) : undefined;
    if (!record) throw classNotFound();
    return record;
  }

  private async record(actor: AuditActor, action: AuditAction, detail: string): Promise<void> {
    const at = this.now();
    await this.deps.audit.append({ id: newLogId(at), at, actor, action, targetUserId: '', targetEmail: '', detail });
  }
}

function moment(name: string, text: string): Date {
  const value = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(value)) throw invalidArgument('invalid_class_dates', `${name} must be an RFC 3339 date-time, e.g. 2030-09-01T09:00:00Z.`);
  return new Date(value);
}
